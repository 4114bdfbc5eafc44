package webchat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"atende/engine"
	"atende/transport/call"
)

// Client frame types.
const (
	FrameHello   = "hello"
	FrameMessage = "message"
	FramePing    = "ping"
	FrameRead    = "read"
	FrameProof   = "proof"
	// FrameResume names, after a welcome, the seq of the widget's oldest pending
	// message (or of the next it will number): where the visitor's order resumes.
	FrameResume = "resume"
	// Video call signalling (docs/calls.md): the visitor's call page joins the call
	// of its link's token and relays its signals over this socket.
	FrameCallJoin   = "call.join"
	FrameCallSignal = "call.signal"
)

// Limits of client frames. Config.MaxFrameSize and Config.MaxBodyLength override the
// first two for a Server.
const (
	DefaultMaxFrameSize  = 16 << 10 // bytes of one websocket message
	DefaultMaxBodyLength = 4096     // characters (runes) of a message body
	MaxNameLength        = 50       // characters of a hello name (spec section 9: names 2 to 50)
	MaxEmailLength       = 254
	MaxClientIDLength    = 64  // characters of a client message id, [A-Za-z0-9_-]
	MaxReadIDs           = 100 // ids in one read frame
	maxReadIDLength      = 96
	MaxCallToken         = 512 // bytes of a call.join token (call.Tokens verifies no longer one)
)

// ClientFrame is a parsed, validated frame from the widget. Only the fields of its
// Type are set.
type ClientFrame struct {
	Type  string   // FrameHello, FrameMessage, FramePing or FrameRead
	Name  string   // hello: the visitor's name, trimmed; may be ""
	Email string   // hello: the visitor's e-mail, trimmed; may be ""
	ID    string   // message: the client's id of the message, unique per visitor
	Body  string   // message: the text, trimmed, "\r" removed
	Seq   int64    // message: the visitor's number of it, 1 to MaxSeq (order.go), 0: none; resume: required
	IDs   []string // read: ids of attendant messages the widget displayed
	Nonce string   // proof: the answer to the welcome's challenge
	// Token is call.join's call token (the customer token of the call link); ID
	// names a call frame, and the server's answer repeats it.
	Token string
	// Signal is call.signal's signal, parsed by call.ParseSignal.
	Signal *call.Signal
}

// fieldsOf lists the keys each frame type may carry besides "type".
var fieldsOf = map[string][]string{
	FrameHello:   {"name", "email"},
	FrameMessage: {"id", "body", "seq"},
	FramePing:    {},
	FrameRead:    {"ids"},
	FrameProof:   {"nonce"},
	FrameResume:  {"seq"},
	// id: 1-64 of [A-Za-z0-9_-], repeated in the answer (call.joined, call.ack or
	// an error frame), so the call page matches answers to requests.
	FrameCallJoin:   {"id", "token"},
	FrameCallSignal: {"id", "signal"},
}

// ParseClientFrame parses one text frame from the widget with the default limits.
// It refuses, as an *engine.Error: frames over DefaultMaxFrameSize and bodies over
// DefaultMaxBodyLength (ERR_BODY_TOO_LARGE); invalid UTF-8, malformed JSON, anything
// but one JSON object, duplicated or unknown keys (keys are case-sensitive) and
// values of the wrong JSON type (ERR_INVALID_JSON); unknown frame types, keys that
// belong to another type, missing or empty required values, control characters and
// values that break their rules (ERR_VALIDATION, with the field in Fields).
// A message's "seq" is the one number: a JSON integer from 1 to MaxSeq, written
// plainly (no fraction, no exponent); a string there is ERR_INVALID_JSON, another
// number ERR_VALIDATION.
// call.signal's "signal" is the one object value: call.ParseSignal reads it, with
// its own limits and strictness (its refusals are ERR_VALIDATION,
// ERR_INVALID_JSON or ERR_BODY_TOO_LARGE). A refused call frame whose id was valid
// comes back with Type and ID set beside the error, so its refusal can name it; so
// does a refused message whose id was valid, with its Seq if that was valid too.
func ParseClientFrame(data []byte) (ClientFrame, error) {
	return parseClientFrame(data, DefaultMaxFrameSize, DefaultMaxBodyLength)
}

