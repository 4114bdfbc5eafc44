package socket

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/rs/zerolog"
)

// Benchmarks for BENCHMARKS.md B1 (idle socket memory) and B2 (fan-out). They are
// bounded in sockets and time; run them with
//
//	go test -run=XXX -bench=. -benchtime=20000x ./transport/socket/
//
// and pin with taskset where the load generator shares the box.

// memConn is an in-memory net.Conn: writes are counted and dropped; reads block
// until Close.
type memConn struct {
	closed chan struct{}
	once   sync.Once
}

func newMemConn() *memConn { return &memConn{closed: make(chan struct{})} }

func (m *memConn) Read([]byte) (int, error)         { <-m.closed; return 0, io.EOF }
func (m *memConn) Write(p []byte) (int, error)      { return len(p), nil }
func (m *memConn) Close() error                     { m.once.Do(func() { close(m.closed) }); return nil }
func (m *memConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (m *memConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (m *memConn) SetDeadline(time.Time) error      { return nil }
func (m *memConn) SetReadDeadline(time.Time) error  { return nil }
func (m *memConn) SetWriteDeadline(time.Time) error { return nil }

func benchServer(b *testing.B, queue int) *Server {
	b.Helper()
	hub, err := NewHub(HubConfig{Logger: zerolog.Nop()})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := NewServer(Config{Authenticator: testAuthenticator, Authorizer: testAuthorizer, Hub: hub, QueueSize: queue})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			b.Errorf("shutdown: %v", err)
		}
	})
	return srv
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// event200 is a ~200-byte ticket event payload.
func event200(i int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"action":"update","ticket":{"id":%d,"status":"open","unreadMessages":3,"lastMessage":"Olá, gostaria de saber o status do meu pedido, por favor","queueId":1,"userId":7},"t":%d}`,
		i, time.Now().UnixNano()))
}

// BenchmarkFanout: 10,000 in-memory sockets (real writer goroutines, memConn
// underneath), rooms of 10, one ~200-byte event per op to one room. It measures the
// hub and the writers without the kernel; see BenchmarkFanoutLoopback for sockets.
func BenchmarkFanout(b *testing.B) {
	const sockets, roomSize = 10_000, 10
	srv := benchServer(b, 256)
	for i := 0; i < sockets; i++ {
		c := newConn(srv, newMemConn(), nil, strconv.Itoa(i))
		c.principal = Principal{UserID: int64(i + 1), CompanyID: 1}
		c.tenant = 1
		if err := srv.hub.join(c, []Room{CompanyRoom(), ChatBoxRoom(int64(i/roomSize + 1))}, nil, nil, -1); err != nil {
			b.Fatal(err)
		}
		srv.register(c)
		if !c.ws.StartWriter(&srv.goroutines) {
			b.Fatal("writer refused")
		}
	}
	rooms := sockets / roomSize
	payloads := make([]json.RawMessage, 64)
	for i := range payloads {
		payloads[i] = event200(i)
	}
	start := srv.Stats().FramesWritten
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, t0 := cpuTime(), time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := srv.hub.Publish(Event{Tenant: 1, Rooms: []Room{ChatBoxRoom(int64(i%rooms + 1))}, Name: "ticket", Payload: payloads[i%len(payloads)]}); err != nil {
			b.Fatal(err)
		}
	}
	want := start + int64(b.N)*roomSize
	for srv.Stats().FramesWritten < want {
		time.Sleep(100 * time.Microsecond)
	}
	elapsed, cpu := time.Since(t0), cpuTime()-cpu0
	b.StopTimer()
	if st := srv.Stats(); st.SlowConsumers != 0 {
		b.Fatalf("%d slow consumers", st.SlowConsumers)
	}
	deliveries := float64(b.N * roomSize)
	b.ReportMetric(deliveries/elapsed.Seconds(), "deliveries/s")
	b.ReportMetric(cpu.Seconds()*1000/deliveries*1000, "cpu-ms/1k-deliveries")
}

// loopClient is a raw websocket client that reads and counts event frames and
// samples their publish-to-read latency from the payload's "t".
type loopClient struct {
	nc      net.Conn
	r       io.Reader
	frames  atomic.Int64
	mu      sync.Mutex
	latency []time.Duration
}

func (c *loopClient) run() {
	buf := make([]byte, 0, 1024)
	for {
		h, err := ws.ReadHeader(c.r)
		if err != nil {
			return
		}
		if int64(cap(buf)) < h.Length {
			buf = make([]byte, h.Length)
		}
		p := buf[:h.Length]
		if _, err := io.ReadFull(c.r, p); err != nil {
			return
		}
		if h.OpCode != ws.OpText || len(p) < 3 || p[0] != '4' || p[1] != '2' {
			continue
		}
		if i := lastIndex(p, `"t":`); i >= 0 {
			j := i + 4
			k := j
			for k < len(p) && p[k] >= '0' && p[k] <= '9' {
				k++
			}
			if t, err := strconv.ParseInt(string(p[j:k]), 10, 64); err == nil {
				c.mu.Lock()
				c.latency = append(c.latency, time.Duration(time.Now().UnixNano()-t))
				c.mu.Unlock()
			}
		}
		c.frames.Add(1)
	}
}

func lastIndex(p []byte, s string) int {
	for i := len(p) - len(s); i >= 0; i-- {
		if string(p[i:i+len(s)]) == s {
			return i
		}
	}
	return -1
}

// dialLoop opens n sockets to url, authenticated as alice, each sending the join
// events joins(i) (with ack ids 1, 2…) and waiting for their acks. With read, each
// gets a goroutine that reads and counts what arrives. Closing them is the caller's.
func dialLoop(b *testing.B, url string, n int, joins func(i int) []string, read bool) []*loopClient {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	clients := make([]*loopClient, n)
	for i := range clients {
		nc, br, _, err := ws.Dial(ctx, url)
		if err != nil {
			b.Fatalf("dial %d: %v", i, err)
		}
		c := &loopClient{nc: nc, r: nc}
		if br != nil {
			c.r = io.MultiReader(br, nc)
		}
		msgs := append([]string{`40{"token":"alice"}`}, joins(i)...)
		for k, msg := range msgs {
			if k > 0 {
				msg = fmt.Sprintf(`42%d%s`, k, msg)
			}
			if err := wsWriteClient(nc, msg); err != nil {
				b.Fatal(err)
			}
		}
		// the open packet, the CONNECT reply, one ack per join
		for k := 0; k < len(msgs)+1; k++ {
			h, err := ws.ReadHeader(c.r)
			if err != nil {
				b.Fatalf("socket %d handshake: %v", i, err)
			}
			if _, err := io.CopyN(io.Discard, c.r, h.Length); err != nil {
				b.Fatal(err)
			}
		}
		if br != nil && br.Buffered() == 0 { // let the dialer's read buffer go
			ws.PutReader(br)
			c.r = nc
		}
		clients[i] = c
		if read {
			c.r = bufio.NewReaderSize(c.r, 16<<10) // a reader that does not cost 3 syscalls a frame
			go c.run()
		}
	}
	return clients
}

func closeAll(clients []*loopClient) {
	for _, c := range clients {
		_ = c.nc.Close()
	}
}

func wsURL(ts *httptest.Server) string {
	return "ws://" + strings.TrimPrefix(ts.URL, "http://") + "/socket.io/?EIO=4&transport=websocket"
}

func wsWriteClient(nc net.Conn, msg string) error {
	return ws.WriteFrame(nc, ws.MaskFrame(ws.NewTextFrame([]byte(msg))))
}

// BenchmarkFanoutLoopback: 1,000 real loopback websockets (client readers in the same
// process, so they share the 2 cores), rooms of 10, ~200-byte events published as
// fast as possible: peak deliveries/s, with the publish→read latency at that load.
func BenchmarkFanoutLoopback(b *testing.B) {
	fanoutLoopback(b, 0)
}

// BenchmarkFanoutLoopbackPaced is the same at a steady 7,500 events/s (75,000
// deliveries/s, half of B2's 150k target): B2 holds p50 ≤ 5 ms, p99 ≤ 50 ms there.
func BenchmarkFanoutLoopbackPaced(b *testing.B) {
	fanoutLoopback(b, 7500)
}

func fanoutLoopback(b *testing.B, perSecond int) {
	const sockets, roomSize = 1000, 10
	srv := benchServer(b, 256)
	ts := httptest.NewServer(srv)
	b.Cleanup(ts.Close)
	clients := dialLoop(b, wsURL(ts), sockets, func(i int) []string {
		return []string{fmt.Sprintf(`["joinChatBox","%d"]`, i/roomSize+1)}
	}, true)
	b.Cleanup(func() { closeAll(clients) })
	rooms := sockets / roomSize
	b.ResetTimer()
	cpu0, t0 := cpuTime(), time.Now()
	for i := 0; i < b.N; i++ {
		if perSecond > 0 {
			if wait := time.Until(t0.Add(time.Duration(i) * time.Second / time.Duration(perSecond))); wait > 0 {
				time.Sleep(wait)
			}
		}
		if _, err := srv.hub.Publish(Event{Tenant: 1, Rooms: []Room{ChatBoxRoom(int64(i%rooms + 1))}, Name: "ticket", Payload: event200(i)}); err != nil {
			b.Fatal(err)
		}
	}
	want := int64(b.N) * roomSize
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var got int64
		for _, c := range clients {
			got += c.frames.Load()
		}
		if got >= want {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d deliveries after 2 minutes (slow consumers %d)", got, want, srv.Stats().SlowConsumers)
		}
		time.Sleep(time.Millisecond)
	}
	elapsed, cpu := time.Since(t0), cpuTime()-cpu0
	b.StopTimer()
	var lat []time.Duration
	for _, c := range clients {
		c.mu.Lock()
		lat = append(lat, c.latency...)
		c.mu.Unlock()
	}
	slices.Sort(lat)
	deliveries := float64(want)
	b.ReportMetric(deliveries/elapsed.Seconds(), "deliveries/s")
	b.ReportMetric(cpu.Seconds()*1000/deliveries*1000, "cpu-ms/1k-deliveries")
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	}
}

// BenchmarkIdleSocketMemory (B1): heap+stack bytes the gateway holds per idle,
// authenticated socket in two joined rooms (tickets:open and notification, shared
// with the other sockets, plus its company and user rooms),
// measured with runtime.MemStats over 2,000 loopback sockets, minus the same number
// of bare TCP connection pairs. Kernel socket buffers are not included. It measures
// once, whatever b.N.
func BenchmarkIdleSocketMemory(b *testing.B) {
	const n = 2000
	settle := func(m *runtime.MemStats) {
		runtime.GC()
		runtime.GC() // a second cycle empties sync.Pool victim caches
		runtime.ReadMemStats(m)
	}
	measure := func(open func() func()) (heap, stack float64) {
		var before, after runtime.MemStats
		settle(&before)
		closeAll := open()
		settle(&after)
		closeAll()
		return float64(int64(after.HeapInuse)-int64(before.HeapInuse)) / n, float64(int64(after.StackInuse)-int64(before.StackInuse)) / n
	}
	// One measurement whatever b.N: it is a figure, not a loop to time.
	{
		bareHeap, bareStack := measure(func() func() {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			var conns []net.Conn
			for j := 0; j < n; j++ {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					b.Fatal(err)
				}
				s, err := ln.Accept()
				if err != nil {
					b.Fatal(err)
				}
				conns = append(conns, c, s)
			}
			return func() {
				for _, c := range conns {
					_ = c.Close()
				}
				_ = ln.Close()
			}
		})
		heap, stack := measure(func() func() {
			srv := benchServer(b, 256)
			ts := httptest.NewServer(srv)
			// An idle attendant: the open tickets list and notifications.
			clients := dialLoop(b, wsURL(ts), n, func(int) []string {
				return []string{`["joinTickets","open"]`, `["joinNotification"]`}
			}, false)
			if got := srv.Stats().Connections; got != n {
				b.Fatalf("%d sockets open, want %d", got, n)
			}
			return func() {
				closeAll(clients)
				ts.Close()
			}
		})
		b.ReportMetric(heap+stack-bareHeap-bareStack, "B/socket")
		b.ReportMetric(heap-bareHeap, "heap-B/socket")
		b.ReportMetric(stack-bareStack, "stack-B/socket")
		b.ReportMetric(bareHeap+bareStack, "B/bare-tcp-pair")
	}
}
