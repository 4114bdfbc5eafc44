package node

import (
	"net"
	"testing"
)

func TestServingLine(t *testing.T) {
	cases := []struct {
		addr string
		seed bool
		url  string
	}{
		{"[::]:8080", true, "http://localhost:8080"},
		{"0.0.0.0:9090", false, "http://localhost:9090"},
		{"127.0.0.1:41000", true, "http://127.0.0.1:41000"},
		{"[::1]:8080", false, "http://[::1]:8080"},
		{"192.168.0.10:80", false, "http://192.168.0.10:80"},
	}
	for _, tc := range cases {
		addr, err := net.ResolveTCPAddr("tcp", tc.addr)
		if err != nil {
			t.Fatal(err)
		}
		url, login := servingLine(Config{SeedDemo: tc.seed}, addr)
		if url != tc.url {
			t.Errorf("%s: url %q, want %q", tc.addr, url, tc.url)
		}
		if want := map[bool]string{true: "admin@atende.local / admin123"}[tc.seed]; login != want {
			t.Errorf("%s seeded=%v: login %q, want %q", tc.addr, tc.seed, login, want)
		}
	}
}
