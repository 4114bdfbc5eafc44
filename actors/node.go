package actors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/test"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/rs/zerolog"

	"atende/actors/wire"
	"atende/engine"
	"atende/goroutine"
)

// NodeConfig configures one member of the actor cluster.
type NodeConfig struct {
	// ClusterName must match on every node; "atende" when empty.
	ClusterName string
	// Host and Port the actor remote listens on; "127.0.0.1" and a free port when zero.
	Host string
	Port int
	// AdvertisedHost is the address other nodes dial, when it differs from Host.
	AdvertisedHost string
	// Provider publishes membership. Nil runs a single node with protoactor's
	// in-process provider; the cluster package supplies the memberlist one.
	Provider cluster.ClusterProvider
	// Kinds are the virtual actor kinds this node hosts.
	Kinds []*cluster.Kind
	// RequestTimeout bounds one actor call; 5 s when zero.
	RequestTimeout time.Duration
	// InboundPartitions is how many inbound actors (KindInbound) share each
	// connection's customers, by a hash of the customer's number; 1 (or zero): the
	// connection actor itself takes every customer's messages. Set the same on
	// every node: a node with another count sends a customer's messages to another
	// actor, which keeps them exactly once but not in order across the two.
	InboundPartitions int
	// Logger receives protoactor's warnings and errors.
	Logger zerolog.Logger
}

// Node is a running member of the actor cluster.
type Node struct {
	// static after StartNode
	System     *actor.ActorSystem
	Cluster    *cluster.Cluster
	timeout    time.Duration
	departures *departures
	partitions int
}

// gossipInterval is how often protoactor's own gossip runs on a node: each round is
// four requests to the local gossip actor and a state message to up to three members.
// Membership is memberlist's (package cluster): a member that leaves or dies is
// removed, and blocked, from its topology. What is left of protoactor's gossip is the
// heartbeat, which blocks a member silent for HeartbeatExpiration (20 s), and the
// graceful-leave mark, which Cluster.Shutdown sets as the actor system stops, too late
// to be sent. Nothing reads the gossiped state. Every 2 s rather than protoactor's
// 300 ms, a node pays a seventh of it, and a member's heartbeat is still renewed ten
// times within the expiry.
const gossipInterval = 2 * time.Second

// StartNode starts the actor system, its remote endpoint and cluster membership.
func StartNode(cfg NodeConfig) (n *Node, err error) {
	if cfg.ClusterName == "" {
		cfg.ClusterName = "atende"
	}
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 5 * time.Second
	}
	provider := cfg.Provider
	if provider == nil {
		provider = test.NewTestProvider(test.NewInMemAgent())
	}
	logger := newSlog(cfg.Logger.With().Str("component", "protoactor").Logger(), slog.LevelWarn)
	system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return logger }))
	var ropts []remote.ConfigOption
	if cfg.AdvertisedHost != "" {
		ropts = append(ropts, remote.WithAdvertisedHost(cfg.AdvertisedHost))
	}
	rcfg := remote.Configure(cfg.Host, cfg.Port, ropts...)
	ccfg := cluster.Configure(cfg.ClusterName, provider, disthash.New(), rcfg,
		cluster.WithKinds(cfg.Kinds...),
		cluster.WithRequestTimeout(cfg.RequestTimeout))
	ccfg.GossipInterval = gossipInterval
	c := cluster.New(system, ccfg)
	deps := newDepartures()
	system.EventStream.Subscribe(func(evt any) {
		switch e := evt.(type) {
		case *cluster.ClusterTopology:
			deps.topology(e)
		case *cluster.ActivationTerminated:
			// Every member hears when an actor stops (passivated, handed over): its
			// PID leaves the cache, which would otherwise keep every actor this node
			// ever called and answer dead letters for the stopped ones.
			if id := e.ClusterIdentity; id != nil && e.Pid != nil {
				c.PidCache.RemoveByValue(id.Identity, id.Kind, e.Pid)
			}
		}
	})
	defer func() {
		// StartMember reports failures (a taken port…) by panicking.
		if p := recover(); p != nil {
			err = fmt.Errorf("start actor node: %v", p)
		}
	}()
	c.StartMember()
	n = &Node{System: system, Cluster: c, timeout: cfg.RequestTimeout, departures: deps,
		partitions: max(cfg.InboundPartitions, 1)}
	nodes.Store(system, n)
	return n, nil
}

