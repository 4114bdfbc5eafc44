package node

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
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
	"atende/transport/channel/webchat"
	httpapi "atende/transport/http"
	"atende/transport/socket"
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
	nc := actors.NodeConfig{Host: host, Port: port, Kinds: kinds, Logger: n.log, AdvertisedHost: n.cfg.ActorAdvertise}
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

// subscribeRevocations acts on every node, this one included, on what user changes
// and logouts announce (Redis in a cluster, in process on a single node): a user
// changed or deleted (token.Service.Forget, announced by announceUserChanges) is
// forgotten by the token cache and the user's sockets here are closed so that they
// reconnect and authenticate again (socket.Hub.Reauthenticate); a logged-out
// session's tokens are refused here and its sockets closed for good
// (socket.Hub.EndSession). A logout (token.Service.Logout) is announced through the
// same channel.
func (n *Node) subscribeRevocations(ctx context.Context, hub *socket.Hub, routines *actors.Routines) error {
	log := n.log.With().Str("component", "revocations").Logger()
	cancel, err := n.revocations.SubscribeAll(ctx, func(r redisstate.Revocation) {
		if r.Session == "" {
			n.tokens.ForgetLocal(r.UserID) // not Forget: that would announce it again
			hub.Reauthenticate(r.UserID)
			return
		}
		n.tokens.SessionEnded(r.Session)
		if n := hub.EndSession(r.UserID, r.Session); n > 0 {
			log.Info().Int64("user_id", r.UserID).Int("sockets", n).Msg("logged-out session's sockets closed")
		}
	})
	if err != nil {
		return err
	}
	n.onClose(func(context.Context) error { cancel(); return nil })
	n.tokens.OnSessionEnd(func(ctx context.Context, userID engine.ID, session string) error {
		return n.revocations.EndSession(ctx, userID, session)
	})
	n.tokens.OnForget(n.announceUserChanges(log, routines))
	n.syncEndedSessions(log, hub, routines, endedSessionSync)
	return nil
}

// endedSessionSync is how often a node reads the ended sessions back from the
// database: a logout whose announcement this node missed (Redis down, a dropped
// subscription) closes its sockets here within this time.
const endedSessionSync = 30 * time.Second

// syncEndedSessions runs token.Service.Sync every period until the node closes,
// closing the sockets of each session it learns of (and pruning expired records).
func (n *Node) syncEndedSessions(log zerolog.Logger, hub *socket.Hub, routines *actors.Routines, period time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	if !routines.Go(func() {
		defer close(done)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			sctx, scancel := context.WithTimeout(ctx, period)
			if err := n.syncEndedOnce(sctx, log, hub); err != nil {
				log.Warn().Err(err).Msg("ended sessions not synced")
			}
			scancel()
		}
	}) {
		close(done)
	}
	n.onClose(func(context.Context) error { cancel(); <-done; return nil })
}

// syncEndedOnce is one round of syncEndedSessions: the sessions recorded as ended
// that this node did not know of are refused from now on and their sockets here
// closed.
func (n *Node) syncEndedOnce(ctx context.Context, log zerolog.Logger, hub *socket.Hub) error {
	ended, err := n.tokens.Sync(ctx)
	if err != nil {
		return err
	}
	for _, e := range ended {
		if n := hub.EndSession(e.UserID, e.Session); n > 0 {
			log.Info().Int64("user_id", e.UserID).Int("sockets", n).Msg("ended session's sockets closed (sync)")
		}
	}
	return nil
}

