package netlimit

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)} }

func TestGateCountsPerAddress(t *testing.T) {
	g, err := NewGate(GateConfig{MaxPerAddress: 3, MaxConnections: 5})
	if err != nil {
		t.Fatal(err)
	}
	var passes []*Pass
	for i := range 3 {
		p, ref := g.Enter("10.0.0.1")
		if ref != nil {
			t.Fatalf("connection %d of 10.0.0.1 refused: %v", i+1, ref)
		}
		passes = append(passes, p)
	}
	_, ref := g.Enter("10.0.0.1")
	if ref == nil || ref.Status != http.StatusTooManyRequests || ref.RetryAfterSeconds() < 1 {
		t.Fatalf("4th connection of 10.0.0.1: refusal %+v, want 429 with Retry-After", ref)
	}
	// Another address has its own count, up to the node's total.
	for i := range 2 {
		if _, ref := g.Enter("10.0.0.2"); ref != nil {
			t.Fatalf("connection %d of 10.0.0.2 refused: %v", i+1, ref)
		}
	}
	_, ref = g.Enter("10.0.0.3")
	if ref == nil || ref.Status != http.StatusServiceUnavailable {
		t.Fatalf("6th connection of the node: refusal %+v, want 503", ref)
	}
	if got := g.OpenFrom("10.0.0.1"); got != 3 {
		t.Fatalf("OpenFrom(10.0.0.1) = %d, want 3", got)
	}
	// A released place is free again; Done twice releases once.
	passes[0].Done()
	passes[0].Done()
	if got := g.OpenFrom("10.0.0.1"); got != 2 {
		t.Fatalf("after one Done: OpenFrom = %d, want 2", got)
	}
	if _, ref := g.Enter("10.0.0.1"); ref != nil {
		t.Fatalf("connection after a release refused: %v", ref)
	}
	if st := g.Stats(); st.Open != 5 || st.Addresses != 2 || st.RefusedAddress != 1 || st.RefusedNode != 1 {
		t.Fatalf("stats %+v, want 5 open from 2 addresses, one refusal of each scope", st)
	}
}

