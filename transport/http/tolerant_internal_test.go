package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
)

// flexBool reads the flags whaticket's forms send, and refuses the rest.
func TestFlexBoolHostileInput(t *testing.T) {
	for raw, want := range map[string]flexBool{
		`true`: {Set: true, Value: true}, `false`: {Set: true}, `1`: {Set: true, Value: true}, `0`: {Set: true},
		`-0.0`: {Set: true}, `2.5`: {Set: true, Value: true}, `"1"`: {Set: true, Value: true}, `" TRUE "`: {Set: true, Value: true},
		`"false"`: {Set: true}, `"0"`: {Set: true}, `""`: {Set: true}, `null`: {},
		`"NaN"`: {Set: true, Bad: true}, `"Inf"`: {Set: true, Bad: true}, `"0x1p3"`: {Set: true, Bad: true},
		`"yes"`: {Set: true, Bad: true}, `1e999`: {Set: true, Bad: true}, `{}`: {Set: true, Bad: true},
		`[true]`: {Set: true, Bad: true}, `"\u0000"`: {Set: true, Bad: true},
		`"` + strings.Repeat("1", 10000) + `"`: {Set: true, Bad: true},
	} {
		var v struct {
			F flexBool `json:"f"`
		}
		if err := json.Unmarshal([]byte(`{"f":`+raw+`}`), &v); err != nil {
			t.Fatalf("%.40s: %v", raw, err)
		}
		if v.F != want {
			t.Errorf("%.40s: %+v, want %+v", raw, v.F, want)
		}
	}
}

// Whatever a client sends, reading a flag never fails the decoder nor panics, and a
// flag is never both unset and refused.
func FuzzFlexBool(f *testing.F) {
	for _, s := range []string{`true`, `1`, `"0"`, `null`, `{}`, `"NaN"`, `1e999`, `-`, `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var v flexBool
		if err := v.UnmarshalJSON([]byte(raw)); err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		if v.Bad && v.Value || !v.Set && (v.Bad || v.Value) {
			t.Fatalf("%q: %+v", raw, v)
		}
	})
}
