package call

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"atende/engine"
	"atende/transport/socket/sio"
)

// Signal types a party sends.
const (
	TypeOffer     = "offer"
	TypeAnswer    = "answer"
	TypeCandidate = "candidate"
	TypeHold      = "hold"
	TypeUnhold    = "unhold"
	TypeEnd       = "end"
)

// Types the relay adds.
const (
	TypeJoined   = "joined"
	TypeGone     = "gone"
	TypeReplaced = "replaced"
)

// Limits of a signal. A browser's offer with audio, video and a few dozen codecs
// is 5–10 KB; a candidate line is under 200 bytes.
const (
	MaxSignal    = 24 << 10 // the whole frame
	MaxSDP       = 16 << 10
	MaxCandidate = 512
	MaxMid       = 32
	MaxMLine     = 64
)

// Candidate is an ICE candidate as RTCIceCandidateInit carries it.
type Candidate struct {
	Candidate     string  `json:"candidate"`
	SDPMid        *string `json:"sdpMid,omitempty"`
	SDPMLineIndex *int    `json:"sdpMLineIndex,omitempty"`
}

// Signal is one signalling message of a party.
type Signal struct {
	CallID    string     `json:"callId"`
	Type      string     `json:"type"`
	SDP       string     `json:"sdp,omitempty"`
	Candidate *Candidate `json:"candidate,omitempty"`
}

// errSignal is the validation error of a bad signal; ParseSignal wraps it in an
// engine error, ERR_VALIDATION (or ERR_BODY_TOO_LARGE, ERR_INVALID_JSON).
var errSignal = errors.New("call signal")

func bad(format string, args ...any) error {
	return engine.Wrap(engine.ErrValidation, fmt.Errorf("%w: "+format, append([]any{errSignal}, args...)...))
}

// ParseSignal reads a client's signal strictly: one JSON object of the documented
// keys, each once and of its type; a call id of 22 base64url characters; a known
// type; sdp only (and required) with offer and answer, candidate only (and
// required) with candidate; text without control characters other than CR, LF and
// tab in the sdp; sizes within the limits above.
func ParseSignal(raw []byte) (Signal, error) {
	if len(raw) > MaxSignal {
		return Signal{}, engine.Wrap(engine.ErrBodyTooLarge, fmt.Errorf("%w: %d bytes", errSignal, len(raw)))
	}
	if !json.Valid(raw) {
		return Signal{}, engine.Wrap(engine.ErrInvalidJSON, errSignal)
	}
	var s Signal
	seen, err := fields(raw, "", func(key string, v json.RawMessage) error {
		switch key {
		case "callId", "type", "sdp":
			str, ok := sio.DecodeString(v)
			if !ok {
				return bad("%s: not a string", key)
			}
			switch key {
			case "callId":
				s.CallID = str
			case "type":
				s.Type = str
			case "sdp":
				s.SDP = str
			}
		case "candidate":
			c, err := parseCandidate(v)
			if err != nil {
				return err
			}
			s.Candidate = &c
		default:
			return bad("unknown key %.40q", key)
		}
		return nil
	})
	if err != nil {
		return Signal{}, err
	}
	if !validCallID(s.CallID) {
		return Signal{}, bad("callId")
	}
	switch s.Type {
	case TypeOffer, TypeAnswer:
		if s.SDP == "" || s.Candidate != nil {
			return Signal{}, bad("%s needs sdp and no candidate", s.Type)
		}
		if len(s.SDP) > MaxSDP {
			return Signal{}, engine.Wrap(engine.ErrBodyTooLarge, fmt.Errorf("%w: sdp of %d bytes", errSignal, len(s.SDP)))
		}
		if !cleanText(s.SDP, true) {
			return Signal{}, bad("sdp: control characters or invalid UTF-8")
		}
	case TypeCandidate:
		if s.Candidate == nil || seen["sdp"] {
			return Signal{}, bad("candidate needs candidate and no sdp")
		}
	case TypeHold, TypeUnhold, TypeEnd:
		if seen["sdp"] || s.Candidate != nil {
			return Signal{}, bad("%s carries nothing", s.Type)
		}
	default:
		return Signal{}, bad("type %.20q", s.Type)
	}
	return s, nil
}

// parseCandidate reads RTCIceCandidateInit: candidate (a string, "" is the end of
// candidates), sdpMid (string or null) and sdpMLineIndex (small integer or null);
// usernameFragment is accepted and dropped (it repeats the SDP's ice-ufrag).
func parseCandidate(v json.RawMessage) (Candidate, error) {
	var c Candidate
	seen, err := fields(v, "candidate: ", func(key string, f json.RawMessage) error {
		null := string(f) == "null"
		switch key {
		case "candidate":
			str, ok := sio.DecodeString(f)
			if !ok || len(str) > MaxCandidate || !cleanText(str, false) {
				return bad("candidate.candidate")
			}
			c.Candidate = str
		case "sdpMid":
			if null {
				return nil
			}
			str, ok := sio.DecodeString(f)
			if !ok || len(str) > MaxMid || !cleanText(str, false) {
				return bad("candidate.sdpMid")
			}
			c.SDPMid = &str
		case "sdpMLineIndex":
			if null {
				return nil
			}
			n, err := strconv.Atoi(string(f))
			if err != nil || n < 0 || n > MaxMLine {
				return bad("candidate.sdpMLineIndex")
			}
			c.SDPMLineIndex = &n
		case "usernameFragment":
			if null {
				return nil
			}
			if str, ok := sio.DecodeString(f); !ok || len(str) > 256 || !cleanText(str, false) {
				return bad("candidate.usernameFragment")
			}
		default:
			return bad("candidate: unknown key %.40q", key)
		}
		return nil
	})
	if err != nil {
		return Candidate{}, err
	}
	if !seen["candidate"] {
		return Candidate{}, bad("candidate.candidate required")
	}
	return c, nil
}

// fields calls fn with each member of the JSON object obj (already checked valid
// JSON) and reports the keys seen; a duplicate key, a value that is not an object
// (ERR_INVALID_JSON at the top, ERR_VALIDATION inside: prefix names where) or fn's
// first error ends the walk.
func fields(obj json.RawMessage, prefix string, fn func(key string, v json.RawMessage) error) (map[string]bool, error) {
	seen := map[string]bool{}
	var ferr error
	err := sio.ObjectFields(obj, func(key string, v json.RawMessage) {
		switch {
		case ferr != nil:
		case seen[key]:
			ferr = bad("%sduplicate key %q", prefix, key)
		default:
			seen[key] = true
			ferr = fn(key, v)
		}
	})
	switch {
	case err != nil && prefix == "":
		return nil, engine.Wrap(engine.ErrInvalidJSON, fmt.Errorf("%w: %v", errSignal, err))
	case err != nil:
		return nil, bad("%snot an object", prefix)
	}
	return seen, ferr
}

// cleanText: valid UTF-8 without control characters (CR, LF and tab allowed in
// lines, an SDP's line breaks).
func cleanText(s string, lines bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r == 0x7f || (r < 0x20 && !(lines && (r == '\r' || r == '\n' || r == '\t'))) {
			return false
		}
	}
	return true
}
