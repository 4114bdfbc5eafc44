package socket

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"atende/goroutine"
	"atende/transport/netlimit"
	"atende/transport/socket/sio"
	"atende/transport/wsconn"
)

// Server is the realtime gateway: an http.Handler that upgrades Socket.IO websocket
// handshakes and runs each socket. Mount it at Config.Path; publish through Hub().
type Server struct {
	// static after construction
	cfg    Config
	hub    *Hub
	log    zerolog.Logger
	wsopts wsconn.Options  // every socket's
	ctx    context.Context // cancelled by Shutdown: aborts pending Authenticate / AuthorizeJoin
	cancel context.CancelFunc

	goroutines goroutine.Group

	mu      sync.Mutex           // guards buckets, next and closing
	buckets []map[*conn]struct{} // open sockets, spread over pingBuckets for the pinger
	next    uint8                // bucket of the next socket
	closing bool

	open          atomic.Int64 // sockets registered
	framesWritten atomic.Int64 // frames written to sockets
}

// NewServer validates cfg, fills its defaults, and builds a Server.
func NewServer(cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:     cfg,
		hub:     cfg.Hub,
		log:     cfg.Logger.With().Str("component", "socket").Logger(),
		buckets: make([]map[*conn]struct{}, pingBuckets),
	}
	s.wsopts = wsconn.Options{
		MaxMessageSize: cfg.MaxPayload,
		QueueSize:      cfg.QueueSize,
		Overflow:       wsconn.Close{Code: CloseSlowConsumer, Reason: "slow consumer"},
		WriteTimeout:   cfg.WriteTimeout,
		Written:        &s.framesWritten,
		ParkIdle:       true, // an idle attendant holds no goroutine
	}
	if err := s.wsopts.Validate(); err != nil {
		return nil, fmt.Errorf("new socket server: %w", err)
	}
	for i := range s.buckets {
		s.buckets[i] = make(map[*conn]struct{})
	}
	if s.hub == nil {
		if s.hub, err = NewHub(HubConfig{Logger: cfg.Logger}); err != nil {
			return nil, fmt.Errorf("new socket server: %w", err)
		}
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.goroutines.Go(s.pingLoop)
	return s, nil
}

// pingBuckets is how many slices the pinger spreads the sockets over: every
// PingInterval/pingBuckets it pings one slice, so each socket is pinged every
// PingInterval and a large server sends its pings evenly, not in one burst.
const pingBuckets = 8

// pingLoop queues the Engine.IO ping to every socket every PingInterval, one bucket
// at a time. One goroutine and one ticker for the whole server: an idle socket holds
// no timer of its own.
func (s *Server) pingLoop() {
	tick := max(s.cfg.PingInterval/pingBuckets, time.Millisecond)
	t := time.NewTicker(tick)
	defer t.Stop()
	var due []*conn
	for k := 0; ; k = (k + 1) % pingBuckets {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		for c := range s.buckets[k] {
			due = append(due, c)
		}
		s.mu.Unlock()
		now := time.Now().UnixNano()
		for _, c := range due {
			if e := c.expires.Load(); e != 0 && now >= e {
				c.closeWith(CloseReauthenticate, "token expired", true)
				continue
			}
			c.send(pingFrame)
		}
		clear(due)
		due = due[:0]
	}
}

// Hub is the server's hub: publish events through it.
func (s *Server) Hub() *Hub { return s.hub }

