package actors

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"

	"atende/actors/wire"
	"atende/engine"
)

// Bizflow on the inbound path (docs/flows.md). A connection whose tenant has an
// active flow starting on it (or on any queue) hands each customer message of a
// pending ticket to the ticket's flow actor: a new ticket's first message starts the
// flow, later ones answer its waits. While a run holds the conversation the
// connection's greeting and queue menu stay silent — a connection with both a
// reception menu and a flow runs the flow. A connection without flows takes the path
// it always did, without asking anyone.

// FlowStarts tells whether flows start on a connection (persistence/flow.Store).
type FlowStarts interface {
	HasStarts(ctx context.Context, companyID, connectionID engine.ID) (bool, error)
}

// flowsRecheck is how long the connection trusts its answer to "does a flow start
// here": a flow saved or switched on reaches new tickets within this.
const flowsRecheck = 10 * time.Second

// flowsHere reports whether flows may start on this connection (cached).
func (a *connActor) flowsHere() bool {
	if a.cfg.Flows == nil || a.conn.CompanyID == 0 {
		return false
	}
	now := a.cfg.Clock.Now()
	if !a.flowCheckedAt.IsZero() && now.Sub(a.flowCheckedAt) < flowsRecheck {
		return a.flowHere
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
	defer cancel()
	has, err := a.cfg.Flows.HasStarts(ctx, a.conn.CompanyID, a.id)
	if err != nil {
		a.log.Warn().Err(err).Msg("flows: read starts")
		return a.flowHere
	}
	a.flowHere, a.flowCheckedAt = has, now
	return has
}

// flowMayRun reports whether a flow may take m: a pending, unassigned ticket of a
// person (not a group) on a connection where flows start.
func (a *connActor) flowMayRun(st engine.TicketState, m engine.InboundMessage) bool {
	return !st.IsGroup && !m.From.IsGroup && st.Status == engine.StatusPending && st.UserID == 0 && a.flowsHere()
}

// withFlow gives a customer message the ticket recorded to the ticket's flow (first
// is the message that opened the ticket); otherwise — no flow here, the ticket is a
// group's or no longer pending, or its flow actor answers that no run holds the
// conversation — it runs fallback (the greeting or the queue menu). A flow actor
// that does not answer in time is taken to hold it: it is busy with the run.
func (a *connActor) withFlow(ctx actor.Context, st engine.TicketState, m engine.InboundMessage, first bool, fallback func()) {
	if !a.flowMayRun(st, m) {
		fallback()
		return
	}
	typ, req := CmdFlowInbound, any(FlowInboundRequest{Body: m.Body})
	if first {
		typ, req = CmdFlowStart, FlowStartRequest{ConnectionID: a.id, QueueID: st.QueueID}
	}
	body, _ := json.Marshal(req)
	pid := cluster.GetCluster(ctx.ActorSystem()).Get(strconv.FormatInt(st.ID, 10), KindFlow)
	if pid == nil {
		fallback()
		return
	}
	f := ctx.RequestFuture(pid, &wire.Command{Type: typ, Payload: body, CompanyId: a.conn.CompanyID}, a.cfg.CallTimeout)
	ctx.ReenterAfter(f, func(res any, ferr error) {
		if ferr != nil {
			return
		}
		reply, ok := res.(*wire.Reply)
		if !ok {
			return
		}
		out, err := ReplyResult(reply)
		if err != nil {
			return
		}
		var r FlowReply
		if json.Unmarshal(out, &r) == nil && !r.Handled && r.Run.Status == "" {
			fallback()
		}
	})
}
