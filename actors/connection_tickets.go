package actors

import (
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"

	"atende/actors/wire"
	"atende/engine"
)

// A connection actor sends most of its work to ticket actors. Finding a ticket
// actor's PID (cluster.Get) asks the member that owns the ticket to activate it and
// waits for the answer — up to 5 s when that member is frozen or unreachable — so
// made inside the connection actor it would hold every customer of the connection
// behind one ticket's owner. The connection takes PIDs from the node's cache
// (protoactor's Cluster.PidCache, which Node.Call uses too; an activation that ends
// leaves it, see StartNode) and looks up a missing one outside the actor, then puts
// it there. Commands to one ticket keep the order in which the actor made them:
// while a ticket's lookup is in flight (ticketLookups), its later commands wait
// behind it. A cached PID is used while its member still owns the ticket by the
// current topology; a PID whose actor is gone before the cache heard of it answers a
// dead letter, and the command is sent once more after a fresh lookup, which
// activates the ticket anew.

// ticketFutureAs sends a command (or, with cmd nil, a state query) to ticket tid on
// behalf of p (nil: the system). The future completes with the ticket's *wire.Reply,
// or with an error reply when the ticket could not be reached.
func (a *connActor) ticketFutureAs(ctx actor.Context, tid engine.ID, p *engine.Principal, cmd engine.TicketCommand) (*actor.Future, error) {
	w, err := ticketWireCommand(tid, p, a.id, a.conn.CompanyID, cmd)
	if err != nil {
		return nil, err
	}
	out := actor.NewFuture(ctx.ActorSystem(), 2*(ticketLookupTimeout+a.cfg.CallTimeout))
	a.sendToTicket(ctx, tid, w, out, ticketResends, 0)
	return out, nil
}

// ticketLookupTimeout is how long protoactor's lookup waits for the owner's answer.
const ticketLookupTimeout = 5 * time.Second // as disthash.Manager.Get

// ticketResends is how many times a command that met a dead letter is sent again.
// The first resend usually reaches the new activation; the owner's placement may
// still name the stopped actor for a moment, hence a few, spaced out.
const ticketResends = 4

// sendToTicket sends w to ticket tid and completes out with the answer. A dead
// letter (the actor stopped) sends it again after a fresh lookup, up to resends
// times; pause delays that lookup.
func (a *connActor) sendToTicket(ctx actor.Context, tid engine.ID, w *wire.Command, out *actor.Future, resends int, pause time.Duration) {
	if a.ticketLookups[tid] == nil && pause == 0 {
		if pid := a.keptTicketPID(ctx.ActorSystem(), tid); pid != nil {
			a.requestTicket(ctx, tid, pid, w, out, resends)
			return
		}
	}
	lookup := a.lookupTicket(ctx, tid, pause)
	if lookup == nil {
		completeTicketFuture(ctx, out, nil, errStopping)
		return
	}
	ctx.ReenterAfter(lookup, func(any, error) {
		pid, _ := cluster.GetCluster(ctx.ActorSystem()).PidCache.Get(strconv.FormatInt(tid, 10), KindTicket)
		if pid == nil {
			completeTicketFuture(ctx, out, nil, errors.New("no activation for ticket "+strconv.FormatInt(tid, 10)))
			return
		}
		a.requestTicket(ctx, tid, pid, w, out, resends)
	})
}

// requestTicket sends w to the ticket actor at pid and completes out with its answer;
// a dead letter drops pid and, while resends are left, sends w again.
func (a *connActor) requestTicket(ctx actor.Context, tid engine.ID, pid *actor.PID, w *wire.Command, out *actor.Future, resends int) {
	f := ctx.RequestFuture(pid, w, a.cfg.CallTimeout)
	ctx.ReenterAfter(f, func(res any, err error) {
		if resends <= 0 || !errors.Is(err, actor.ErrDeadLetter) {
			completeTicketFuture(ctx, out, res, err)
			return
		}
		cluster.GetCluster(ctx.ActorSystem()).PidCache.RemoveByValue(strconv.FormatInt(tid, 10), KindTicket, pid)
		// After the first resend, a pause lets the owner's placement forget the
		// stopped actor.
		a.sendToTicket(ctx, tid, w, out, resends-1, time.Duration(ticketResends-resends)*50*time.Millisecond)
	})
}

// keptTicketPID is the cached PID of ticket tid while its member still owns the
// ticket by the current topology; nil otherwise.
func (a *connActor) keptTicketPID(system *actor.ActorSystem, tid engine.ID) *actor.PID {
	identity, cache := strconv.FormatInt(tid, 10), cluster.GetCluster(system).PidCache
	pid, _ := cache.Get(identity, KindTicket)
	if pid == nil {
		return nil
	}
	if owner, ok := ownerOf(system, identity, KindTicket); ok && owner != pid.Address {
		cache.RemoveByValue(identity, KindTicket, pid)
		return nil
	}
	return pid
}

// lookupTicket finds ticket tid's PID outside the actor, after pause, once at a time
// per ticket, and caches it; the returned future completes once it is cached (or not
// found). The ticket's later commands wait behind it. nil when the node is stopping.
func (a *connActor) lookupTicket(ctx actor.Context, tid engine.ID, pause time.Duration) *actor.Future {
	if f := a.ticketLookups[tid]; f != nil {
		return f
	}
	system, identity := ctx.ActorSystem(), strconv.FormatInt(tid, 10)
	var f *actor.Future
	f = offActor(ctx, a.cfg.Routines, 2*ticketLookupTimeout+pause, func() struct{} {
		time.Sleep(pause)
		c := cluster.GetCluster(system)
		pid := c.Get(identity, KindTicket)
		if pid != nil {
			c.PidCache.Set(identity, KindTicket, pid)
		}
		return struct{}{}
	}, func(struct{}, error) {
		if a.ticketLookups[tid] == f {
			delete(a.ticketLookups, tid)
		}
	})
	if f != nil {
		a.ticketLookups[tid] = f
	}
	return f
}

// completeTicketFuture completes out with a ticket's answer, or with an error reply.
func completeTicketFuture(ctx actor.Context, out *actor.Future, res any, err error) {
	if err != nil {
		res = ErrorReply(engine.Wrap(engine.ErrUnavailable, err))
	}
	ctx.Send(out.PID(), res)
}

// nodes maps each running actor system to its Node, so that code running inside an
// actor can tell which member owns an identity without a round trip, and call other
// actors as the node's own callers do.
var nodes sync.Map // *actor.ActorSystem -> *Node

// nodeOf is the Node of system; nil when system is not a node's.
func nodeOf(system *actor.ActorSystem) *Node {
	n, found := nodes.Load(system)
	if !found {
		return nil
	}
	return n.(*Node)
}

// ownerOf is the address of the member that owns kind/identity by system's current
// topology; ok is false when system is not a node's, or no member hosts kind yet.
func ownerOf(system *actor.ActorSystem, identity, kind string) (string, bool) {
	n := nodeOf(system)
	if n == nil {
		return "", false
	}
	owner := n.departures.owner(identity, kind)
	return owner, owner != ""
}
