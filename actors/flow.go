package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/rs/zerolog"

	"atende/actors/wire"
	"atende/engine"
)

// KindFlow is the cluster kind of flow-run actors; the identity is the ticket id. A
// flow actor is the only writer of its run's stream flow/<ticketId> in the cluster
// (virtual actor placement). docs/flows.md describes the run.
const KindFlow = "flow"

// Commands of a flow actor (wire.Command types).
const (
	CmdFlowStart   = "flow.start"   // FlowStartRequest: start the flow of the ticket's connection or queue
	CmdFlowInbound = "flow.inbound" // FlowInboundRequest: the customer wrote
	CmdFlowTimeout = "flow.timeout" // FlowTimeoutRequest: a wait's timeout fell due
	CmdFlowWake    = "flow.wake"    // carry on a run left between two steps
	CmdFlowStop    = "flow.stop"    // FlowStopRequest: the ticket was accepted or closed
	CmdFlowState   = "flow.state"   // read the run
)

// FlowStartRequest asks a ticket's flow actor to start the flow that starts on the
// ticket's connection or queue.
type FlowStartRequest struct {
	ConnectionID engine.ID `json:"connectionId"`
	QueueID      engine.ID `json:"queueId"`
}

// FlowInboundRequest carries a customer message a ticket recorded.
type FlowInboundRequest struct {
	Body string `json:"body"`
}

// FlowTimeoutRequest names the wait whose timeout fell due.
type FlowTimeoutRequest struct {
	Seq int64 `json:"seq"`
}

// FlowStopRequest stops a live run.
type FlowStopRequest struct {
	Reason string `json:"reason"`
}

// FlowReply is a flow actor's answer: whether the run holds the conversation (it is
// running or waiting, so the connection's greeting and queue menu stay silent), and
// the run.
type FlowReply struct {
	Handled bool                `json:"handled"`
	Run     engine.FlowRunState `json:"run"`
}

// FlowTimers inserts a wait's durable timeout (persistence/flow.Timers).
type FlowTimers interface {
	ScheduleTimeout(ctx context.Context, companyID, ticketID engine.ID, seq int64, at time.Time) error
}

// FlowRunLog keeps the hint of unfinished runs (persistence/flow.Runs).
type FlowRunLog interface {
	Put(ctx context.Context, companyID, ticketID, flowID engine.ID, status string) error
	Remove(ctx context.Context, ticketID engine.ID) error
}

// FlowConfig is what every flow actor shares.
type FlowConfig struct {
	Journal engine.Journal
	Flows   engine.FlowStore
	IDs     engine.IDAllocator
	// Timers inserts wait timeouts. Required for flows with a wait.
	Timers FlowTimers
	// Runs, when set, records unfinished runs for the sweep that wakes them.
	Runs FlowRunLog
	// AI answers ai nodes; nil takes their error branch ("AI not configured").
	AI engine.FlowAI
	// HTTP calls http nodes; nil is a client that follows no redirect.
	HTTP   *http.Client
	Clock  engine.Clock // engine.SystemClock when nil
	Logger zerolog.Logger
	// CallTimeout bounds one call to a ticket actor, a store or the journal (5 s).
	CallTimeout time.Duration
	// IdleTimeout passivates an actor with nothing to do (1 min).
	IdleTimeout time.Duration
}

