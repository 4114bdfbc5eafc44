package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	pcluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"atende/actors"
	"atende/cluster"
	"atende/engine"
	"atende/persistence/journal"
	"atende/persistence/lease"
	"atende/persistence/ratelimit"
	"atende/persistence/redisstate"
	httpapi "atende/transport/http"
)

// splitHostPort reads host:port, the port a number (0: any free port).
func splitHostPort(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("address %q: %w", addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("address %q: bad port", addr)
	}
	return host, port, nil
}

// nodeConfig is the actor node of this process: alone, or a member of the cluster
// described by cfg (membership by memberlist).
func (n *Node) nodeConfig(kinds []*pcluster.Kind) (actors.NodeConfig, *cluster.Provider, error) {
	addr := n.cfg.ActorAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, port, err := splitHostPort(addr)
	if err != nil {
		return actors.NodeConfig{}, nil, err
	}
	nc := actors.NodeConfig{Host: host, Port: port, Kinds: kinds, Logger: n.log, AdvertisedHost: n.cfg.ActorAdvertise,
		InboundPartitions: n.cfg.inboundPartitions()}
	if !n.cfg.Cluster {
		return nc, nil, nil
	}
	if nc.AdvertisedHost == "" && (host == "0.0.0.0" || host == "") {
		ip, err := cluster.DefaultAdvertiseIP()
		if err != nil {
			return actors.NodeConfig{}, nil, fmt.Errorf("actor address to advertise: %w (set ACTOR_ADVERTISE)", err)
		}
		nc.AdvertisedHost = net.JoinHostPort(ip, strconv.Itoa(port))
	}
	gHost, gPort, err := splitHostPort(n.cfg.GossipAddr)
	if err != nil {
		return actors.NodeConfig{}, nil, err
	}
	pc := cluster.Config{NodeName: cluster.DefaultNodeName(), BindAddr: gHost, BindPort: gPort, Seeds: n.cfg.Seeds,
		JoinTimeout: n.cfg.JoinTimeout, SecretKey: n.cfg.GossipKey, ProbeInterval: n.cfg.GossipProbeInterval, ProbeTimeout: n.cfg.GossipProbeTimeout,
		SuspicionMult: n.cfg.GossipSuspicionMult, Logger: n.log.With().Str("component", "cluster").Logger(),
		OnDead: n.fenceOff}
	if n.cfg.GossipAdvertise != "" {
		if pc.AdvertiseAddr, pc.AdvertisePort, err = splitHostPort(n.cfg.GossipAdvertise); err != nil {
			return actors.NodeConfig{}, nil, err
		}
	}
	prov, err := cluster.New(pc)
	if err != nil {
		return actors.NodeConfig{}, nil, err
	}
	n.metrics.MustRegister(prov.Collectors()...)
	nc.Provider = prov
	n.gossip = prov
	return nc, prov, nil
}

// leasedChannels makes each connection's channel run on one node at a time in
// cluster mode: a channel starts only while this node holds the connection's lease
// (a PostgreSQL advisory lock, persistence/lease), stops when the lease is lost and
// releases it on Stop. The placement alone cannot promise it during a membership
// split or while a connection's new activation races its old one's stop. A single
// node needs no lease.
func (n *Node) leasedChannels(next engine.ChannelFactory) (engine.ChannelFactory, error) {
	if !n.cfg.Cluster {
		return next, nil
	}
	log := n.log.With().Str("component", "lease").Logger()
	locker, err := lease.New(context.Background(), n.db, lease.Config{Logger: log})
	if err != nil {
		return nil, err
	}
	// Registered before the actor node's closer, so it runs after the actors
	// stopped (and released their leases); closing ends the session anyway.
	n.onClose(func(context.Context) error { return locker.Close() })
	m := lease.NewMetrics()
	n.metrics.MustRegister(m.Collectors()...)
	return &lease.Channels{Next: next, Locker: locker, Logger: log, Metrics: m}, nil
}

// errFenced ends serve when the journal refused this node's appends: the others
// declared it dead and fenced it off (persistence/journal.RevokeMember).
var errFenced = errors.New("cluster: this node was declared dead and fenced off the journal; restart it")

// errDatabaseLost ends serve when a cluster node could not reach PostgreSQL for
// DatabaseLostAfter: it left the cluster so that nodes that can store messages serve
// its customers.
var errDatabaseLost = errors.New("cluster: PostgreSQL unreachable; left the cluster so the others serve its customers; restart it")