// Stop leaves the cluster. Graceful hands this node's actors over before it returns.
func (n *Node) Stop(graceful bool) {
	n.Cluster.Shutdown(graceful)
	nodes.Delete(n.System)
}

// ErrUnavailable means the actor could not be reached in time (its node died, the
// cluster is rebalancing); the caller may retry.
var ErrUnavailable = errors.New("actor unavailable")

// Call sends cmd to the virtual actor kind/identity and waits for its reply. A reply
// carrying an error code comes back as *engine.Error.
func (n *Node) Call(ctx context.Context, kind, identity string, cmd *wire.Command) ([]byte, error) {
	timeout := n.timeout
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); left < timeout {
			timeout = left
		}
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("call %s/%s: %w", kind, identity, context.DeadlineExceeded)
	}
	res, err := n.request(identity, kind, cmd, timeout)
	if err != nil {
		return nil, fmt.Errorf("call %s/%s %s: %w: %v", kind, identity, cmd.Type, ErrUnavailable, err)
	}
	reply, ok := res.(*wire.Reply)
	if !ok {
		return nil, fmt.Errorf("call %s/%s %s: unexpected reply %T", kind, identity, cmd.Type, res)
	}
	return ReplyResult(reply)
}

// hostOf is the address of the member a call to kind/identity goes to — the cached
// PID's, else the member the topology places it on — and whether that is this node
// (or no member hosts kind yet: the cluster then activates it here or answers).
func (n *Node) hostOf(identity, kind string) (addr string, local bool) {
	if pid, ok := n.Cluster.PidCache.Get(identity, kind); ok {
		addr = pid.Address
	} else {
		addr = n.departures.owner(identity, kind)
	}
	return addr, addr == "" || addr == n.System.Address()
}

// errMemberLeft ends a call whose target member left the cluster while it waited.
var errMemberLeft = errors.New("the actor's member left the cluster")

// request is Cluster.Request that gives up as soon as the member the call went to
// leaves (see departures): the caller learns at failure detection (≈1 s), not after
// the whole timeout, and retries against the actor's new owner. The command may or may
// not have run there; every caller's retry is idempotent (provider ids, expected
// versions), as for a timeout. Local calls are made directly.
func (n *Node) request(identity, kind string, cmd *wire.Command, timeout time.Duration) (any, error) {
	target, local := n.hostOf(identity, kind)
	if local {
		return n.Cluster.Request(identity, kind, cmd, cluster.WithTimeout(timeout))
	}
	gone := n.departures.watch(target)
	type result struct {
		res any
		err error
	}
	done := make(chan result, 1) // the request ends on its own after at most timeout
	goroutine.Go(func() {
		res, err := n.Cluster.Request(identity, kind, cmd, cluster.WithTimeout(timeout))
		done <- result{res, err}
	})
	select {
	case r := <-done:
		return r.res, r.err
	case <-gone:
		n.Cluster.PidCache.Remove(identity, kind)
		return nil, fmt.Errorf("%w (%s)", errMemberLeft, target)
	}
}

// ReplyResult turns a wire.Reply into its payload or an *engine.Error.
func ReplyResult(r *wire.Reply) ([]byte, error) {
	if r.ErrorCode == "" {
		return r.Payload, nil
	}
	e := &engine.Error{Code: engine.Code(r.ErrorCode), Fields: r.Fields}
	if r.Detail != "" {
		e.Cause = errors.New(r.Detail)
	}
	return nil, e
}

// ErrorReply encodes err for the wire: an *engine.Error keeps its code and fields,
// anything else becomes ERR_INTERNAL with the cause kept for the logs.
func ErrorReply(err error) *wire.Reply {
	var e *engine.Error
	if errors.As(err, &e) {
		r := &wire.Reply{ErrorCode: string(e.Code), Fields: e.Fields}
		if e.Cause != nil {
			r.Detail = e.Cause.Error()
		}
		return r
	}
	return &wire.Reply{ErrorCode: string(engine.ErrInternal), Detail: err.Error()}
}
