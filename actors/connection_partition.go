package actors

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"

	"atende/actors/wire"
	"atende/engine"
)

// A busy connection's customers are not one actor's queue. With
// NodeConfig.InboundPartitions > 1, the customers of connection id are spread by a
// hash of their number over that many inbound actors (kind KindInbound, identity
// "<id>/<k>"), which the cluster places on its members like any virtual actor. An
// inbound actor is a connection actor without a channel: it routes its customers'
// messages (CmdConnectionInbound) and the tickets people open for them
// (CmdConnectionOpenTicket) exactly as the connection actor does unpartitioned —
// the same memory of contacts and tickets, the same guard claims, the same router.
// One customer's number always hashes to the same partition, so that customer's
// messages keep their order; the ticket actors' provider ids and the guard's
// compare-and-set keep them exactly once, as they do across two activations of one
// connection. The connection actor (KindConnection, identity "<id>") keeps the
// channel's session (one in the cluster, under its lease) and everything that goes
// out through it: deliveries, farewells, campaigns, groups, receipts and status.
// What its own channel hears (a WhatsApp session) it forwards to the partitions.
//
// When the node hosting a partition dies or drains, only that partition's customers
// wait for its next activation; the others' messages go on.

// KindInbound is the cluster kind of a connection's inbound partitions; the identity
// is "<connection id>/<partition>".
const KindInbound = "inbound"

// CmdConnectionReload has an inbound partition read its connection row again (after
// an edit: greeting, queues, flows). Connections.Restart sends it to every
// partition; a partition not reached then reads the row again within
// partitionRefresh anyway.
const CmdConnectionReload = "connection.reload"

// partitionRefresh bounds how stale an inbound partition's copy of its connection
// row may get when a reload did not reach it.
const partitionRefresh = time.Minute

// InboundKind returns the cluster kind hosting the inbound partitions of
// connections. Every node registers it beside ConnectionKind.
func InboundKind(cfg ConnectionConfig) *cluster.Kind {
	cfg.fill()
	return cluster.NewKind(KindInbound, actor.PropsFromProducer(func() actor.Actor {
		return &connActor{cfg: cfg, part: true}
	}))
}

// InboundPartition is the partition, of n, that a customer's number belongs to.
func InboundPartition(number string, n int) int {
	if n <= 1 {
		return 0
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(number))
	return int(h.Sum32() % uint32(n))
}

// InboundIdentity is the identity of connection id's partition k.
func InboundIdentity(id engine.ID, k int) string {
	return strconv.FormatInt(id, 10) + "/" + strconv.Itoa(k)
}

// parseInboundIdentity reads "<connection id>/<partition>".
func parseInboundIdentity(s string) (engine.ID, int, error) {
	conn, part, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0, fmt.Errorf("inbound identity %q: want <connection>/<partition>", s)
	}
	id, err := strconv.ParseInt(conn, 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("inbound identity %q: %w", s, err)
	}
	k, err := strconv.Atoi(part)
	if err != nil || k < 0 {
		return 0, 0, fmt.Errorf("inbound identity %q: bad partition", s)
	}
	return id, k, nil
}

// partitionCommand answers a command sent to an inbound partition: only what
// concerns its customers; the channel's commands belong to the connection actor.
func (a *connActor) partitionCommand(ctx actor.Context, cmd *wire.Command) {
	switch cmd.Type {
	case CmdConnectionInbound, CmdConnectionOpenTicket:
		if !a.loaded && a.id != 0 {
			// The row could not be read at the start (a database hiccup): read it
			// now rather than refuse every customer until the next reload.
			a.ensureLoaded(ctx)
		}
		a.command(ctx, cmd)
	case CmdConnectionReload:
		a.loaded = false
		a.ensureLoaded(ctx)
		ctx.Respond(&wire.Reply{})
	default:
		ctx.Respond(ErrorReply(engine.Wrap(engine.ErrValidation,
			fmt.Errorf("%s is not for an inbound partition (connection %d)", cmd.Type, a.id))))
	}
}

// connRow is a connection row read off the actor for a partition's refresh.
type connRow struct {
	conn engine.Connection
	err  error
}

