package node

import (
	"context"
	"time"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/rs/zerolog"

	"atende/actors"
	"atende/engine"
	"atende/goroutine"
	"atende/persistence/flow"
	"atende/transport/flowapi"
	"atende/transport/realtime"
)

// Bizflow wiring (docs/flows.md): the flow store, the hint table of unfinished runs,
// the wait timeouts and the sweep (worked by the node's River client, node.go), the
// flow actor kind and the /flows routes.
type liveFlows struct {
	store  *flow.Store
	runs   *flow.Runs
	timers *flow.Timers
}

// flowWaker hands the flow jobs to the flow actors through this node, once started.
type flowWaker struct{ l *live }

func (w flowWaker) Timeout(ctx context.Context, companyID, ticketID engine.ID, seq int64) error {
	return actors.Flows{Node: w.l.node}.Timeout(ctx, companyID, ticketID, seq)
}

func (w flowWaker) Wake(ctx context.Context, companyID, ticketID engine.ID) error {
	return actors.Flows{Node: w.l.node}.Wake(ctx, companyID, ticketID)
}

// newFlows builds the flow collaborators and the flow actor kind. The timers' jobs
// run once the node's River client starts (node.go).
func (l *live) newFlows(n *Node, log zerolog.Logger) (*cluster.Kind, error) {
	s := flow.NewStore(n.db, nil)
	f := &liveFlows{store: s, runs: flow.NewRuns(s)}
	var err error
	if f.timers, err = flow.NewTimers(n.db, f.runs, flowWaker{l: l}, flow.TimersConfig{Jobs: n.jobInserter}); err != nil {
		return nil, err
	}
	l.flows = f
	var ai engine.FlowAI // nil: ai nodes take their error branch ("AI not configured")
	if n.ai.AI != nil {
		ai = flowAI{ai: n.ai.AI}
	}
	return actors.FlowKind(actors.FlowConfig{Journal: l.journal, Flows: s, IDs: l.ids, Timers: f.timers, Runs: f.runs,
		AI: ai, Logger: log.With().Str("component", "flow").Logger()}), nil
}

// flowAI answers the flows' ai nodes with the tenant's AI endpoint (docs/ai.md); a
// tenant without one answers ERR_AI_NOT_CONFIGURED, and the node takes its error
// branch.
type flowAI struct{ ai engine.AI }

func (f flowAI) AskFlow(ctx context.Context, companyID engine.ID, instruction string, history []string) (string, error) {
	return f.ai.Complete(ctx, companyID, engine.FlowPrompt(instruction, history))
}

// flowRoutes serves the /flows routes; called before the API serves.
func (n *Node) flowRoutes() {
	l := n.live
	(&flowapi.Service{Flows: l.flows.store, Publisher: realtime.Bus{Journal: l.journal, Logger: n.log}}).Routes(n.api)
}

// wakeFlows carries on, now rather than at the next sweep, the runs a crashed process
// left mid-step; called once the node's River client works the flow jobs. The wake
// is bounded; it ends on its own.
func (n *Node) wakeFlows() {
	l := n.live
	goroutine.Go(func() {
		wctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := l.flows.timers.WakeRunning(wctx); err != nil {
			n.log.Warn().Err(err).Msg("flows: wake running runs")
		}
	})
}