func (c *FlowConfig) fill() {
	if c.Clock == nil {
		c.Clock = engine.SystemClock{}
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = 5 * time.Second
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = time.Minute
	}
	if c.HTTP == nil {
		c.HTTP = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
}

// FlowKind returns the cluster kind hosting flow actors.
func FlowKind(cfg FlowConfig) *cluster.Kind {
	cfg.fill()
	return cluster.NewKind(KindFlow, actor.PropsFromProducer(func() actor.Actor {
		return &flowActor{cfg: cfg}
	}))
}

// flowActor runs one ticket's flow. Actor state: touched only by Receive.
type flowActor struct {
	cfg FlowConfig
	log zerolog.Logger

	id          engine.ID
	events      *aggregateStream[engine.FlowRunState]
	loaded      bool
	state       engine.FlowRunState
	pendingDone bool // the effect of state.Pending was done by this activation
}

func (a *flowActor) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		if ci := cluster.GetClusterIdentity(ctx); ci != nil {
			a.id, _ = strconv.ParseInt(ci.Identity, 10, 64)
		}
		a.log = a.cfg.Logger.With().Str("actor", KindFlow).Int64("ticket_id", a.id).Logger()
		a.events = &aggregateStream[engine.FlowRunState]{journal: a.cfg.Journal, stream: engine.FlowStream(a.id),
			snapshotType: "flow.v1", every: 50, timeout: a.cfg.CallTimeout, log: a.log,
			version: func(s engine.FlowRunState) int64 { return s.Version },
			fold: func(s engine.FlowRunState, r engine.RecordedEvent) (engine.FlowRunState, error) {
				ev, err := engine.DecodeFlowEvent(r.Type, r.Data)
				if err != nil {
					return s, err
				}
				return engine.EvolveFlow(s, ev, r.Version), nil
			}}
		ctx.SetReceiveTimeout(a.cfg.IdleTimeout)
	case *actor.ReceiveTimeout:
		ctx.Poison(ctx.Self())
	case *wire.Command:
		ctx.Respond(a.handle(ctx, msg))
	}
}

