package engine

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

// locationCase is one case of testdata/locations.json, which the web app's parser is
// held to as well (web/src/features/clientmap/location.test.ts).
type locationCase struct {
	In  string  `json:"in"`
	OK  bool    `json:"ok"`
	Lat float64 `json:"lat"`
	Lng float64 `json:"lng"`
}

func loadLocationCases(t testing.TB) []locationCase {
	t.Helper()
	b, err := os.ReadFile("testdata/locations.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []locationCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

func TestParseLocationCases(t *testing.T) {
	for _, c := range loadLocationCases(t) {
		t.Run(c.In, func(t *testing.T) {
			got, ok := ParseLocation(c.In)
			if ok != c.OK {
				t.Fatalf("ParseLocation(%q) ok = %v, want %v (%+v)", c.In, ok, c.OK, got)
			}
			if ok && (got.Lat != c.Lat || got.Lng != c.Lng) {
				t.Fatalf("ParseLocation(%q) = %+v, want %v,%v", c.In, got, c.Lat, c.Lng)
			}
		})
	}
}

func TestParseLocationRefusesOverlongValues(t *testing.T) {
	long := "https://www.google.com/maps?q=-15.6,-56.1&x=" + strings.Repeat("a", MaxLocationLen)
	if _, ok := ParseLocation(long); ok {
		t.Fatal("a value above MaxLocationLen parsed")
	}
}

// FuzzParseLocation: no input panics, and whatever parses is a finite point in range.
func FuzzParseLocation(f *testing.F) {
	for _, c := range loadLocationCases(f) {
		f.Add(c.In)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, ok := ParseLocation(s)
		if !ok {
			if l != (Location{}) {
				t.Fatalf("refused %q but returned %+v", s, l)
			}
			return
		}
		if math.IsNaN(l.Lat) || math.IsNaN(l.Lng) || l.Lat < -90 || l.Lat > 90 || l.Lng < -180 || l.Lng > 180 {
			t.Fatalf("ParseLocation(%q) = %+v: out of range", s, l)
		}
	})
}
