package webchat

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobwas/ws"
	"github.com/rs/zerolog"

	"atende/engine"
	"atende/goroutine"
	"atende/transport/netlimit"
	"atende/transport/wsconn"
)

// Server is the customer side of the web chat: an http.Handler serving the widget's
// websocket, the widget script and a demo page under Config.Path. It is also the
// engine.ChannelFactory of "socket" connections (NewChannel).
type Server struct {
	// static after construction
	cfg    Config
	log    zerolog.Logger
	wsopts wsconn.Options // every socket's
	// conversations started by new visitors, per client address and per connection
	newByAddr, newByConn *netlimit.Buckets

	goroutines goroutine.Group
	shut       chan struct{} // closed by Shutdown: ends pingLoop
	shutOnce   sync.Once

	mu        sync.Mutex // guards the fields below, and every endpoint's and visitor's "guarded by Server.mu" fields
	endpoints map[engine.ID]*endpoint
	remotes   map[engine.ID]*endpoint // cluster mode: where visitors attach, by connection
	sockets   map[*socket]struct{}
	closing   bool

	open       atomic.Int64 // sockets attached
	refusedNew atomic.Int64 // first messages refused by the new-visitor limits
}

// endpoint is a started connection: the visitors of its connection are accepted and
// what they say goes to its sink.
type endpoint struct {
	// static after construction
	conn   engine.Connection
	sink   engine.ChannelSink
	ctx    context.Context // cancelled when stopped: abandons sink calls in flight
	cancel context.CancelFunc
	log    zerolog.Logger

	// guarded by Server.mu
	stopped  bool
	visitors map[string]*visitor // by visitor id: with open sockets, or a rate limit still spent
	sweepAt  int                 // len(visitors) at which attach next sweeps the idle ones
}

// minSweep is the smallest visitors map an endpoint sweeps.
const minSweep = 64

// visitor is one visitor of an endpoint with open sockets (tabs).
type visitor struct {
	// static after construction
	id      string
	number  string  // "webchat:<id>"
	limiter *bucket // Config.MessageRate over all its sockets

	started atomic.Bool // a first message was counted against the new-visitor limits
	order   order       // the order of its numbered messages (order.go)

	// guarded by Server.mu
	sockets map[*socket]struct{}
}

// New validates cfg, fills its defaults and builds a Server.
func New(cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:       cfg,
		newByAddr: netlimit.NewBuckets(cfg.NewVisitorRate, cfg.Now),
		newByConn: netlimit.NewBuckets(cfg.NewVisitorsPerConnection, cfg.Now),
		log:       cfg.Logger.With().Str("component", "webchat").Str("channel", engine.ChannelSocket).Logger(),
		endpoints: make(map[engine.ID]*endpoint),
		remotes:   make(map[engine.ID]*endpoint),
		sockets:   make(map[*socket]struct{}),
		shut:      make(chan struct{}),
		wsopts: wsconn.Options{
			MaxMessageSize: cfg.MaxFrameSize,
			QueueSize:      cfg.QueueSize,
			Overflow:       wsconn.Close{Code: CloseSlowConsumer, Reason: "outbound queue full"},
			WriteTimeout:   cfg.WriteTimeout,
			ReadTimeout:    cfg.PingInterval + cfg.PongTimeout,
			HoldUntilOpen:  true, // the welcome goes first
			ParkIdle:       true, // an idle visitor holds no goroutine
		},
	}
	if err := s.wsopts.Validate(); err != nil {
		return nil, fmt.Errorf("webchat: %w", err)
	}
	s.goroutines.Go(s.pingLoop)
	return s, nil
}

// pingLoop pings every socket every PingInterval, and closes those whose visitor
// has been idle for IdleTimeout: one goroutine and one ticker for the server, so an
// idle socket holds no timer of its own. It ends with Shutdown.
func (s *Server) pingLoop() {
	t := time.NewTicker(s.cfg.PingInterval)
	defer t.Stop()
	var sockets []*socket
	for {
		select {
		case <-s.shut:
			return
		case <-t.C:
		}
		s.mu.Lock()
		for sk := range s.sockets {
			sockets = append(sockets, sk)
		}
		s.mu.Unlock()
		for _, sk := range sockets {
			sk.tick()
		}
		clear(sockets)
		sockets = sockets[:0]
	}
}