func TestGateRates(t *testing.T) {
	c := newClock()
	g, err := NewGate(GateConfig{AddressRate: Rate{PerSecond: 2, Burst: 3}, Rate: Rate{PerSecond: 10, Burst: 5}, Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		p, ref := g.Enter("10.0.0.1")
		if ref != nil {
			t.Fatalf("handshake %d refused: %v", i+1, ref)
		}
		p.Done() // the rate counts new connections, not open ones
	}
	_, ref := g.Enter("10.0.0.1")
	if ref == nil || ref.Status != http.StatusTooManyRequests {
		t.Fatalf("4th handshake in the same instant: %+v, want 429", ref)
	}
	if ref.RetryAfter != 500*time.Millisecond || ref.RetryAfterSeconds() != 1 {
		t.Fatalf("Retry-After %v (%d s), want 500ms (1 s)", ref.RetryAfter, ref.RetryAfterSeconds())
	}
	// The node's rate is shared: two other addresses spend the rest of its burst.
	for _, a := range []string{"10.0.0.2", "10.0.0.3"} {
		if _, ref := g.Enter(a); ref != nil {
			t.Fatalf("%s refused: %v", a, ref)
		}
	}
	_, ref = g.Enter("10.0.0.4")
	if ref == nil || ref.Status != http.StatusServiceUnavailable {
		t.Fatalf("handshake beyond the node's burst: %+v, want 503", ref)
	}
	c.add(500 * time.Millisecond)
	if _, ref := g.Enter("10.0.0.1"); ref != nil {
		t.Fatalf("handshake after the refill refused: %v", ref)
	}
}

func TestGateForgetsIdleAddresses(t *testing.T) {
	c := newClock()
	g, _ := NewGate(GateConfig{MaxPerAddress: 2, AddressRate: Rate{PerSecond: 1, Burst: 1}, Now: c.now})
	for i := range 3 * minSweep {
		p, ref := g.Enter("10.1." + string(rune('a'+i%26)) + "." + time.Duration(i).String())
		if ref != nil {
			t.Fatal(ref)
		}
		p.Done()
		c.add(time.Second) // every bucket refills: nothing is worth keeping
	}
	if st := g.Stats(); st.Addresses > minSweep || st.Open != 0 {
		t.Fatalf("stats %+v: idle addresses kept", st)
	}
}

func TestNilGateAdmits(t *testing.T) {
	var g *Gate
	p, ref := g.Enter("x")
	if ref != nil {
		t.Fatal(ref)
	}
	p.Done()
}

func TestNewGateRefusesNegative(t *testing.T) {
	if _, err := NewGate(GateConfig{MaxPerAddress: -1}); err == nil {
		t.Fatal("negative MaxPerAddress accepted")
	}
}

func TestBuckets(t *testing.T) {
	c := newClock()
	b := NewBuckets(PerMinute(6, 2), c.now)
	for i := range 2 {
		if ok, _ := b.Take("a"); !ok {
			t.Fatalf("take %d refused", i+1)
		}
	}
	ok, wait := b.Take("a")
	if ok || wait != 10*time.Second {
		t.Fatalf("3rd take: %v, wait %v; want refused, 10s", ok, wait)
	}
	if ok, _ := b.Take("b"); !ok {
		t.Fatal("another key shares a's bucket")
	}
	c.add(10 * time.Second)
	if ok, _ := b.Take("a"); !ok {
		t.Fatal("take after the refill refused")
	}
	if ok, _ := NewBuckets(Rate{}, nil).Take("a"); !ok {
		t.Fatal("a zero rate limits")
	}
}

func TestAddressKey(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7":               "192.0.2.7",
		"::ffff:192.0.2.7":        "192.0.2.7",
		"2001:db8:1:2:3:4:5:6":    "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff:4:5:6": "2001:db8:1:2::/64",
		"not an address":          "not an address",
		"2001:db8:1:3::1":         "2001:db8:1:3::/64",
	} {
		if got := AddressKey(in); got != want {
			t.Errorf("AddressKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClientAddr(t *testing.T) {
	r, _ := http.NewRequest("GET", "/", nil)
	r.RemoteAddr = "192.0.2.1:5555"
	r.Header.Add("X-Forwarded-For", "203.0.113.9, 198.51.100.4")
	if got := ClientAddr(r, false); got != "192.0.2.1" {
		t.Fatalf("untrusted: %q", got)
	}
	if got := ClientAddr(r, true); got != "198.51.100.4" {
		t.Fatalf("trusted: %q, want the entry our proxy appended", got)
	}
	r.Header.Set("X-Forwarded-For", "garbage")
	if got := ClientAddr(r, true); got != "192.0.2.1" {
		t.Fatalf("garbage X-Forwarded-For: %q", got)
	}
}

// FuzzClientAddress feeds hostile X-Forwarded-For headers and remote addresses: the
// address is never empty when the remote address is not, and its key is stable.
func FuzzClientAddress(f *testing.F) {
	f.Add("203.0.113.9, 198.51.100.4", "192.0.2.1:5555")
	f.Add("::ffff:1.2.3.4", "[2001:db8::1]:443")
	f.Add(",,,", "not-an-address")
	f.Add("2001:db8::1%eth0", "[fe80::1%25eth0]:80")
	f.Fuzz(func(t *testing.T, xff, remote string) {
		r, _ := http.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		r.Header.Set("X-Forwarded-For", xff)
		for _, trust := range []bool{false, true} {
			a := ClientAddr(r, trust)
			if a == "" && remote != "" {
				t.Fatalf("ClientAddr(%q, %q, %v) is empty", xff, remote, trust)
			}
			if k := AddressKey(a); AddressKey(k) != k && !strings.Contains(k, "/") {
				t.Fatalf("AddressKey(%q) = %q is not stable", a, k)
			}
		}
	})
}