// handshakeError is an Engine.IO-style HTTP error answer.
func handshakeError(w http.ResponseWriter, status, code int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"code":%d,"message":%s}`, code, sio.AppendString(nil, message))
}

// ServeHTTP upgrades a Socket.IO websocket handshake:
// GET <Path>?EIO=4&transport=websocket[&token=…][&lastSeq=N]. Anything else gets an
// Engine.IO error answer: code 5 for another protocol revision (EIO=3 is
// socket.io-client v2), 0 for another transport (polling is not served), 1 for a
// session id, 3 for a request that is not a websocket upgrade.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != s.cfg.Path && r.URL.Path+"/" != s.cfg.Path {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	switch eio := q.Get("EIO"); eio {
	case "4":
	case "3", "2":
		handshakeError(w, http.StatusBadRequest, 5, "Unsupported protocol version: EIO="+eio+
			" is socket.io-client v2; this server speaks EIO=4 (socket.io-client v3 and v4)")
		return
	default:
		handshakeError(w, http.StatusBadRequest, 5, "Unsupported protocol version")
		return
	}
	if q.Get("transport") != "websocket" {
		handshakeError(w, http.StatusBadRequest, 0, "Transport unknown: only transport=websocket is served; set transports: ['websocket']")
		return
	}
	if q.Has("sid") {
		handshakeError(w, http.StatusBadRequest, 1, "Session ID unknown")
		return
	}
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		handshakeError(w, http.StatusBadRequest, 3, "Bad request: not a websocket upgrade")
		return
	}
	if s.cfg.CheckOrigin != nil && !s.cfg.CheckOrigin(r) {
		handshakeError(w, http.StatusForbidden, 4, "Forbidden")
		return
	}
	if limit := s.cfg.MaxConnections; limit > 0 && s.open.Load() >= int64(limit) {
		w.Header().Set("Retry-After", "10")
		handshakeError(w, http.StatusServiceUnavailable, 3, "Too many connections")
		return
	}
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing {
		handshakeError(w, http.StatusServiceUnavailable, 3, "Server shutting down")
		return
	}
	addr := s.clientAddr(r)
	pass, refused := s.cfg.Gate.Enter(netlimit.AddressKey(addr))
	if refused != nil {
		refused.SetHeader(w.Header())
		handshakeError(w, refused.Status, 3, refused.Reason)
		s.log.Debug().Str("addr", addr).Str("reason", refused.Reason).Msg("handshake refused")
		return
	}

	nc, src, err := s.wsopts.Upgrade(w, r)
	if err != nil {
		pass.Done()
		s.log.Debug().Err(err).Msg("websocket upgrade")
		return
	}

	c := newConn(s, nc, src, randomID())
	c.pass = pass
	if tok, last := q.Get("token"), q.Get("lastSeq"); tok != "" || last != "" {
		c.query = &handshakeQuery{token: tok, lastSeq: last}
	}
	// The open packet goes first, before the pinger can see the socket.
	c.ws.Send(textFrame(sio.AppendOpen(nil, sio.Open{
		SID:          c.id,
		PingInterval: s.cfg.PingInterval.Milliseconds(),
		PingTimeout:  s.cfg.PingTimeout.Milliseconds(),
		MaxPayload:   s.cfg.MaxPayload,
	})))
	if !s.register(c) {
		pass.Done()
		_ = nc.Close()
		return
	}
	c.ws.Start(&s.goroutines) // refused: closed with CloseGoingAway, and forgotten
}

// clientAddr is the address r is counted under.
func (s *Server) clientAddr(r *http.Request) string {
	if s.cfg.ClientAddr != nil {
		return s.cfg.ClientAddr(r)
	}
	return netlimit.ClientAddr(r, false)
}

// register adds c to the open sockets unless the server is shutting down.
func (s *Server) register(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	c.bucket = s.next
	s.next = (s.next + 1) % pingBuckets
	s.buckets[c.bucket][c] = struct{}{}
	s.open.Add(1)
	return true
}

// forget removes c from the open sockets.
func (s *Server) forget(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.buckets[c.bucket][c]; ok {
		delete(s.buckets[c.bucket], c)
		s.open.Add(-1)
	}
}

// Shutdown stops accepting sockets, closes every open one with CloseGoingAway (after
// its pending frames; clients reconnect, to another node if there is one), and waits
// for their goroutines until ctx is done. It may be called more than once.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	var conns []*conn
	for _, b := range s.buckets {
		for c := range b {
			conns = append(conns, c)
		}
	}
	s.mu.Unlock()
	s.goroutines.Stop()
	for _, c := range conns {
		c.closeWith(CloseGoingAway, "server shutting down", true)
	}
	s.cancel()
	if err := s.goroutines.Wait(ctx); err != nil {
		return fmt.Errorf("socket server shutdown: %d goroutines still running: %w", s.goroutines.Running(), err)
	}
	return nil
}

// Stats are the gateway's counters.
type Stats struct {
	HubStats
	Connections   int64 // sockets open now
	FramesWritten int64 // frames written to sockets since start
}

// Stats reads the gateway's counters.
func (s *Server) Stats() Stats {
	return Stats{HubStats: s.hub.Stats(), Connections: s.open.Load(), FramesWritten: s.framesWritten.Load()}
}

// randomID is 120 random bits, URL-safe base64 (20 characters).
func randomID() string {
	var b [15]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b[:])
}
