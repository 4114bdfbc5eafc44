package call

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"atende/transport/socket"
)

// benchPeer counts what the relay emits to it.
type benchPeer struct {
	id  string
	p   socket.Principal
	got atomic.Int64
}

func (b *benchPeer) ID() string                        { return b.id }
func (b *benchPeer) Principal() socket.Principal       { return b.p }
func (b *benchPeer) Emit(string, json.RawMessage) bool { b.got.Add(1); return true }

// offerFrame is a browser-sized offer: about 6 KB of SDP.
func offerFrame(call string) json.RawMessage {
	var sdp strings.Builder
	sdp.WriteString(`v=0\r\no=- 4611731400430051336 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n`)
	for i := 0; i < 90; i++ {
		sdp.WriteString(`a=rtpmap:` + strconv.Itoa(96+i) + ` VP8/90000\r\na=rtcp-fb:96 goog-remb\r\n`)
	}
	return json.RawMessage(`{"callId":"` + call + `","type":"offer","sdp":"` + sdp.String() + `"}`)
}

// BenchmarkParseSignalOffer parses 1,000 browser-sized offers per operation (the
// project's benchmarks bound their own work; make bench runs them once).
func BenchmarkParseSignalOffer(b *testing.B) {
	const n = 1000
	frame := offerFrame(cid)
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		for range n {
			if _, err := ParseSignal(frame); err != nil {
				b.Fatal(err)
			}
		}
	}
	per := time.Since(start) / time.Duration(b.N*n)
	b.ReportMetric(float64(per.Microseconds()), "µs/offer")
	b.ReportMetric(float64(len(frame)), "bytes/offer")
}

// BenchmarkRelaySignal: candidates relayed from the customer to the attendant of one
// call among 1,000 calls on the node (in process, no bus), 10,000 per operation.
func BenchmarkRelaySignal(b *testing.B) {
	tokens, _ := NewTokens(testSecret, nil)
	r, _ := NewRelay(Config{Tokens: tokens})
	ctx := context.Background()
	var last [2]*benchPeer
	for i := 0; i < 1000; i++ {
		inv, _ := tokens.Issue(1, 7, 1, time.Hour)
		att := &benchPeer{id: "a" + strconv.Itoa(i), p: socket.Principal{UserID: 1, CompanyID: 1}}
		cus := &benchPeer{id: "c" + strconv.Itoa(i), p: socket.Principal{CompanyID: 1, Call: inv.Call}}
		if _, err := r.HandleEvent(ctx, att, EventJoin, []json.RawMessage{json.RawMessage(tokenArg(inv.Attendant))}); err != nil {
			b.Fatal(err)
		}
		if _, err := r.HandleEvent(ctx, cus, EventJoin, nil); err != nil {
			b.Fatal(err)
		}
		last = [2]*benchPeer{att, cus}
	}
	call := last[1].p.Call
	frame := []json.RawMessage{json.RawMessage(`{"callId":"` + call + `","type":"candidate","candidate":{"candidate":"candidate:1 1 udp 2122260223 192.168.1.5 50000 typ host","sdpMid":"0","sdpMLineIndex":0}}`)}
	const n = 10_000 // signals per operation
	before := last[0].got.Load()
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		for range n {
			if _, err := r.HandleEvent(ctx, last[1], EventSignal, frame); err != nil {
				b.Fatal(err)
			}
		}
	}
	if got := last[0].got.Load() - before; got != int64(b.N*n) {
		b.Fatalf("the attendant got %d of %d signals", got, b.N*n)
	}
	b.ReportMetric(float64(b.N*n)/time.Since(start).Seconds(), "signals/s")
}