func parseClientFrame(data []byte, maxFrame int64, maxBody int) (ClientFrame, error) {
	if int64(len(data)) > maxFrame {
		return ClientFrame{}, engine.Wrap(engine.ErrBodyTooLarge, fmt.Errorf("frame of %d bytes", len(data)))
	}
	if !utf8.Valid(data) {
		return ClientFrame{}, engine.Wrap(engine.ErrInvalidJSON, errors.New("invalid UTF-8"))
	}
	raw, err := decodeObject(data)
	if err != nil {
		return ClientFrame{}, engine.Wrap(engine.ErrInvalidJSON, err)
	}
	for k, v := range raw { // "ids" holds a list, "signal" an object, "seq" a number, every other key a string
		_, list := v.([]string)
		_, obj := v.(json.RawMessage)
		_, num := v.(json.Number)
		if list != (k == "ids") || obj != (k == "signal") || num != (k == "seq") {
			return ClientFrame{}, engine.Wrap(engine.ErrInvalidJSON, fmt.Errorf("key %q: wrong JSON type", k))
		}
	}
	typ, ok := raw["type"].(string)
	if !ok {
		return ClientFrame{}, invalid("type", engine.MsgRequired)
	}
	allowed, known := fieldsOf[typ]
	if !known {
		return ClientFrame{}, invalid("type", engine.MsgInvalidValue)
	}
	for k := range raw {
		if k != "type" && !contains(allowed, k) {
			return ClientFrame{}, invalid(k, engine.MsgInvalidValue)
		}
	}
	f := ClientFrame{Type: typ}
	switch typ {
	case FrameHello:
		if f.Name, err = textField(raw, "name", MaxNameLength); err != nil {
			return ClientFrame{}, err
		}
		if f.Email, err = textField(raw, "email", MaxEmailLength); err != nil {
			return ClientFrame{}, err
		}
		if f.Email != "" && !plausibleEmail(f.Email) {
			return ClientFrame{}, invalid("email", engine.MsgInvalidEmail)
		}
	case FrameMessage:
		id, _ := raw["id"].(string)
		if !validClientID(id) {
			return ClientFrame{}, invalid("id", engine.MsgInvalidValue)
		}
		named := ClientFrame{Type: typ, ID: id} // what a refusal from here on names
		if n, ok := raw["seq"].(json.Number); ok {
			seq, valid := parseSeq(n)
			if !valid {
				return named, invalid("seq", engine.MsgInvalidValue)
			}
			named.Seq = seq
		}
		body, _ := raw["body"].(string)
		body = strings.TrimSpace(strings.ReplaceAll(body, "\r", ""))
		switch {
		case body == "":
			return named, invalid("body", engine.MsgRequired)
		case utf8.RuneCountInString(body) > maxBody:
			return named, engine.Wrap(engine.ErrBodyTooLarge, fmt.Errorf("body above %d characters", maxBody))
		case hasControl(body, true):
			return named, invalid("body", engine.MsgInvalidValue)
		}
		f.ID, f.Seq, f.Body = id, named.Seq, body
	case FrameResume:
		n, ok := raw["seq"].(json.Number)
		if !ok {
			return ClientFrame{}, invalid("seq", engine.MsgRequired)
		}
		if f.Seq, ok = parseSeq(n); !ok {
			return ClientFrame{}, invalid("seq", engine.MsgInvalidValue)
		}
	case FrameProof:
		nonce, _ := raw["nonce"].(string)
		if !validClientID(nonce) {
			return ClientFrame{}, invalid("nonce", engine.MsgInvalidValue)
		}
		f.Nonce = nonce
	case FrameRead:
		ids, _ := raw["ids"].([]string)
		if len(ids) == 0 {
			return ClientFrame{}, invalid("ids", engine.MsgRequired)
		}
		for _, id := range ids {
			if id == "" || len(id) > maxReadIDLength || hasControl(id, false) {
				return ClientFrame{}, invalid("ids", engine.MsgInvalidValue)
			}
		}
		f.IDs = ids
	case FrameCallJoin, FrameCallSignal:
		id, _ := raw["id"].(string)
		if !validClientID(id) {
			return ClientFrame{}, invalid("id", engine.MsgInvalidValue)
		}
		named := ClientFrame{Type: typ, ID: id} // what a refusal from here on names
		if typ == FrameCallJoin {
			tok, _ := raw["token"].(string)
			if !validCallToken(tok) {
				return named, invalid("token", engine.MsgInvalidValue)
			}
			f.ID, f.Token = id, tok
			break
		}
		sig, ok := raw["signal"].(json.RawMessage)
		if !ok {
			return named, invalid("signal", engine.MsgRequired)
		}
		s, err := call.ParseSignal(sig)
		if err != nil {
			return named, err
		}
		f.ID, f.Signal = id, &s
	}
	return f, nil
}