// announceUserChanges returns the token.Service OnForget hook: every user the REST
// API changed or deleted is announced (engine.Revocations) by one goroutine, off the
// request path, in the order changed, until the node closes. A change the full queue
// cannot take, or whose announcement fails, is only logged: the other nodes still
// refuse the stale token within the token cache's TTL.
func (n *Node) announceUserChanges(log zerolog.Logger, routines *actors.Routines) func(engine.ID) {
	queue := make(chan engine.ID, 256)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	if !routines.Go(func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case id := <-queue:
				pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
				if err := n.revocations.Publish(pctx, id); err != nil {
					log.Warn().Err(err).Int64("user_id", id).Msg("revocation not announced")
				}
				pcancel()
			}
		}
	}) {
		close(done) // shutting down already: nothing will be announced
	}
	n.onClose(func(context.Context) error { cancel(); <-done; return nil })
	return func(id engine.ID) {
		select {
		case queue <- id:
		default:
			log.Warn().Int64("user_id", id).Msg("revocation not announced: too many pending")
		}
	}
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

// clusterSinkTimeout bounds a web chat visitor's message on its way to the
// connection's actor in cluster mode, and clusterAttemptTimeout each attempt
// (docs/cluster.md, "Web chat across nodes"): a call in flight to a node that died
// or is leaving is lost with it, so it is given up after 1 s and sent again, to the
// actor's new home once the topology changed.
const (
	clusterSinkTimeout    = 4 * time.Second
	clusterAttemptTimeout = time.Second
)

// webchatCluster lets every node serve every web chat visitor (webchat.Cluster):
// what a visitor says goes to the connection's actor through the cluster; what the
// actor sends is published on the Redis topic "webchat", and every node hands it to
// the visitor's sockets it holds.
type webchatCluster struct {
	l     *live
	topic redisstate.Topic
	log   zerolog.Logger
}

func (w *webchatCluster) Endpoint(ctx context.Context, id engine.ID) (engine.Connection, engine.ChannelSink, error) {
	c, err := w.l.conns.Lookup(ctx, id)
	if err != nil {
		return engine.Connection{}, nil, err
	}
	if c.Channel != engine.ChannelSocket {
		return engine.Connection{}, nil, engine.E(engine.ErrNoWappFound)
	}
	return c, retrySink{actors.Connections{Node: w.l.node}.Sink(id)}, nil
}

// retrySink retries calls the cluster could not deliver or answer in time
// (actors.ErrUnavailable: the actor's node died or is leaving, or the topology has
// not caught up yet) and calls the actor answered with ERR_UNAVAILABLE (it could not
// reach a ticket whose node is leaving), each attempt bounded by
// clusterAttemptTimeout, with backoff until ctx ends. Inbound and receipts are idempotent (the actors de-duplicate on
// the provider id), so a retry is harmless.
type retrySink struct{ next engine.ChannelSink }

func (s retrySink) Inbound(ctx context.Context, m engine.InboundMessage) error {
	return retry(ctx, func(ctx context.Context) error { return s.next.Inbound(ctx, m) })
}

func (s retrySink) Receipt(ctx context.Context, r engine.Receipt) error {
	return retry(ctx, func(ctx context.Context) error { return s.next.Receipt(ctx, r) })
}

func (s retrySink) Status(ctx context.Context, st engine.StatusChange) error {
	return retry(ctx, func(ctx context.Context) error { return s.next.Status(ctx, st) })
}

func retry(ctx context.Context, call func(context.Context) error) error {
	wait := 50 * time.Millisecond
	for {
		actx, cancel := context.WithTimeout(ctx, clusterAttemptTimeout)
		err := call(actx)
		cancel()
		if err == nil || !retryable(err) || ctx.Err() != nil {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, 400*time.Millisecond)
	}
}

// retryable: the call may succeed if made again once the topology settles.
func retryable(err error) bool {
	return errors.Is(err, actors.ErrUnavailable) || errors.Is(err, engine.E(engine.ErrUnavailable))
}

func (w *webchatCluster) Publish(ctx context.Context, d webchat.Delivery) error {
	b, err := webchat.MarshalDelivery(d)
	if err != nil {
		return err
	}
	return w.topic.Publish(ctx, b)
}

