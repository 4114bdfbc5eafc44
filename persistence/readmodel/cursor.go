package readmodel

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"atende/engine"
)

// Cursors are opaque to clients: base64url of "t1.<updatedAt µs>.<id>" (a ticket list
// position) or "m1.<seq>" (a message page position). A cursor holds a position only,
// never a filter, so a cursor reused with other filters is harmless.

func encodeTicketCursor(updatedAt time.Time, id engine.ID) string {
	raw := "t1." + strconv.FormatInt(updatedAt.UnixMicro(), 10) + "." + strconv.FormatInt(id, 10)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

func decodeTicketCursor(c string) (time.Time, engine.ID, error) {
	fail := func() (time.Time, engine.ID, error) { return time.Time{}, 0, fieldError("cursor") }
	if len(c) > 64 {
		return fail()
	}
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return fail()
	}
	parts := strings.Split(string(raw), ".")
	if len(parts) != 3 || parts[0] != "t1" {
		return fail()
	}
	us, err1 := strconv.ParseInt(parts[1], 10, 64)
	id, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || id <= 0 || us < 0 {
		return fail()
	}
	return time.UnixMicro(us).UTC(), id, nil
}

func encodeMessageCursor(seq int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte("m1." + strconv.FormatInt(seq, 10)))
}

func decodeMessageCursor(c string) (int64, error) {
	if len(c) > 64 {
		return 0, fieldError("cursor")
	}
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, fieldError("cursor")
	}
	rest, ok := strings.CutPrefix(string(raw), "m1.")
	seq, err := strconv.ParseInt(rest, 10, 64)
	if !ok || err != nil || seq <= 0 {
		return 0, fieldError("cursor")
	}
	return seq, nil
}

// fieldError is an ErrValidation for one field.
func fieldError(field string) error {
	return &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{field: engine.MsgInvalidValue}}
}
