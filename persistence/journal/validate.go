package journal

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"atende/engine"
)

// Limits on names; payload limits are in Config.
const (
	maxStreamIDLen = 255
	maxTypeLen     = 128
)

// validateAppend refuses what must never reach the database and returns the
// append's payload bytes.
func (s *Store) validateAppend(companyID engine.ID, stream string, expected int64, events []engine.EventData) (int, error) {
	if err := checkName("stream id", stream, maxStreamIDLen); err != nil {
		return 0, fmt.Errorf("append %q: %w", stream, err)
	}
	if companyID < 0 {
		return 0, fmt.Errorf("append %s: negative company id %d: %w", stream, companyID, engine.ErrInvalidEvent)
	}
	if expected < engine.AnyVersion {
		return 0, fmt.Errorf("append %s: expected version %d is neither ≥ 0 nor AnyVersion: %w", stream, expected, engine.ErrInvalidEvent)
	}
	if len(events) == 0 {
		return 0, fmt.Errorf("append %s: no events: %w", stream, engine.ErrInvalidEvent)
	}
	total := 0
	for i, e := range events {
		if err := checkName("event type", e.Type, maxTypeLen); err != nil {
			return 0, fmt.Errorf("append %s: event %d: %w", stream, i, err)
		}
		size := len(e.Data) + len(e.Metadata)
		if size > s.cfg.MaxEventSize {
			return 0, fmt.Errorf("append %s: event %d (%s) is %d bytes, above the %d-byte limit: %w",
				stream, i, e.Type, size, s.cfg.MaxEventSize, engine.ErrEventTooLarge)
		}
		if !validJSON(e.Data) {
			return 0, fmt.Errorf("append %s: event %d (%s): data is not valid UTF-8 JSON: %w", stream, i, e.Type, engine.ErrInvalidEvent)
		}
		if len(e.Metadata) > 0 && !validJSON(e.Metadata) {
			return 0, fmt.Errorf("append %s: event %d (%s): metadata is not valid UTF-8 JSON: %w", stream, i, e.Type, engine.ErrInvalidEvent)
		}
		total += size
	}
	return total, nil
}

func (s *Store) validateSnapshot(snap engine.Snapshot) error {
	if err := checkName("stream id", snap.StreamID, maxStreamIDLen); err != nil {
		return fmt.Errorf("save snapshot %q: %w", snap.StreamID, err)
	}
	if err := checkName("snapshot type", snap.Type, maxTypeLen); err != nil {
		return fmt.Errorf("save snapshot %s: %w", snap.StreamID, err)
	}
	if snap.Version < 1 {
		return fmt.Errorf("save snapshot %s: version %d < 1: %w", snap.StreamID, snap.Version, engine.ErrInvalidEvent)
	}
	if len(snap.Data) > s.cfg.MaxSnapshotSize {
		return fmt.Errorf("save snapshot %s: %d bytes, above the %d-byte limit: %w",
			snap.StreamID, len(snap.Data), s.cfg.MaxSnapshotSize, engine.ErrEventTooLarge)
	}
	return nil
}

// checkName accepts a non-empty UTF-8 string of at most maxLen bytes without control
// characters (PostgreSQL refuses NUL in text; the rest would only hide bugs).
func checkName(what, v string, maxLen int) error {
	switch {
	case v == "":
		return fmt.Errorf("empty %s: %w", what, engine.ErrInvalidEvent)
	case len(v) > maxLen:
		return fmt.Errorf("%s is %d bytes, above %d: %w", what, len(v), maxLen, engine.ErrInvalidEvent)
	case !utf8.ValidString(v):
		return fmt.Errorf("%s is not valid UTF-8: %w", what, engine.ErrInvalidEvent)
	}
	for _, c := range v {
		if c < 0x20 || c == 0x7f {
			return fmt.Errorf("%s %q has a control character: %w", what, v, engine.ErrInvalidEvent)
		}
	}
	return nil
}

// validJSON: encoding/json accepts invalid UTF-8 inside strings; the databases do not.
func validJSON(b []byte) bool { return utf8.Valid(b) && json.Valid(b) }