// fenceOff revokes the journal appends of members the cluster declared dead, so a
// member that is in fact alive (stalled, cut off) can write nothing from then on: each
// revocation waits for that member's transactions in flight, at most the database's
// idle_in_transaction_session_timeout. Every survivor revokes; the first one does it.
func (n *Node) fenceOff(ids []string) {
	l := n.live
	for _, id := range ids {
		l.routines.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), fenceOffTimeout)
			defer cancel()
			for {
				revoked, err := l.journal.RevokeMember(ctx, id)
				if err == nil {
					if revoked {
						n.log.Warn().Str("member_id", id).Msg("fenced a dead member off the journal")
					}
					return
				}
				n.log.Warn().Err(err).Str("member_id", id).Msg("fencing a dead member: retrying")
				select {
				case <-ctx.Done():
					n.log.Error().Str("member_id", id).Msg("could not fence a dead member off the journal")
					return
				case <-time.After(2 * time.Second):
				}
			}
		})
	}
}

// fenceOffTimeout bounds the attempts to fence one dead member off.
const fenceOffTimeout = time.Minute

// errEvicted ends serve when another node removed this one from the cluster
// (cluster.Provider.Evicted): it was declared dead while alive, and protoactor never
// re-admits its member id, so only a fresh process can take part again.
var errEvicted = errors.New("cluster: this node was declared dead by the others and evicted; restart it")

// evicted is closed when this node is evicted from the cluster; nil (never ready)
// on a single node.
func (n *Node) evicted() <-chan struct{} {
	if n.gossip == nil {
		return nil
	}
	return n.gossip.Evicted()
}

// sharedState picks where login limits, token revocations, presence and web-hook
// de-duplication keys live: Redis when configured (every node sees the same counts,
// revocations and keys), else this process.
func (n *Node) sharedState(ctx context.Context, clock engine.Clock) (pairs, addresses engine.AttemptLimiter, err error) {
	if n.cfg.RedisURL == "" {
		// One process: the same revocation and presence code paths run in memory.
		rev := redisstate.NewMemoryRevocations(n.log)
		n.onClose(func(context.Context) error { rev.Close(); return nil })
		n.revocations, n.presence = rev, redisstate.NewMemoryPresence(clock)
		n.dedupe = redisstate.NewMemoryDedupe(clock)
		if pairs, err = ratelimit.NewAttempts(httpapi.LoginPairPolicy, 0, clock); err != nil {
			return nil, nil, err
		}
		addresses, err = ratelimit.NewAttempts(httpapi.LoginAddressPolicy, 0, clock)
		return pairs, addresses, err
	}
	r, err := redisstate.New(ctx, redisstate.Config{URL: n.cfg.RedisURL, Prefix: n.cfg.RedisPrefix,
		Logger: n.log.With().Str("component", "redis").Logger()})
	if err != nil {
		return nil, nil, fmt.Errorf("redis: %w", err)
	}
	n.redis = r
	n.onClose(func(context.Context) error { return r.Close() })
	n.revocations, n.presence, n.dedupe = r.Revocations(), r.Presence(), r.DedupeKeys()
	if pairs, err = r.AttemptLimiter("login-pair", httpapi.LoginPairPolicy, clock); err != nil {
		return nil, nil, err
	}
	if addresses, err = r.AttemptLimiter("login-address", httpapi.LoginAddressPolicy, clock); err != nil {
		return nil, nil, err
	}
	return pairs, addresses, nil
}

// keepConnections re-activates every connection's actor now and then, so that the
// connections of a node that died come back on the survivors (the cluster places
// each identity on a live member); a call to a live actor only answers.
func (l *live) keepConnections(ctx context.Context, log zerolog.Logger, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		l.activateConnections(ctx, log)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// journalCollectors expose the journal's counters on /metrics. Conflicts are
// appends refused because the stream moved on: in a cluster, a ticket actor that
// ran on two nodes at once for a moment (a rebalance) — the actor reloads and
// retries, so a few during membership changes are expected.
func journalCollectors(j *journal.Store) []prometheus.Collector {
	counter := func(name, help string, v func(journal.Stats) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
			func() float64 { return float64(v(j.Stats())) })
	}
	return []prometheus.Collector{
		counter("atende_journal_appends_total", "Appends committed to the journal by this node.",
			func(s journal.Stats) uint64 { return s.Appends }),
		counter("atende_journal_events_total", "Events committed to the journal by this node.",
			func(s journal.Stats) uint64 { return s.Events }),
		counter("atende_journal_conflicts_total", "Appends refused because the stream's version moved on (optimistic concurrency).",
			func(s journal.Stats) uint64 { return s.Conflicts }),
		counter("atende_journal_failures_total", "Appends failed by a database error.",
			func(s journal.Stats) uint64 { return s.Failures }),
	}
}
