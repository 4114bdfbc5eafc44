package httpapi

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"atende/engine"
)

func TestParseQueueIDs(t *testing.T) {
	for in, want := range map[string][]engine.ID{
		"": {}, "null": {}, "[]": {}, "7": {7}, " 7 , 8": {7, 8}, "[1,2]": {1, 2}, `["3", 4]`: {3, 4},
		// Hostile but valid: duplicates and disorder come back sorted and unique.
		"[5,5,5]": {5}, `[9, "2", 9, 2]`: {2, 9}, "3,1,3": {1, 3},
	} {
		got, err := parseQueueIDs(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("parseQueueIDs(%q) = %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"[", "[1,", "{}", `[{"id":1}]`, "[0]", "-1", "1e3", "[1.0]", `["x"]`, "a,b", "1,,2", "[null]", "99999999999999999999",
		"[-5,-5]", "[1,-1]", `["-2"]`, "[9223372036854775808]", "0,0", "[" + strings.Repeat("1,", maxConnQueueIDs) + "1]"} {
		if got, err := parseQueueIDs(in); engine.CodeOf(err) != engine.ErrValidation {
			t.Errorf("parseQueueIDs(%q) = %v %v, want ERR_VALIDATION", in, got, err)
		}
	}
}

// Repeated queueIds fields of a multipart form add up to one sorted, unique list.
func TestConnFormQueueIDsDeduplicated(t *testing.T) {
	fm := &connForm{set: map[string]bool{}}
	for _, v := range []string{"[11, 11]", `["12", 12]`, "11"} {
		if err := fm.field("queueIds", v); err != nil {
			t.Fatalf("field(queueIds, %q): %v", v, err)
		}
	}
	if !slices.Equal(fm.in.QueueIDs, []engine.ID{11, 12}) {
		t.Fatalf("queueIds %v", fm.in.QueueIDs)
	}
}

// FuzzConnectionForm feeds hostile values to the connection form's field parsers
// (multipart fields and their JSON spelling): they never panic, answer either values
// or a validation error, and every queue id they accept is positive.
func FuzzConnectionForm(f *testing.F) {
	for _, s := range []string{"", "[1,2]", `["3"]`, "1,2", "true", "on", "[", "\x00", `{"queueIds":[1]}`,
		`{"name":"Zap","isDefault":"true","dailyMax":"5","queueIds":"[1]"}`, `{"queueIds":{"a":1}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids, err := parseQueueIDs(s)
		if err != nil && engine.CodeOf(err) != engine.ErrValidation {
			t.Fatalf("parseQueueIDs(%q): %v", s, err)
		}
		for _, id := range ids {
			if id <= 0 {
				t.Fatalf("parseQueueIDs(%q) accepted %d", s, id)
			}
		}
		for _, key := range []string{"isDefault", "outChannel", "dailyMax", "queueIds", "mediaRoles", "name", "removeGreetingMedia"} {
			fm := &connForm{set: map[string]bool{}}
			if err := fm.field(key, s); err != nil && engine.CodeOf(err) != engine.ErrValidation {
				t.Fatalf("field(%s, %q): %v", key, s, err)
			}
			if fm.in.DailyMax < 0 || len(fm.roles) > maxConnImages {
				t.Fatalf("field(%s, %q) gave %+v", key, s, fm)
			}
		}
		var b connJSON
		if json.Unmarshal([]byte(s), &b) == nil {
			fm := &connForm{set: map[string]bool{}}
			if err := b.into(fm); err != nil && engine.CodeOf(err) != engine.ErrValidation {
				t.Fatalf("into(%q): %v", s, err)
			}
		}
	})
}