// ServeHTTP answers under Config.Path: "ws" (the widget's websocket), "widget.js"
// and "demo". Mount it there without stripping the prefix.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, s.cfg.Path)
	if !ok {
		http.NotFound(w, r)
		return
	}
	switch rest {
	case "ws":
		s.serveSocket(w, r)
	case "widget.js":
		s.serveWidget(w, r)
	case "demo":
		s.serveDemo(w, r)
	default:
		http.NotFound(w, r)
	}
}

// httpError answers the REST API's error shape.
func httpError(w http.ResponseWriter, status int, code engine.Code) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(`{"error":"` + string(code) + `","message":"` + string(code) + `"}`))
}

// parseConnID reads the c parameter: a canonical positive decimal id.
func parseConnID(v string) (engine.ID, bool) {
	if v == "" || len(v) > 18 || v[0] == '0' || strings.Trim(v, "0123456789") != "" {
		return 0, false
	}
	id, err := strconv.ParseInt(v, 10, 64)
	return id, err == nil && id > 0
}

// serveSocket upgrades GET <Path>ws?c=<connection id>[&v=<visitor token>].
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		httpError(w, http.StatusMethodNotAllowed, engine.ErrValidation)
		return
	}
	q := r.URL.Query()
	connID, ok := parseConnID(q.Get("c"))
	if !ok {
		httpError(w, http.StatusBadRequest, engine.ErrValidation)
		return
	}
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		httpError(w, http.StatusBadRequest, engine.ErrValidation)
		return
	}
	if s.cfg.CheckOrigin != nil && !s.cfg.CheckOrigin(r) {
		httpError(w, http.StatusForbidden, engine.ErrNoPermission)
		return
	}
	if max := s.cfg.MaxConnections; max > 0 && s.open.Load() >= int64(max) {
		w.Header().Set("Retry-After", "10")
		httpError(w, http.StatusServiceUnavailable, engine.ErrUnavailable)
		return
	}
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing {
		httpError(w, http.StatusServiceUnavailable, engine.ErrUnavailable)
		return
	}
	addr := netlimit.AddressKey(s.clientAddr(r))
	pass, refused := s.cfg.Gate.Enter(addr)
	if refused != nil {
		refused.SetHeader(w.Header())
		code := engine.ErrTooManyAttempts
		if refused.Status != http.StatusTooManyRequests {
			code = engine.ErrUnavailable
		}
		httpError(w, refused.Status, code)
		s.log.Debug().Str("addr", addr).Str("reason", refused.Reason).Msg("webchat handshake refused")
		return
	}
	// The place is the socket's once its goroutines run; every other way out gives it back.
	defer func() { pass.Done() }()

	nc, src, err := s.wsopts.Upgrade(w, r)
	if err != nil {
		s.log.Debug().Err(err).Msg("websocket upgrade")
		return
	}

	var ep *endpoint
	if s.cfg.Cluster != nil {
		var err error
		if ep, err = s.remoteEndpoint(r.Context(), connID); err != nil {
			switch engine.CodeOf(err) {
			case engine.ErrWappNotInitialized, engine.ErrNoWappFound:
				s.refuse(nc, src, engine.ErrWappNotInitialized, CloseNotInitialized, "connection not started")
			default:
				s.log.Warn().Err(err).Int64("conn_id", connID).Msg("webchat connection lookup")
				s.refuse(nc, src, engine.ErrUnavailable, CloseGoingAway, "try again")
			}
			return
		}
	} else {
		s.mu.Lock()
		ep = s.endpoints[connID]
		s.mu.Unlock()
	}
	if ep == nil {
		s.refuse(nc, src, engine.ErrWappNotInitialized, CloseNotInitialized, "connection not started")
		return
	}
	token := q.Get("v")
	vid, ok := s.checkToken(connID, token)
	if !ok {
		token, vid = s.issueToken(connID)
	}
	sk := newSocket(s, ep, nc, src, token)
	sk.addr = addr
	switch s.attach(sk, vid) {
	case attachClosing:
		s.refuse(nc, src, engine.ErrUnavailable, CloseGoingAway, "server shutting down")
		return
	case attachStopped:
		s.refuse(nc, src, engine.ErrWappNotInitialized, CloseNotInitialized, "connection not started")
		return
	case attachTooMany:
		s.refuse(nc, src, engine.ErrTooManyAttempts, CloseTooManySockets, "too many sockets for this visitor")
		return
	}
	sk.pass, pass = pass, nil
	sk.ws.Start(&s.goroutines) // refused: closed with CloseGoingAway, and detached
}

