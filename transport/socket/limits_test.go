package socket

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"atende/transport/netlimit"
)

// handshakeFrom sends a websocket handshake from local address src (a loopback
// address) and returns the answer; an upgraded connection is closed.
func handshakeFrom(t *testing.T, src, url string) (status int, retryAfter string, body map[string]any) {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "http"+url[len("ws"):], nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("handshake from %s: %v", src, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusSwitchingProtocols {
		return resp.StatusCode, "", nil
	}
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), body
}

func TestGateCapsSocketsPerAddress(t *testing.T) {
	gate, err := netlimit.NewGate(netlimit.GateConfig{MaxPerAddress: 2, MaxConnections: 3})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, HubConfig{}, func(c *Config) { c.Gate = gate })
	first, _ := f.open("")
	f.open("")
	status, retry, body := handshakeFrom(t, "127.0.0.1", f.url(""))
	if status != http.StatusTooManyRequests || retry == "" || body["message"] != "too many connections from this address" {
		t.Fatalf("3rd socket from 127.0.0.1: %d Retry-After %q %v; want 429 with Retry-After and the reason", status, retry, body)
	}
	if n, err := strconv.Atoi(retry); err != nil || n < 1 {
		t.Fatalf("Retry-After %q is not a number of seconds", retry)
	}
	// Counted per address: another client still gets in…
	if status, _, body := handshakeFrom(t, "127.0.0.2", f.url("")); status != http.StatusSwitchingProtocols {
		t.Fatalf("socket from 127.0.0.2: %d %v, want 101", status, body)
	}
	// …up to the node's total, which that closed socket frees again.
	eventually(t, "the closed 127.0.0.2 socket to leave the gate", func() bool { return gate.Stats().Open == 2 })
	if status, _, _ := handshakeFrom(t, "127.0.0.2", f.url("")); status != http.StatusSwitchingProtocols {
		t.Fatalf("socket from 127.0.0.2 after its first closed: %d, want 101", status)
	}
	// A socket that ends gives its place back.
	_ = first.nc.Close()
	eventually(t, "the closed socket to leave the gate", func() bool { return gate.OpenFrom("127.0.0.1") == 1 })
	if status, _, body := handshakeFrom(t, "127.0.0.1", f.url("")); status != http.StatusSwitchingProtocols {
		t.Fatalf("socket from 127.0.0.1 after one closed: %d %v, want 101", status, body)
	}
}

func TestGateBoundsHandshakeRate(t *testing.T) {
	gate, err := netlimit.NewGate(netlimit.GateConfig{AddressRate: netlimit.PerMinute(1, 2)})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, HubConfig{}, func(c *Config) { c.Gate = gate })
	for i := range 2 {
		if status, _, body := handshakeFrom(t, "127.0.0.1", f.url("")); status != http.StatusSwitchingProtocols {
			t.Fatalf("handshake %d: %d %v, want 101", i+1, status, body)
		}
	}
	status, retry, _ := handshakeFrom(t, "127.0.0.1", f.url(""))
	if status != http.StatusTooManyRequests {
		t.Fatalf("3rd handshake within the burst's minute: %d, want 429", status)
	}
	if n, _ := strconv.Atoi(retry); n < 30 || n > 60 {
		t.Fatalf("Retry-After %q, want the time until the next token (about a minute)", retry)
	}
	if status, _, _ := handshakeFrom(t, "127.0.0.2", f.url("")); status != http.StatusSwitchingProtocols {
		t.Fatalf("another address: %d, want 101", status)
	}
}
