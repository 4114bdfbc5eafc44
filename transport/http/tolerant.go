package httpapi

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"atende/engine"
)

// Body fields as whaticket's web client sends them. Its forms keep loose JavaScript
// values: the message composer posts read: 1, the user modal whatsappId: false when
// no connection is chosen, and native selects send numbers as strings. whaticket's
// back end (Sequelize) coerces these; the types here do the same, and still refuse
// what no client means (an object where a flag or an id is expected) with a field
// error instead of dropping it silently.

// flexBool is a flag sent as true/false, a JSON number (0 is false, any other true), one
// of the strings "true", "false", "1", "0" ("" is false) or null (unset).
type flexBool struct {
	Set   bool // present and not null
	Bad   bool // present but not a flag
	Value bool
}

func (f *flexBool) UnmarshalJSON(b []byte) error {
	*f = flexBool{}
	b = bytes.TrimSpace(b)
	raw := string(b)
	if raw == "null" {
		return nil
	}
	f.Set = true
	if strings.HasPrefix(raw, `"`) {
		// A string holds only the flag words: ParseFloat would also take "NaN",
		// "Inf" or "0x1p3", which no form sends.
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			f.Bad = true
			return nil
		}
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "1":
			f.Value = true
		case "false", "0", "":
		default:
			f.Bad = true
		}
		return nil
	}
	switch raw {
	case "true":
		f.Value = true
		return nil
	case "false":
		return nil
	}
	// A JSON number (the decoder has checked the syntax); one out of float64's range
	// is refused.
	n, err := strconv.ParseFloat(raw, 64)
	if err != nil || len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		f.Bad = true
		return nil
	}
	f.Value = n != 0
	return nil
}

// checkFlags adds "Invalid value" for every bad flexBool, by field name.
func checkFlags(fields map[string]flexBool) error {
	bad := map[string]string{}
	for name, f := range fields {
		if f.Bad {
			bad[name] = engine.MsgInvalidValue
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &engine.Error{Code: engine.ErrValidation, Fields: bad}
}
