package call

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// closedTimeout bounds the bus publish of a departure or a join's answer, which
// no client waits for.
const closedTimeout = 3 * time.Second

// Kinds of relay messages.
const (
	kindJoin   = "join"
	kindHere   = "here"
	kindSignal = "signal"
	kindGone   = "gone"
)

// wire is a relay message on the bus.
type wire struct {
	Kind   string          `json:"k"`
	Call   string          `json:"c"`
	Tenant int64           `json:"t"`
	Role   Role            `json:"r"`           // the sender's role
	Peer   string          `json:"p"`           // the sender's socket
	To     string          `json:"o,omitempty"` // here: the socket it answers
	Frame  json.RawMessage `json:"f,omitempty"` // signal: the frame, a JSON object
}

// maxWire bounds a bus message: a signal plus the envelope.
const maxWire = MaxSignal + 1024

func (w wire) check() error {
	switch {
	case w.Kind != kindJoin && w.Kind != kindHere && w.Kind != kindSignal && w.Kind != kindGone:
		return fmt.Errorf("call relay message: kind %.20q", w.Kind)
	case !validCallID(w.Call) || w.Tenant <= 0 || (w.Role != Attendant && w.Role != Customer):
		return errors.New("call relay message: call, tenant or role")
	case w.Peer == "" || len(w.Peer) > 64 || len(w.To) > 64 || (w.Kind == kindHere) != (w.To != ""):
		return errors.New("call relay message: peer")
	case w.Kind == kindSignal:
		if _, err := ParseSignal(w.Frame); err != nil {
			return fmt.Errorf("call relay message: %w", err)
		}
	case len(w.Frame) != 0:
		return errors.New("call relay message: frame on a " + w.Kind)
	}
	return nil
}

func marshalWire(w wire) ([]byte, error) {
	if err := w.check(); err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// unmarshalWire decodes what marshalWire encoded, strictly.
func unmarshalWire(b []byte) (wire, error) {
	if len(b) > maxWire {
		return wire{}, errors.New("call relay message: too large")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var w wire
	if err := dec.Decode(&w); err != nil {
		return wire{}, fmt.Errorf("call relay message: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return wire{}, errors.New("call relay message: trailing data")
	}
	return w, w.check()
}
