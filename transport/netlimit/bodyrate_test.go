package netlimit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// echoLen answers how many body bytes it read, or 400 when the body broke off.
var echoLen = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	n, err := io.Copy(io.Discard, r.Body)
	if err != nil {
		http.Error(w, "body: "+err.Error(), http.StatusBadRequest)
		return
	}
	fmt.Fprintf(w, "%d", n)
})

func TestBodyRateCutsSlowBody(t *testing.T) {
	var cuts atomic.Int32
	srv := httptest.NewServer(BodyRate{Grace: 300 * time.Millisecond, MinRate: 1000, OnCut: func() { cuts.Add(1) }}.Wrap(echoLen))
	defer srv.Close()
	nc, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// The attack of issue 17: a declared body sent one byte at a time, slowly.
	if _, err := io.WriteString(nc, "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	cut := make(chan time.Time, 1)
	go func() {
		_, _ = io.Copy(io.Discard, nc) // until the server closes the connection
		cut <- time.Now()
	}()
	start := time.Now()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	giveUp := time.After(30 * time.Second)
	for {
		select {
		case at := <-cut:
			if el := at.Sub(start); el < 300*time.Millisecond {
				t.Fatalf("cut after %v, before the grace", el)
			}
			for deadline := time.Now().Add(10 * time.Second); cuts.Load() != 1; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("OnCut called %d times, want once", cuts.Load())
				}
			}
			return
		case <-tick.C:
			_, _ = nc.Write([]byte{'x'}) // may fail once the server closed: the reader reports it
		case <-giveUp:
			t.Fatal("a body trickling at 10 bytes/s was never cut")
		}
	}
}

func TestBodyRateLetsSteadyBodyThrough(t *testing.T) {
	srv := httptest.NewServer(BodyRate{Grace: 200 * time.Millisecond, MinRate: 2000}.Wrap(echoLen))
	defer srv.Close()
	// 8 chunks of 1,000 bytes, one every 100 ms: 10,000 bytes/s, well above the
	// minimum, and longer in all than the grace.
	pr, pw := io.Pipe()
	go func() {
		chunk := strings.Repeat("y", 1000)
		for range 8 {
			time.Sleep(100 * time.Millisecond)
			if _, err := io.WriteString(pw, chunk); err != nil {
				return
			}
		}
		pw.Close()
	}()
	req, _ := http.NewRequest("POST", srv.URL, pr)
	req.ContentLength = 8000
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(b) != "8000" {
		t.Fatalf("steady body: %d %q, want 200 8000", resp.StatusCode, b)
	}
}

func TestBodyRateMax(t *testing.T) {
	srv := httptest.NewServer(BodyRate{Grace: time.Minute, MinRate: 1, Max: 300 * time.Millisecond}.Wrap(echoLen))
	defer srv.Close()
	nc, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	fmt.Fprint(nc, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
	_ = nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(nc), nil)
	if err != nil {
		t.Fatalf("no answer once Max passed: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("status %d, want the handler's 400 for a broken body", resp.StatusCode)
	}
}

func TestBodyRateSkipsBodilessRequests(t *testing.T) {
	var deadlineErr error
	h := BodyRate{Grace: time.Millisecond, MinRate: 1}.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(50 * time.Millisecond) // past the grace: a deadline would have cut a body
		_, deadlineErr = r.Body.Read(make([]byte, 1))
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if errors.Is(deadlineErr, os.ErrDeadlineExceeded) {
		t.Fatal("a GET without a body got a read deadline")
	}
}

// A chunked body (no Content-Length) trickling in is cut the same way.
func TestBodyRateCutsSlowChunkedBody(t *testing.T) {
	srv := httptest.NewServer(BodyRate{Grace: 300 * time.Millisecond, MinRate: 1000}.Wrap(echoLen))
	defer srv.Close()
	nc, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	fmt.Fprint(nc, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
	cut := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, nc)
		close(cut)
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	giveUp := time.After(30 * time.Second)
	for {
		select {
		case <-cut:
			return
		case <-tick.C:
			_, _ = io.WriteString(nc, "1\r\nx\r\n")
		case <-giveUp:
			t.Fatal("a chunked body trickling at 10 bytes/s was never cut")
		}
	}
}