// refreshIfStale reads the partition's connection row again, off the actor, when
// its copy is older than partitionRefresh; the messages go on with the old copy
// meanwhile.
func (a *connActor) refreshIfStale(ctx actor.Context) {
	if !a.part || a.refreshing || a.cfg.Clock.Now().Sub(a.loadedAt) < partitionRefresh {
		return
	}
	a.refreshing = true
	conns, id, timeout := a.cfg.Connections, a.id, a.cfg.CallTimeout
	offActor(ctx, a.cfg.Routines, 2*timeout, func() connRow {
		c, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		conn, err := conns.Lookup(c, id)
		return connRow{conn: conn, err: err}
	}, func(r connRow, err error) {
		a.refreshing = false
		if err == nil {
			err = r.err
		}
		if err != nil {
			a.log.Warn().Err(err).Msg("connection row not read again: the partition keeps its copy")
			a.loadedAt = a.cfg.Clock.Now() // tried: next in partitionRefresh
			return
		}
		a.conn, a.loaded, a.loadedAt = r.conn, true, a.cfg.Clock.Now()
	})
}

// forwardOpen sends a person's open, whose contact's number the connection actor
// has just learned, to the partition of that number, and answers its reply.
func (a *connActor) forwardOpen(ctx actor.Context, n *Node, req OpenTicketRequest) {
	c, id, timeout := Connections{Node: n}, a.id, 3*a.cfg.CallTimeout
	offActor(ctx, a.cfg.Routines, timeout+time.Second, func() forwarded {
		cctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		r, err := c.OpenTicket(cctx, id, req)
		return forwarded{reply: r, err: err}
	}, func(f forwarded, err error) {
		if err == nil {
			err = f.err
		}
		if err != nil {
			ctx.Respond(ErrorReply(err))
			return
		}
		ctx.Respond(a.okReply(f.reply))
	})
}

// forwarded is a partition's answer to a forwarded open.
type forwarded struct {
	reply TicketReply
	err   error
}

// partitioned is the node a connection actor forwards its customers' work through,
// when the node spreads connections over inbound partitions; nil otherwise (and in
// an inbound partition itself).
func (a *connActor) partitioned(system *actor.ActorSystem) *Node {
	if a.part {
		return nil
	}
	if n := nodeOf(system); n != nil && n.partitions > 1 {
		return n
	}
	return nil
}

// reloadPartitions has every inbound partition of connection id read its row again;
// a partition not reached does so within partitionRefresh by itself. Each call waits
// at most reloadTimeout, so that a frozen node holds an edit up for seconds, not for
// a request timeout per partition it hosts.
func (c Connections) reloadPartitions(ctx context.Context, id engine.ID) {
	for k := 0; k < c.Node.partitions; k++ {
		cctx, cancel := context.WithTimeout(ctx, reloadTimeout)
		_, _ = c.Node.Call(cctx, KindInbound, InboundIdentity(id, k), &wire.Command{Type: CmdConnectionReload})
		cancel()
	}
}

// reloadTimeout bounds one partition's reload in reloadPartitions.
const reloadTimeout = 2 * time.Second

// RoutesHere reports whether this node hosts the actor that routes the messages of
// the customer with number on connection id (its inbound partition), by the actor's
// cached PID or, not activated yet, by the cluster's placement of its identity. With
// one partition every customer goes to the connection actor, so the number chooses
// nothing: true. A node that issues new customers their numbers (the web chat's
// visitor ids) prefers numbers it routes itself, so that their messages need not
// cross to another node; the answer is a hint, which a change of membership may
// make stale, never a condition of correctness.
func (n *Node) RoutesHere(id engine.ID, number string) bool {
	if n.partitions <= 1 {
		return true
	}
	kind, identity := Connections{Node: n}.target(id, number)
	_, local := n.hostOf(identity, kind)
	return local
}

// target is the kind and identity a command about a customer with number goes to.
func (c Connections) target(id engine.ID, number string) (kind, identity string) {
	if c.Node.partitions <= 1 {
		return KindConnection, strconv.FormatInt(id, 10)
	}
	return KindInbound, InboundIdentity(id, InboundPartition(number, c.Node.partitions))
}