// clientAddr is the address r is counted under.
func (s *Server) clientAddr(r *http.Request) string {
	if s.cfg.ClientAddr != nil {
		return s.cfg.ClientAddr(r)
	}
	return netlimit.ClientAddr(r, false)
}

// refuse ends a socket that was never attached: an error frame, a close frame, a
// short wait for the widget's close, and the end of the TCP connection. It runs on
// the HTTP handler's goroutine.
func (s *Server) refuse(nc net.Conn, src io.Reader, code engine.Code, close ws.StatusCode, reason string) {
	wsconn.Reject(nc, src, close, reason, textFrame(errorPayload(engine.E(code), "")))
}

type attachResult uint8

const (
	attached attachResult = iota
	attachClosing
	attachStopped
	attachTooMany
)

// attach adds sk to its endpoint's visitor vid (creating the visitor) and to the
// open sockets.
func (s *Server) attach(sk *socket, vid string) attachResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closing:
		return attachClosing
	case sk.ep.stopped:
		return attachStopped
	}
	now := s.cfg.Now()
	if len(sk.ep.visitors) >= sk.ep.sweepAt {
		sweep(sk.ep, now)
	}
	v := sk.ep.visitors[vid]
	if v == nil {
		v = &visitor{
			id:      vid,
			number:  NumberPrefix + vid,
			limiter: newBucket(s.cfg.MessageRate, s.cfg.MessageBurst, now),
			sockets: make(map[*socket]struct{}),
		}
		sk.ep.visitors[vid] = v
	}
	if len(v.sockets) >= s.cfg.MaxSocketsPerVisitor {
		return attachTooMany
	}
	v.sockets[sk] = struct{}{}
	sk.vis = v
	sk.log = sk.log.With().Str("visitor", vid).Logger()
	s.sockets[sk] = struct{}{}
	s.open.Add(1)
	return attached
}

// detach removes sk from its visitor and the open sockets.
func (s *Server) detach(sk *socket) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sockets[sk]; !ok {
		return
	}
	delete(s.sockets, sk)
	s.open.Add(-1)
	v := sk.vis
	delete(v.sockets, sk)
	if len(v.sockets) == 0 && sk.ep.visitors[v.id] == v && v.forgettable(s.cfg.Now()) {
		delete(sk.ep.visitors, v.id)
	}
}

// sweep forgets the visitors of ep without sockets whose rate limit has recovered
// (a visitor that reconnects must not find a fresh limit) and whose message order
// is no longer needed (visitor.forgettable), and sets the next sweep
// at twice what is left, so that sweeping costs O(1) per attach. Caller holds
// Server.mu.
func sweep(ep *endpoint, now time.Time) {
	for id, v := range ep.visitors {
		if len(v.sockets) == 0 && v.forgettable(now) {
			delete(ep.visitors, id)
		}
	}
	ep.sweepAt = max(minSweep, 2*len(ep.visitors))
}