// parseSeq reads a message's seq: a plain decimal integer from 1 to MaxSeq
// ("7", not "7.0", "7e0", "-7" or "0").
func parseSeq(n json.Number) (int64, bool) {
	s := string(n)
	if s == "" || len(s) > 16 || s[0] == '0' || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil && v >= 1 && v <= MaxSeq
}

// validCallToken: 1 to MaxCallToken characters of a call token's alphabet
// (base64url and dots); call.Tokens.Verify decides whether it is one.
func validCallToken(s string) bool {
	if s == "" || len(s) > MaxCallToken {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// decodeObject reads data as exactly one JSON object whose values are strings,
// arrays of strings (MaxReadIDs at most), for the key "signal" only an object
// (kept raw, as a json.RawMessage) and for the key "seq" only a number (kept as
// written, a json.Number), with no key twice, and nothing after it.
func decodeObject(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	out := make(map[string]any, 4)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string) // object keys are always strings
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("key %q twice", key)
		}
		if len(out) >= 4 {
			return nil, errors.New("too many keys")
		}
		if key == "signal" { // the one nested value: read whole, parsed by its frame type
			var obj json.RawMessage
			if err := dec.Decode(&obj); err != nil {
				return nil, err
			}
			obj = bytes.TrimSpace(obj)
			if len(obj) == 0 || obj[0] != '{' {
				return nil, fmt.Errorf("key %q: want an object", key)
			}
			out[key] = obj
			continue
		}
		v, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch v := v.(type) {
		case string:
			out[key] = v
		case json.Number:
			if key != "seq" {
				return nil, fmt.Errorf("key %q: want a string, got a number", key)
			}
			out[key] = v
		case json.Delim:
			if v != '[' {
				return nil, fmt.Errorf("key %q: an object is not allowed", key)
			}
			list, err := decodeStrings(dec)
			if err != nil {
				return nil, fmt.Errorf("key %q: %w", key, err)
			}
			out[key] = list
		default:
			return nil, fmt.Errorf("key %q: want a string, got %T", key, v)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the object")
	}
	return out, nil
}

// decodeStrings reads the rest of an array (after '[') of at most MaxReadIDs strings.
func decodeStrings(dec *json.Decoder) ([]string, error) {
	list := []string{}
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch v := tok.(type) {
		case json.Delim: // ']' (an array or object opening is refused below)
			if v != ']' {
				return nil, errors.New("nested values are not allowed")
			}
			return list, nil
		case string:
			if len(list) == MaxReadIDs {
				return nil, fmt.Errorf("more than %d values", MaxReadIDs)
			}
			list = append(list, v)
		default:
			return nil, fmt.Errorf("want strings, got %T", v)
		}
	}
}

// textField reads an optional one-line text value: trimmed, at most max runes, no
// control characters.
func textField(raw map[string]any, key string, max int) (string, error) {
	s, _ := raw[key].(string) // parseClientFrame checked the JSON types
	s = strings.TrimSpace(s)
	switch {
	case utf8.RuneCountInString(s) > max:
		return "", invalid(key, engine.MsgTooLong)
	case hasControl(s, false):
		return "", invalid(key, engine.MsgInvalidValue)
	}
	return s, nil
}

// invalid is ERR_VALIDATION for one field.
func invalid(field, msg string) error {
	return &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{field: msg}}
}

// hasControl reports control characters (C0, DEL, C1) and U+FFFD, which is what
// a lone surrogate escape ("\ud800") decodes to. Message bodies may hold "\n" and "\t".
func hasControl(s string, multiline bool) bool {
	for _, r := range s {
		if multiline && (r == '\n' || r == '\t') {
			continue
		}
		if unicode.IsControl(r) || r == utf8.RuneError {
			return true
		}
	}
	return false
}

