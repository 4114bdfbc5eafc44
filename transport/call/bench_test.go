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

func BenchmarkParseSignalOffer(b *testing.B) {
	frame := offerFrame(cid)
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseSignal(frame); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRelaySignal: one candidate relayed from the customer to the attendant of
// one call among 1,000 calls on the node (in process, no bus).
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
	before := last[0].got.Load()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.HandleEvent(ctx, last[1], EventSignal, frame); err != nil {
			b.Fatal(err)
		}
	}
	if last[0].got.Load()-before != int64(b.N) {
		b.Fatalf("the attendant got %d of %d signals", last[0].got.Load()-before, b.N)
	}
}
