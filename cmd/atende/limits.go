package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"atende/node"
	"atende/transport/channel/webchat"
	"atende/transport/ingest"
)

// The gate limits when no setting changes them.
var (
	defaultSocketLimits  = node.GateLimits{MaxConnections: 10000, MaxPerAddress: 200, HandshakesPerMinute: 120, NodeHandshakesPerSecond: 100}
	defaultWebchatLimits = node.GateLimits{MaxConnections: 10000, MaxPerAddress: 20, HandshakesPerMinute: 60, NodeHandshakesPerSecond: 100}
)

// limitFlags declares the limits' flags on fs (defaults from env) and returns the
// function that parses them once fs is parsed.
func limitFlags(l *node.Limits, fs *flag.FlagSet, env func(key, def string) string) func() error {
	type setting struct {
		v     *string
		parse func(string) error
	}
	var all []setting
	add := func(name, envKey, def, usage string, parse func(string) error) {
		v := new(string)
		fs.StringVar(v, name, env(envKey, def), usage+" ("+envKey+")")
		all = append(all, setting{v: v, parse: parse})
	}
	dur := func(name string, d *time.Duration) func(string) error {
		return func(v string) (err error) { *d, err = parsePositive(name, v); return err }
	}
	count := func(name string, n *int) func(string) error {
		return func(v string) error {
			i, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || i < 0 {
				return fmt.Errorf("config: %s must be a whole number ≥ 0 (0: no limit), got %q", name, v)
			}
			*n = i
			return nil
		}
	}
	rate := func(name string, r *float64) func(string) error {
		return func(v string) error {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || f < 0 {
				return fmt.Errorf("config: %s must be a number ≥ 0 (0: no limit), got %q", name, v)
			}
			*r = f
			return nil
		}
	}
	add("http-read-header-timeout", "HTTP_READ_HEADER_TIMEOUT", "10s", "time to read a request's line and headers", dur("http-read-header-timeout", &l.ReadHeaderTimeout))
	add("http-read-timeout", "HTTP_READ_TIMEOUT", "10m", "time to read a whole request, body included (websockets exempt)", dur("http-read-timeout", &l.ReadTimeout))
	add("http-write-timeout", "HTTP_WRITE_TIMEOUT", "5m", "time to write a whole response (websockets exempt)", dur("http-write-timeout", &l.WriteTimeout))
	add("http-idle-timeout", "HTTP_IDLE_TIMEOUT", "60s", "how long a kept-alive connection may wait for its next request", dur("http-idle-timeout", &l.IdleTimeout))
	add("http-body-grace", "HTTP_BODY_GRACE", "10s", "time a request body has before the minimum body rate counts", dur("http-body-grace", &l.BodyGrace))
	add("http-min-body-rate", "HTTP_MIN_BODY_RATE", "1024", "slowest average request body rate in bytes per second; slower bodies are cut (0: none)", func(v string) error {
		var n int
		err := count("http-min-body-rate", &n)(v)
		l.MinBodyRate = int64(n)
		return err
	})
	var trust string
	fs.StringVar(&trust, "trust-forwarded-for", env("TRUST_FORWARDED_FOR", "false"), "count clients by the last X-Forwarded-For entry, appended by a reverse proxy in front of the node (TRUST_FORWARDED_FOR)")
	all = append(all, setting{v: &trust, parse: func(v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("config: TRUST_FORWARDED_FOR must be true or false, got %q", v)
		}
		l.TrustForwardedFor = b
		return nil
	}})
	gate := func(prefix, what string, g *node.GateLimits, def node.GateLimits) {
		p := strings.ToLower(prefix)
		add(p+"-max-connections", prefix+"_MAX_CONNECTIONS", strconv.Itoa(def.MaxConnections), "open "+what+" sockets of the node (0: no limit)", count(p+"-max-connections", &g.MaxConnections))
		add(p+"-max-connections-per-address", prefix+"_MAX_CONNECTIONS_PER_ADDRESS", strconv.Itoa(def.MaxPerAddress), "open "+what+" sockets of one client address (0: no limit)", count(p+"-max-connections-per-address", &g.MaxPerAddress))
		add(p+"-handshakes-per-minute", prefix+"_HANDSHAKES_PER_MINUTE", strconv.FormatFloat(def.HandshakesPerMinute, 'f', -1, 64), "new "+what+" sockets of one client address per minute, as many at once (0: no limit)", rate(p+"-handshakes-per-minute", &g.HandshakesPerMinute))
		add(p+"-handshakes-per-second", prefix+"_HANDSHAKES_PER_SECOND", strconv.FormatFloat(def.NodeHandshakesPerSecond, 'f', -1, 64), "new "+what+" sockets of the node per second, twice as many at once (0: no limit)", rate(p+"-handshakes-per-second", &g.NodeHandshakesPerSecond))
	}
	gate("SOCKET", "realtime", &l.Socket, defaultSocketLimits)
	gate("WEBCHAT", "web chat", &l.Webchat, defaultWebchatLimits)
	add("webchat-new-visitors-per-minute", "WEBCHAT_NEW_VISITORS_PER_MINUTE", "10", "conversations new web chat visitors of one client address start per minute (0: no limit)", rate("webchat-new-visitors-per-minute", &l.WebchatNewPerMinute))
	add("webchat-new-visitor-burst", "WEBCHAT_NEW_VISITOR_BURST", "10", "of those, how many at once", count("webchat-new-visitor-burst", &l.WebchatNewBurst))
	add("webchat-new-visitors-per-connection", "WEBCHAT_NEW_VISITORS_PER_CONNECTION", "120", "conversations new visitors start per minute (and at once) on one web chat connection (0: no limit)", rate("webchat-new-visitors-per-connection", &l.WebchatNewPerConnection))
	add("webchat-proof-of-work-bits", "WEBCHAT_PROOF_OF_WORK_BITS", "0", "proof of work a new web chat visitor solves before its first message, in leading zero bits of SHA-256 (0: none; 16 is about 65,000 hashes)", func(v string) error {
		if err := count("webchat-proof-of-work-bits", &l.WebchatProofBits)(v); err != nil {
			return err
		}
		if l.WebchatProofBits > webchat.MaxProofOfWorkBits {
			return fmt.Errorf("config: WEBCHAT_PROOF_OF_WORK_BITS must be at most %d, got %d", webchat.MaxProofOfWorkBits, l.WebchatProofBits)
		}
		return nil
	})
	// 0 lifts an admission bound: ingest.Config takes a negative for that.
	unbounded := func(name string, n *int) func(string) error {
		return func(v string) error {
			if err := count(name, n)(v); err != nil {
				return err
			}
			if *n == 0 {
				*n = -1
			}
			return nil
		}
	}
	add("inbound-max-in-flight", "INBOUND_MAX_IN_FLIGHT", strconv.Itoa(ingest.DefaultMaxInFlight), "inbound messages of the node on their way to the connection actors at once; more wait, then are refused with 503 / retryAfter (0: no limit)", unbounded("inbound-max-in-flight", &l.InboundMaxInFlight))
	add("inbound-max-in-flight-per-connection", "INBOUND_MAX_IN_FLIGHT_PER_CONNECTION", strconv.Itoa(ingest.DefaultMaxPerConnection), "of those, for one connection (0: no limit)", unbounded("inbound-max-in-flight-per-connection", &l.InboundMaxPerConnection))
	add("inbound-admit-wait", "INBOUND_ADMIT_WAIT", ingest.DefaultWait.String(), "how long an inbound message waits for a place before it is refused", dur("inbound-admit-wait", &l.InboundWait))
	add("inbound-retry-after", "INBOUND_RETRY_AFTER", ingest.DefaultRetryAfter.String(), "what a refused inbound sender is told to wait (Retry-After, the web chat's retryAfter)", dur("inbound-retry-after", &l.InboundRetryAfter))
	add("api-sends-per-minute", "API_SENDS_PER_MINUTE", "60", "messaging-API calls one token may make per minute, as many at once (0: 60)", count("api-sends-per-minute", &l.APISendsPerMinute))
	return func() error {
		for _, s := range all {
			if err := s.parse(*s.v); err != nil {
				return err
			}
		}
		return nil
	}
}