// validClientID reports whether id is 1 to MaxClientIDLength characters of
// [A-Za-z0-9_-].
func validClientID(id string) bool {
	if id == "" || len(id) > MaxClientIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// plausibleEmail is a shape check: one '@', something before it, a dotted domain
// after it, no spaces.
func plausibleEmail(s string) bool {
	local, domain, ok := strings.Cut(s, "@")
	return ok && local != "" && !strings.Contains(domain, "@") &&
		strings.Contains(domain, ".") && !strings.HasPrefix(domain, ".") && !strings.HasSuffix(domain, ".") &&
		!strings.ContainsAny(s, " \t\n<>()[],;:\\\"")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Server frames. Times are RFC 3339 in UTC with milliseconds.

// Media is the attachment of a message frame.
type Media struct {
	Type string `json:"type"` // image, audio, video, document
	URL  string `json:"url,omitempty"`
	Name string `json:"name,omitempty"`
}

// messageFrame is a message the widget shows. FromMe follows Atende's meaning: true
// for what the business sent (an attendant, a bot), false for the visitor's own.
type messageFrame struct {
	Type   string    `json:"type,omitempty"` // "message"; empty inside a welcome's history
	ID     string    `json:"id"`
	Body   string    `json:"body"`
	FromMe bool      `json:"fromMe"`
	At     time.Time `json:"at"`
	Media  *Media    `json:"media,omitempty"`
}

type welcomeFrame struct {
	Type    string `json:"type"`
	Visitor string `json:"visitor"`
	// TimeZone is the IANA zone the widget shows message times in: the tenant's.
	TimeZone string         `json:"timeZone"`
	History  []messageFrame `json:"history"`
	// Challenge is the proof of work a new visitor solves before its first message
	// (Config.ProofOfWorkBits); absent when none is asked.
	Challenge *challengeFrame `json:"challenge,omitempty"`
}

// challengeFrame asks for a nonce such that SHA-256(seed ":" nonce) starts with
// bits zero bits.
type challengeFrame struct {
	Seed string `json:"seed"`
	Bits int    `json:"bits"`
}

type ackFrame struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

type errorFrame struct {
	Type   string            `json:"type"`
	Code   engine.Code       `json:"code"`
	ID     string            `json:"id,omitempty"` // the client message id the error is about
	Fields map[string]string `json:"fields,omitempty"`
	// Limit names the limit a ERR_TOO_MANY_ATTEMPTS is about ("newVisitor"), and
	// RetryAfter is when, in seconds, trying again may succeed.
	Limit      string `json:"limit,omitempty"`
	RetryAfter int    `json:"retryAfter,omitempty"`
	// Expected is, for ERR_OUT_OF_ORDER, the seq the server takes next.
	Expected int64 `json:"expected,omitempty"`
}

// Limits an ERR_TOO_MANY_ATTEMPTS names: the new-visitor limits, a first message
// sent before the welcome's challenge was solved, and the rates of a socket's
// frames and a visitor's messages.
const (
	limitNewVisitor = "newVisitor"
	limitProof      = "proof"
	limitRate       = "rate"
)

var pongPayload = []byte(`{"type":"pong"}`)

// callJoinedFrame answers a call.join the relay took: the call, the visitor's role
// in it (customer) and the ICE servers for its RTCPeerConnection.
type callJoinedFrame struct {
	Type string `json:"type"` // "call.joined"
	ID   string `json:"id"`
	call.Joined
}

// callAckFrame answers a call.signal the relay took.
type callAckFrame struct {
	Type string `json:"type"` // "call.ack"
	ID   string `json:"id"`
}

// callEvent wraps a relay frame (the gateway's "call" event payload: the other
// party's signal plus "from", or joined, gone, replaced) as {"type":"call","call":…}.
func callEvent(frame json.RawMessage) []byte {
	b := make([]byte, 0, len(frame)+24)
	b = append(b, `{"type":"call","call":`...)
	b = append(b, frame...)
	return append(b, '}')
}

// stamp is t as sent on the wire.
func stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

// encode marshals a server frame; the values are plain data that always marshal.
func encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("webchat: encode server frame: " + err.Error())
	}
	return b
}

// errorPayload is the error frame for err about client message id (may be "").
func errorPayload(err error, id string) []byte {
	f := errorFrame{Type: "error", Code: engine.CodeOf(err), ID: id}
	var e *engine.Error
	if errors.As(err, &e) && len(e.Fields) > 0 {
		f.Fields = e.Fields
	}
	return encode(f)
}
