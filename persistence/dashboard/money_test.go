package dashboard

import (
	"strings"
	"testing"
)

func TestParseMoney(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"R$ 1.200,00", 120000, true},
		{"R$ 890,00", 89000, true},
		{"1200", 120000, true},
		{"1,200.50", 120050, true},
		{"890,5", 89050, true},
		{"45,90", 4590, true},
		{"1.000.000", 100000000, true},
		{"  R$3.500,00  ", 350000, true},
		{"", 0, false},
		{"R$", 0, false},
		{"grátis", 0, false},
		{"-50,00", 0, false},
		{"=1+1", 1100, true}, // only the digits count: a formula is not evaluated
		{strings.Repeat("9", 30), 0, false},
		{strings.Repeat("1", 100), 0, false},
		{"12\x00,50", 1250, true},
	}
	for _, c := range cases {
		got, ok := ParseMoney(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseMoney(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func FuzzParseMoney(f *testing.F) {
	for _, s := range []string{"R$ 1.200,00", "1,200.50", "-1", "", "9999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := ParseMoney(s)
		if n < 0 || n > maxCents || (!ok && n != 0) {
			t.Fatalf("ParseMoney(%q) = %d, %v", s, n, ok)
		}
	})
}