// subscribe delivers the topic's messages to this node's visitors until cancel.
func (w *webchatCluster) subscribe(ctx context.Context) (cancel func(), err error) {
	return w.topic.Subscribe(ctx, func(p []byte) {
		d, err := webchat.UnmarshalDelivery(p)
		if err != nil {
			w.log.Warn().Err(err).Msg("ignoring malformed web chat delivery")
			return
		}
		w.l.webchat.Deliver(d)
	})
}

// wcClusterOrNil keeps a nil *webchatCluster from becoming a non-nil interface.
func wcClusterOrNil(w *webchatCluster) webchat.Cluster {
	if w == nil {
		return nil
	}
	return w
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

// Presence leases (engine.Presence): a user with a socket on this node is online
// under a lease of this node, refreshed well within presenceTTL; the sockets are
// looked at every presenceTick, so a connect or a last disconnect shows within it.
const (
	presenceTTL  = 30 * time.Second
	presenceTick = 2 * time.Second
)

type presenceKey struct{ company, user engine.ID }

// presenceKeeper mirrors the users connected to this node's hub into the shared
// presence, until ctx ends; then it drops this node's leases.
type presenceKeeper struct {
	hub      *socket.Hub
	presence engine.Presence
	node     string
	log      zerolog.Logger
	leased   map[presenceKey]time.Time // when each lease was last written
	// changed, when set, is told of a user that came online on this node or left it
	// (the wait panel's radar refreshes on the "presence" socket event it sends).
	changed func(company, user engine.ID)
}

func (k *presenceKeeper) run(ctx context.Context) {
	t := time.NewTicker(presenceTick)
	defer t.Stop()
	for {
		k.sync(ctx)
		select {
		case <-ctx.Done():
			k.dropAll()
			return
		case <-t.C:
		}
	}
}

// sync writes the leases of users that came online or whose lease is due, and
// drops those of users with no socket left.
func (k *presenceKeeper) sync(ctx context.Context) {
	now := time.Now()
	seen := map[presenceKey]bool{}
	for _, p := range k.hub.Online() {
		key := presenceKey{p.CompanyID, p.UserID}
		seen[key] = true
		at, known := k.leased[key]
		if known && now.Sub(at) < presenceTTL/3 {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, presenceTick)
		err := k.presence.SetOnline(cctx, p.CompanyID, p.UserID, p.QueueIDs, k.node, presenceTTL)
		cancel()
		if err != nil {
			k.log.Warn().Err(err).Int64("user_id", p.UserID).Msg("presence lease not written")
			continue
		}
		k.leased[key] = now
		if !known && k.changed != nil {
			k.changed(key.company, key.user)
		}
	}
	for key := range k.leased {
		if seen[key] {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, presenceTick)
		err := k.presence.SetOffline(cctx, key.company, key.user, k.node)
		cancel()
		if err != nil {
			k.log.Warn().Err(err).Int64("user_id", key.user).Msg("presence lease not dropped (it lapses)")
		}
		delete(k.leased, key)
		if k.changed != nil {
			k.changed(key.company, key.user)
		}
	}
}

func (k *presenceKeeper) dropAll() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for key := range k.leased {
		_ = k.presence.SetOffline(ctx, key.company, key.user, k.node)
	}
	k.leased = map[presenceKey]time.Time{}
}

// startPresence runs the presence keeper of this node, into Redis in a cluster and
// into this process's memory on a single node (the same code); it stops, dropping
// this node's leases, when the node closes.
func (n *Node) startPresence(hub *socket.Hub, routines *actors.Routines, changed func(company, user engine.ID)) {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	k := &presenceKeeper{hub: hub, presence: n.presence, leased: map[presenceKey]time.Time{}, changed: changed,
		node: fmt.Sprintf("%s-%d-%x", host, os.Getpid(), b), log: n.log.With().Str("component", "presence").Logger()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	if !routines.Go(func() { defer close(done); k.run(ctx) }) {
		cancel()
		return
	}
	n.onClose(func(context.Context) error { cancel(); <-done; return nil })
}
