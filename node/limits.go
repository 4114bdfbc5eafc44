package node

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"atende/transport/channel/webchat"
	httpapi "atende/transport/http"
	"atende/transport/ingest"
	"atende/transport/netlimit"
)

// Limits are the settings that keep one client from taking the node down
// (docs/security.md): HTTP timeouts and the minimum body rate, caps and handshake
// rates of the two websocket endpoints, and the web chat's new-visitor limits. A
// cap or rate of 0 lifts that limit.
type Limits struct {
	ReadHeaderTimeout time.Duration // HTTP_READ_HEADER_TIMEOUT: 10s; the request line and headers
	ReadTimeout       time.Duration // HTTP_READ_TIMEOUT: 10m; a whole request, body included
	WriteTimeout      time.Duration // HTTP_WRITE_TIMEOUT: 5m; writing a whole response
	IdleTimeout       time.Duration // HTTP_IDLE_TIMEOUT: 60s; a kept-alive connection between requests
	BodyGrace         time.Duration // HTTP_BODY_GRACE: 10s before HTTP_MIN_BODY_RATE counts
	MinBodyRate       int64         // HTTP_MIN_BODY_RATE: 1024 bytes/s, average body rate after the grace
	// TrustForwardedFor (TRUST_FORWARDED_FOR) counts clients by the last
	// X-Forwarded-For entry, as a reverse proxy in front of the node appends it.
	TrustForwardedFor bool

	Socket  GateLimits // SOCKET_…: the attendants' realtime gateway
	Webchat GateLimits // WEBCHAT_…: the customers' web chat widget

	WebchatNewPerMinute     float64 // WEBCHAT_NEW_VISITORS_PER_MINUTE: 10 per client address
	WebchatNewBurst         int     // WEBCHAT_NEW_VISITOR_BURST: 10 per client address
	WebchatNewPerConnection float64 // WEBCHAT_NEW_VISITORS_PER_CONNECTION: 120 a minute (and at once) per web chat connection
	WebchatProofBits        int     // WEBCHAT_PROOF_OF_WORK_BITS: 0 (off); a new visitor's proof of work, in zero bits
	APISendsPerMinute       int     // API_SENDS_PER_MINUTE: 60; messaging-API calls per token per minute, as many at once

	// Inbound admission control (package ingest; docs/channels.md, "Overload and
	// load shedding"). Zero in a Config not parsed (tests) means ingest's default;
	// the settings' 0 ("no limit") is stored as -1.
	InboundMaxInFlight      int           // INBOUND_MAX_IN_FLIGHT: 256 inbound messages of the node on their way to the connection actors
	InboundMaxPerConnection int           // INBOUND_MAX_IN_FLIGHT_PER_CONNECTION: 64 of them for one connection
	InboundWait             time.Duration // INBOUND_ADMIT_WAIT: 1s a message waits for a place before it is refused
	InboundRetryAfter       time.Duration // INBOUND_RETRY_AFTER: 2s a refused sender is told to wait (Retry-After, retryAfter)
}

// GateLimits shape one websocket endpoint's netlimit.Gate.
type GateLimits struct {
	MaxConnections          int     // <P>_MAX_CONNECTIONS: open sockets of the node
	MaxPerAddress           int     // <P>_MAX_CONNECTIONS_PER_ADDRESS: open sockets of one client address
	HandshakesPerMinute     float64 // <P>_HANDSHAKES_PER_MINUTE: new sockets of one address (burst as many)
	NodeHandshakesPerSecond float64 // <P>_HANDSHAKES_PER_SECOND: new sockets of the node (burst twice as many)
}

// Gate builds the endpoint's gate.
func (g GateLimits) Gate() (*netlimit.Gate, error) {
	return netlimit.NewGate(netlimit.GateConfig{
		MaxConnections: g.MaxConnections,
		MaxPerAddress:  g.MaxPerAddress,
		AddressRate:    netlimit.PerMinute(g.HandshakesPerMinute, int(max(1, g.HandshakesPerMinute))),
		Rate:           netlimit.Rate{PerSecond: g.NodeHandshakesPerSecond, Burst: int(max(1, 2*g.NodeHandshakesPerSecond))},
	})
}

// newVisitorRates are the web chat's new-visitor limits as rates; 0 lifts one.
func (l Limits) newVisitorRates() (perAddress, perConnection netlimit.Rate) {
	perAddress, perConnection = netlimit.Rate{PerSecond: -1}, netlimit.Rate{PerSecond: -1}
	if l.WebchatNewPerMinute > 0 {
		perAddress = netlimit.PerMinute(l.WebchatNewPerMinute, max(1, l.WebchatNewBurst))
	}
	if l.WebchatNewPerConnection > 0 {
		perConnection = netlimit.PerMinute(l.WebchatNewPerConnection, int(max(1, l.WebchatNewPerConnection)))
	}
	return perAddress, perConnection
}

// sharedNewVisitorLimits are the web chat's new-visitor counts kept in Redis, so that
// every node of a cluster holds one limit; nil without REDIS_URL (or for a lifted
// limit), where each node counts on its own.
func (n *Node) sharedNewVisitorLimits(perAddress, perConnection netlimit.Rate) (byAddress, byConnection webchat.Limiter, err error) {
	if n.redis == nil {
		return nil, nil, nil
	}
	if !perAddress.Unlimited() {
		if byAddress, err = n.redis.TokenBuckets("webchat-new-address", perAddress.PerSecond, perAddress.Burst, nil); err != nil {
			return nil, nil, err
		}
	}
	if !perConnection.Unlimited() {
		if byConnection, err = n.redis.TokenBuckets("webchat-new-connection", perConnection.PerSecond, perConnection.Burst, nil); err != nil {
			return nil, nil, err
		}
	}
	return byAddress, byConnection, nil
}