// socketsOf lists the open sockets of visitor vid of ep.
func (s *Server) socketsOf(ep *endpoint, vid string) []*socket {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := ep.visitors[vid]
	if v == nil {
		return nil
	}
	out := make([]*socket, 0, len(v.sockets))
	for sk := range v.sockets {
		out = append(out, sk)
	}
	return out
}

// start registers a connection's endpoint. An endpoint of the same connection that
// is still registered (an owner that never called Stop) is stopped: the new owner
// takes over.
func (s *Server) start(conn engine.Connection, sink engine.ChannelSink) (*endpoint, error) {
	ep := &endpoint{
		conn:     conn,
		sink:     sink,
		log:      s.log.With().Int64("conn_id", conn.ID).Int64("tenant", conn.CompanyID).Logger(),
		visitors: make(map[string]*visitor),
		sweepAt:  minSweep,
	}
	ep.ctx, ep.cancel = context.WithCancel(context.Background())
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		ep.cancel()
		return nil, ErrClosed
	}
	old := s.endpoints[conn.ID]
	s.endpoints[conn.ID] = ep
	s.mu.Unlock()
	if old != nil {
		s.stop(old)
	}
	return ep, nil
}

// stop unregisters ep and closes its sockets with ERR_WAPP_NOT_INITIALIZED and
// CloseNotInitialized. Sink calls in flight are cancelled; stop does not wait for
// them (the caller may be the very actor they wait on).
func (s *Server) stop(ep *endpoint) {
	s.mu.Lock()
	if s.endpoints[ep.conn.ID] == ep {
		delete(s.endpoints, ep.conn.ID)
	}
	ep.stopped = true
	var sockets []*socket
	for _, v := range ep.visitors {
		for sk := range v.sockets {
			sockets = append(sockets, sk)
		}
	}
	s.mu.Unlock()
	ep.cancel()
	bye := textFrame(errorPayload(engine.E(engine.ErrWappNotInitialized), ""))
	for _, sk := range sockets {
		sk.send(bye)
		sk.closeWith(CloseNotInitialized, "connection stopped", true)
	}
}

// stopped reports whether ep was stopped.
func (s *Server) stopped(ep *endpoint) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ep.stopped
}

// Shutdown stops accepting sockets, closes every open one with CloseGoingAway (after
// its pending frames; widgets reconnect, to another node if there is one), and waits
// for the goroutines until ctx is done. Channels can no longer start. It may be
// called more than once.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	sockets := make([]*socket, 0, len(s.sockets))
	for sk := range s.sockets {
		sockets = append(sockets, sk)
	}
	endpoints := make([]*endpoint, 0, len(s.endpoints))
	for _, ep := range s.endpoints {
		endpoints = append(endpoints, ep)
	}
	for _, ep := range s.remotes {
		endpoints = append(endpoints, ep)
	}
	s.mu.Unlock()
	s.shutOnce.Do(func() { close(s.shut) })
	s.goroutines.Stop()
	for _, sk := range sockets {
		sk.closeWith(CloseGoingAway, "server shutting down", true)
	}
	for _, ep := range endpoints {
		ep.cancel()
	}
	if err := s.goroutines.Wait(ctx); err != nil {
		return fmt.Errorf("webchat shutdown: %d goroutines still running: %w", s.goroutines.Running(), err)
	}
	return nil
}

// Stats are the web chat's counters.
type Stats struct {
	Connections int // connections started (endpoints)
	Sockets     int // widget sockets open
	Goroutines  int // reader, writer and status goroutines running
	// NewVisitorsRefused counts first messages refused by the new-visitor limits
	// since start.
	NewVisitorsRefused int64
}

// Stats reads the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	n := len(s.endpoints)
	s.mu.Unlock()
	return Stats{Connections: n, Sockets: int(s.open.Load()), Goroutines: s.goroutines.Running(),
		NewVisitorsRefused: s.refusedNew.Load()}
}

// textFrame frames payload as one unmasked websocket text frame.
func textFrame(payload []byte) []byte { return wsconn.TextFrame(payload) }