func (a *flowActor) handle(actx actor.Context, cmd *wire.Command) *wire.Reply {
	if a.id <= 0 {
		return ErrorReply(engine.Wrap(engine.ErrNotFound, errors.New("flow actor without a valid identity")))
	}
	if err := a.ensureLoaded(); err != nil {
		return ErrorReply(engine.Wrap(engine.ErrUnavailable, err))
	}
	if a.state.CompanyID != 0 && cmd.CompanyId != 0 && cmd.CompanyId != a.state.CompanyID {
		return ErrorReply(engine.E(engine.ErrNoTicketFound))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var err error
	switch cmd.Type {
	case CmdFlowStart:
		var req FlowStartRequest
		if err = json.Unmarshal(cmd.Payload, &req); err == nil {
			err = a.start(ctx, actx, cmd.CompanyId, req)
		}
	case CmdFlowInbound:
		var req FlowInboundRequest
		if err = json.Unmarshal(cmd.Payload, &req); err == nil && a.state.Status == engine.FlowWaiting {
			if err = a.checkTicket(ctx, actx); err == nil {
				err = a.decide(ctx, actx, engine.DecideFlowReply(a.state, req.Body))
			}
		}
	case CmdFlowTimeout:
		var req FlowTimeoutRequest
		if err = json.Unmarshal(cmd.Payload, &req); err == nil {
			if err = a.checkTicket(ctx, actx); err == nil {
				err = a.decide(ctx, actx, engine.DecideFlowTimeout(a.state, req.Seq))
			}
		}
	case CmdFlowWake:
		err = a.advance(ctx, actx)
	case CmdFlowStop:
		var req FlowStopRequest
		if err = json.Unmarshal(cmd.Payload, &req); err == nil {
			err = a.decide(ctx, actx, engine.DecideFlowStop(a.state, req.Reason, a.cfg.Clock.Now()))
		}
	case CmdFlowState:
	default:
		err = engine.Wrap(engine.ErrValidation, fmt.Errorf("unknown flow command %q", cmd.Type))
	}
	if err != nil {
		var e *engine.Error
		if errors.As(err, &e) && e.Code == engine.ErrValidation {
			return ErrorReply(err)
		}
		// The run stays where its journal says; the caller (a timeout job) tries
		// again, or the sweep or the next event wakes it.
		a.log.Warn().Err(err).Str("command", cmd.Type).Msg("flow")
		return ErrorReply(engine.Wrap(engine.ErrUnavailable, err))
	}
	if !a.state.Live() {
		// Nothing left to do here: passivate soon instead of holding memory.
		actx.SetReceiveTimeout(time.Second)
	}
	body, merr := json.Marshal(FlowReply{Handled: a.state.Live(), Run: a.state})
	if merr != nil {
		return ErrorReply(engine.Wrap(engine.ErrInternal, merr))
	}
	return &wire.Reply{Payload: body}
}

// start starts the flow of the ticket's connection or queue, if there is one and the
// ticket never ran a flow.
func (a *flowActor) start(ctx context.Context, actx actor.Context, companyID engine.ID, req FlowStartRequest) error {
	if a.state.Status != "" {
		return a.advance(ctx, actx)
	}
	f, ok, err := a.cfg.Flows.StartFor(ctx, companyID, req.ConnectionID, req.QueueID)
	if err != nil || !ok {
		return err
	}
	evs, err := engine.DecideFlowStart(a.state, f, a.id, req.ConnectionID, a.cfg.Clock.Now())
	if err != nil {
		return err
	}
	return a.decide(ctx, actx, evs)
}

// decide appends evs, then lets the run go on.
func (a *flowActor) decide(ctx context.Context, actx actor.Context, evs []engine.FlowEvent) error {
	if len(evs) == 0 {
		return nil
	}
	if err := a.append(ctx, evs); err != nil {
		return err
	}
	return a.advance(ctx, actx)
}

// advance does the effect of the last step if this activation has not, then runs
// nodes until the run waits or finishes. Every step is journaled before its effect.
func (a *flowActor) advance(ctx context.Context, actx actor.Context) error {
	if a.state.Pending != nil && !a.pendingDone {
		if err := a.effect(ctx, actx, *a.state.Pending); err != nil {
			return err
		}
		a.pendingDone = true
	}
	for a.state.Status == engine.FlowRunning {
		if err := a.checkTicket(ctx, actx); err != nil || a.state.Status != engine.FlowRunning {
			return err
		}
		in, err := a.stepInput(ctx)
		if err != nil {
			return err
		}
		evs := engine.DecideFlowStep(a.state, in)
		for _, ev := range evs {
			if w, ok := ev.(engine.FlowWaited); ok {
				// The timeout job first: a run that waits always has one. Inserted
				// again after a crash before the append, it is the same job.
				if a.cfg.Timers == nil {
					return errors.New("flow wait without timers")
				}
				if err := a.cfg.Timers.ScheduleTimeout(ctx, a.state.CompanyID, a.id, w.Seq, w.Until); err != nil {
					return err
				}
			}
		}
		if err := a.append(ctx, evs); err != nil {
			return err
		}
		if a.state.Pending != nil && !a.pendingDone {
			if err := a.effect(ctx, actx, *a.state.Pending); err != nil {
				return err
			}
			a.pendingDone = true
		}
	}
	return nil
}

// stepInput gets what the current node needs: a message id, the HTTP answer, the
// AI's answer.
func (a *flowActor) stepInput(ctx context.Context) (engine.FlowStepInput, error) {
	in := engine.FlowStepInput{Now: a.cfg.Clock.Now()}
	needs := engine.FlowNeedsOf(a.state)
	node, _ := a.state.Graph.Node(a.state.Node)
	if needs.HTTP {
		in.HTTPStatus, in.HTTPError = a.callHTTP(ctx, node)
	}
	if needs.AI {
		in.AIAnswer, in.AIError = a.askAI(ctx, node)
	}
	if needs.MessageID {
		id, err := a.cfg.IDs.Next(ctx, "message")
		if err != nil {
			return in, fmt.Errorf("message id: %w", err)
		}
		in.MessageID = id
	}
	return in, nil
}

// callHTTP calls an http node's endpoint. The request carries the step's
// idempotency key: a crash between the call and the journal calls again, with the
// same key. The answer's body is not read beyond 64 KiB.
func (a *flowActor) callHTTP(ctx context.Context, n engine.FlowNode) (int, string) {
	timeout := time.Duration(n.Data.TimeoutSeconds) * time.Second
	if timeout <= 0 {
		timeout = engine.FlowDefaultHTTPTO * time.Second
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	method := n.Data.Method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(n.Data.Body)
	}
	req, err := http.NewRequestWithContext(cctx, method, n.Data.URL, body)
	if err != nil {
		return 0, err.Error()
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Idempotency-Key", fmt.Sprintf("flow-%d-%d", a.id, a.state.Steps+1))
	req.Header.Set("X-Atende-Ticket", strconv.FormatInt(a.id, 10))
	res, err := a.cfg.HTTP.Do(req)
	if err != nil {
		if errors.Is(cctx.Err(), context.DeadlineExceeded) {
			return 0, "timeout"
		}
		return 0, "unreachable"
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
	return res.StatusCode, ""
}

// askAI asks the tenant's AI the node's question with the customer's last reply.
func (a *flowActor) askAI(ctx context.Context, n engine.FlowNode) (string, string) {
	if a.cfg.AI == nil {
		return "", engine.ErrFlowAINotConfigured.Error()
	}
	answer, err := a.cfg.AI.AskFlow(ctx, a.state.CompanyID, n.Data.Text, []string{a.state.LastReply})
	if err != nil {
		if errors.Is(err, engine.ErrFlowAINotConfigured) {
			return "", engine.ErrFlowAINotConfigured.Error()
		}
		return "", "AI error"
	}
	return answer, ""
}

// effect does what a step says to the ticket. Each is safe to do again: a message
// is keyed by the message id the step recorded (the ticket records an id once), a
// tag set or a transfer to where the ticket already is changes nothing.
func (a *flowActor) effect(ctx context.Context, actx actor.Context, s engine.FlowStepped) error {
	var cmd engine.TicketCommand
	switch {
	case s.MessageID != 0:
		send := engine.SendAutomaticMessage{MessageID: s.MessageID, Body: s.Body}
		if s.MediaURL != "" {
			send.MediaType, send.MediaURL = engine.MediaImage, s.MediaURL
		}
		cmd = send
	case s.Kind == engine.FlowTag && s.TagID != 0:
		st, err := a.ticket(ctx, actx, nil)
		if err != nil {
			return err
		}
		for _, id := range st.Ticket.TagIDs {
			if id == s.TagID {
				return nil
			}
		}
		cmd = engine.SetTags{TagIDs: append(append([]engine.ID{}, st.Ticket.TagIDs...), s.TagID)}
	case s.Kind == engine.FlowQueue && s.QueueID != 0:
		cmd = engine.Transfer{QueueID: s.QueueID}
	case s.Kind == engine.FlowTransfer:
		cmd = engine.Transfer{UserID: s.UserID, QueueID: s.QueueID}
	default:
		return nil
	}
	_, err := a.ticket(ctx, actx, cmd)
	switch engine.CodeOf(err) {
	case engine.ErrUnavailable, engine.ErrInternal:
		if err != nil {
			return err
		}
	}
	if err != nil {
		// Refused for good (a queue that no longer exists, a closed ticket): the
		// step is done as far as it can be; the run goes on or stops at the next
		// ticket check.
		a.log.Warn().Err(err).Int64("step", s.Step).Str("node", s.NodeID).Msg("flow step refused by the ticket")
	}
	return nil
}

// checkTicket stops a live run whose ticket an attendant took or that closed.
func (a *flowActor) checkTicket(ctx context.Context, actx actor.Context) error {
	if !a.state.Live() {
		return nil
	}
	r, err := a.ticket(ctx, actx, nil)
	if err != nil && engine.CodeOf(err) != engine.ErrNoTicketFound {
		return err
	}
	reason := engine.FlowTicketStops(r.Ticket)
	if err != nil {
		reason = engine.FlowReasonClosed
	}
	if reason == "" {
		return nil
	}
	return a.append(ctx, engine.DecideFlowStop(a.state, reason, a.cfg.Clock.Now()))
}

// ticket sends cmd (nil: a state query) to the run's ticket as the system.
func (a *flowActor) ticket(ctx context.Context, actx actor.Context, cmd engine.TicketCommand) (TicketReply, error) {
	w, err := ticketWireCommand(a.id, nil, a.state.ConnectionID, a.state.CompanyID, cmd)
	if err != nil {
		return TicketReply{}, err
	}
	timeout := a.cfg.CallTimeout
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < timeout {
		timeout = time.Until(dl)
	}
	res, err := cluster.GetCluster(actx.ActorSystem()).Request(strconv.FormatInt(a.id, 10), KindTicket, w, cluster.WithTimeout(timeout))
	return ticketResult(res, err)
}

// append journals evs at the run's version, then folds them and updates the hint.
func (a *flowActor) append(ctx context.Context, evs []engine.FlowEvent) error {
	if len(evs) == 0 {
		return nil
	}
	data := make([]engine.EventData, len(evs))
	for i, ev := range evs {
		typ, body, err := engine.EncodeFlowEvent(ev)
		if err != nil {
			return engine.Wrap(engine.ErrInternal, err)
		}
		data[i] = engine.EventData{Type: typ, Data: body}
	}
	company := a.state.CompanyID
	if s, ok := evs[0].(engine.FlowStarted); ok {
		company = s.CompanyID
	}
	actx, cancel := context.WithTimeout(ctx, a.cfg.CallTimeout)
	defer cancel()
	if _, err := a.cfg.Journal.Append(actx, company, engine.FlowStream(a.id), a.state.Version, data...); err != nil {
		// Another activation wrote, or the append may have happened: read the truth
		// next time.
		a.loaded = false
		return fmt.Errorf("append %s: %w", engine.FlowStream(a.id), err)
	}
	for _, ev := range evs {
		if _, ok := ev.(engine.FlowStepped); ok {
			a.pendingDone = false
		}
		a.state = engine.EvolveFlow(a.state, ev, a.state.Version+1)
	}
	a.events.maybeSnapshot(a.state)
	if a.cfg.Runs != nil {
		var err error
		if a.state.Live() {
			err = a.cfg.Runs.Put(actx, a.state.CompanyID, a.id, a.state.FlowID, a.state.Status)
		} else {
			err = a.cfg.Runs.Remove(actx, a.id)
		}
		if err != nil {
			a.log.Warn().Err(err).Msg("flow run hint")
		}
	}
	return nil
}

func (a *flowActor) ensureLoaded() error {
	if a.loaded {
		return nil
	}
	st, err := a.events.load()
	if err != nil {
		return err
	}
	a.state, a.loaded, a.pendingDone = st, true, false
	return nil
}

// Flows sends commands to flow actors wherever the cluster placed them; it
// implements persistence/flow.Waker for the timeout and sweep jobs.
type Flows struct{ Node *Node }

// Timeout implements flow.Waker.
func (f Flows) Timeout(ctx context.Context, companyID, ticketID engine.ID, seq int64) error {
	_, err := f.Do(ctx, companyID, ticketID, CmdFlowTimeout, FlowTimeoutRequest{Seq: seq})
	return err
}

// Wake implements flow.Waker.
func (f Flows) Wake(ctx context.Context, companyID, ticketID engine.ID) error {
	_, err := f.Do(ctx, companyID, ticketID, CmdFlowWake, struct{}{})
	return err
}

// Do sends one command to the flow actor of ticketID.
func (f Flows) Do(ctx context.Context, companyID, ticketID engine.ID, typ string, req any) (FlowReply, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return FlowReply{}, err
	}
	out, err := f.Node.Call(ctx, KindFlow, strconv.FormatInt(ticketID, 10), &wire.Command{Type: typ, Payload: body, CompanyId: companyID})
	if err != nil {
		return FlowReply{}, err
	}
	var r FlowReply
	if err := json.Unmarshal(out, &r); err != nil {
		return FlowReply{}, fmt.Errorf("decode %s reply: %w", typ, err)
	}
	return r, nil
}

// StopFlows wraps a ticket actor's Dispatch hook: when an attendant takes a ticket
// (accept, a transfer to a person) or it is resolved or deleted, the ticket's flow
// actor is told to stop, so a waiting run ends at once rather than at its next reply
// or timeout. Fire-and-forget: a run that misses it still stops before its next step,
// which checks the ticket first.
func StopFlows(next func(actor.Context, engine.TicketState, []engine.TicketEvent)) func(actor.Context, engine.TicketState, []engine.TicketEvent) {
	return func(ctx actor.Context, st engine.TicketState, events []engine.TicketEvent) {
		if next != nil {
			next(ctx, st, events)
		}
		reason := ""
		for _, ev := range events {
			switch e := ev.(type) {
			case engine.TicketAccepted:
				reason = engine.FlowReasonAccepted
			case engine.TicketTransferred:
				if e.ToUserID != 0 {
					reason = engine.FlowReasonAccepted
				}
			case engine.TicketResolved, engine.TicketDeleted:
				reason = engine.FlowReasonClosed
			}
		}
		if reason == "" || st.IsGroup {
			return
		}
		pid := cluster.GetCluster(ctx.ActorSystem()).Get(strconv.FormatInt(st.ID, 10), KindFlow)
		if pid == nil {
			return
		}
		body, _ := json.Marshal(FlowStopRequest{Reason: reason})
		ctx.Send(pid, &wire.Command{Type: CmdFlowStop, Payload: body, CompanyId: st.CompanyID})
	}
}