// apiLimiter is the messaging API's per-token limiter kept in Redis, so that every
// node of a cluster holds one limit; nil without REDIS_URL, where each node counts on
// its own.
func (n *Node) apiLimiter(perMinute int) (httpapi.APILimiter, error) {
	if n.redis == nil {
		return nil, nil
	}
	if perMinute <= 0 {
		perMinute = httpapi.DefaultAPISendsPerMinute
	}
	return n.redis.TokenBuckets("api-sends", float64(perMinute)/60, perMinute, nil)
}

// limitCollectors expose on /metrics what the limits refused, so an operator sees an
// attack (and a limit set too low) and can tune it.
func limitCollectors(socketGate, webchatGate *netlimit.Gate, wc *webchat.Server) []prometheus.Collector {
	var out []prometheus.Collector
	for endpoint, g := range map[string]*netlimit.Gate{"socket": socketGate, "webchat": webchatGate} {
		labels := prometheus.Labels{"endpoint": endpoint}
		out = append(out,
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "atende_handshakes_refused_address_total", ConstLabels: labels,
				Help: "Websocket handshakes refused by a per-address limit (429): open sockets or new ones per minute."},
				func() float64 { return float64(g.Stats().RefusedAddress) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "atende_handshakes_refused_node_total", ConstLabels: labels,
				Help: "Websocket handshakes refused by a node-wide limit (503): open sockets or new ones per second."},
				func() float64 { return float64(g.Stats().RefusedNode) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "atende_gate_open_connections", ConstLabels: labels,
				Help: "Websockets open through the endpoint's gate."},
				func() float64 { return float64(g.Stats().Open) }),
		)
	}
	return append(out, prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "atende_webchat_new_visitors_refused_total",
		Help: "Web chat first messages refused by the new-visitor limits."},
		func() float64 { return float64(wc.Stats().NewVisitorsRefused) }))
}

// admission builds the node's inbound admission control (package ingest), shared
// by the web chat and the provider web-hooks.
func (l Limits) admission() (*ingest.Limiter, error) {
	return ingest.New(ingest.Config{MaxInFlight: l.InboundMaxInFlight, MaxPerConnection: l.InboundMaxPerConnection,
		Wait: l.InboundWait, RetryAfter: l.InboundRetryAfter})
}

// admissionCollectors expose on /metrics what the inbound admission control holds
// and refused: refusals that climb mean the node sheds load (or its limits are set
// too low), stalls that climb mean the actors or the database answer too slowly.
func admissionCollectors(lim *ingest.Limiter) []prometheus.Collector {
	counter := func(name, help string, v func(ingest.Stats) int64, labels prometheus.Labels) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels},
			func() float64 { return float64(v(lim.Stats())) })
	}
	gauge := func(name, help string, v func(ingest.Stats) int) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help},
			func() float64 { return float64(v(lim.Stats())) })
	}
	const refused = "atende_inbound_refused_total"
	const refusedHelp = "Inbound messages and receipts refused with ERR_UNAVAILABLE and Retry-After: busy (the wait queue was full), wait (no place within INBOUND_ADMIT_WAIT), stalled (admitted, but the connection actor did not answer in time)."
	return []prometheus.Collector{
		gauge("atende_inbound_in_flight", "Inbound messages and receipts of the node on their way to the connection actors.",
			func(s ingest.Stats) int { return s.InFlight }),
		gauge("atende_inbound_queued", "Inbound messages and receipts waiting for a place.",
			func(s ingest.Stats) int { return s.Queued }),
		counter("atende_inbound_admitted_total", "Inbound messages and receipts admitted to the connection actors.",
			func(s ingest.Stats) int64 { return s.Admitted }, nil),
		counter(refused, refusedHelp, func(s ingest.Stats) int64 { return s.RefusedBusy }, prometheus.Labels{"reason": ingest.ReasonBusy}),
		counter(refused, refusedHelp, func(s ingest.Stats) int64 { return s.RefusedWait }, prometheus.Labels{"reason": ingest.ReasonWait}),
		counter(refused, refusedHelp, func(s ingest.Stats) int64 { return s.Stalled }, prometheus.Labels{"reason": ingest.ReasonStalled}),
	}
}

// clientAddr is the address a request's client is counted under.
func (l Limits) clientAddr(r *http.Request) string {
	return netlimit.ClientAddr(r, l.TrustForwardedFor)
}

// httpServer builds the node's HTTP server around h: the timeouts, and the minimum
// body rate on every request with a body. Websockets are exempt from the timeouts:
// the upgrade clears the connection's deadlines and each socket keeps its own
// (ping deadlines, write timeouts).
func (l Limits) httpServer(h http.Handler, onCut func()) *http.Server {
	if l.ReadHeaderTimeout == 0 { // a Config built without parseConfig (tests)
		l.ReadHeaderTimeout = 10 * time.Second
	}
	return &http.Server{
		Handler:           netlimit.BodyRate{Grace: l.BodyGrace, MinRate: l.MinBodyRate, Max: l.ReadTimeout, OnCut: onCut}.Wrap(h),
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		ReadTimeout:       l.ReadTimeout,
		WriteTimeout:      l.WriteTimeout,
		IdleTimeout:       l.IdleTimeout,
	}
}
