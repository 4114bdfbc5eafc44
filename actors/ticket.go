package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/rs/zerolog"

	"atende/actors/wire"
	"atende/engine"
)

// KindTicket is the cluster kind of ticket actors; the identity is the ticket id.
const KindTicket = "ticket"

// ticketSnapshotType names the encoding of ticket snapshots. Bump it when
// engine.TicketState changes incompatibly: older snapshots are then ignored and the
// state is folded from the events again.
const ticketSnapshotType = "ticket.v1"

// TicketStream is the journal stream of a ticket.
func TicketStream(id engine.ID) string { return engine.TicketStream(id) }

// TicketConfig is what every ticket actor shares.
type TicketConfig struct {
	Journal engine.Journal
	Clock   engine.Clock // engine.SystemClock when nil
	Logger  zerolog.Logger
	// SnapshotEvery saves a snapshot once that many events were appended since the
	// last one (100 when zero).
	SnapshotEvery int64
	// IdleTimeout passivates an actor that received nothing for that long (10 min
	// when zero); it is rebuilt from the journal on its next message.
	IdleTimeout time.Duration
	// Dispatch, when set, is told about every event a command appended, after the
	// append — the wiring uses it to hand outbound messages to the connection actor.
	// It runs inside the actor: it must not block.
	Dispatch func(ctx actor.Context, state engine.TicketState, events []engine.TicketEvent)
	// AppendTimeout bounds one journal append (5 s when zero).
	AppendTimeout time.Duration
}

func (c *TicketConfig) fill() {
	if c.Clock == nil {
		c.Clock = engine.SystemClock{}
	}
	if c.SnapshotEvery <= 0 {
		c.SnapshotEvery = 100
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 10 * time.Minute
	}
	if c.AppendTimeout <= 0 {
		c.AppendTimeout = 5 * time.Second
	}
}

// TicketKind returns the cluster kind hosting ticket actors.
func TicketKind(cfg TicketConfig) *cluster.Kind {
	cfg.fill()
	return cluster.NewKind(KindTicket, actor.PropsFromProducer(func() actor.Actor {
		return &ticketActor{cfg: cfg}
	}))
}

// ticketActor hosts one ticket aggregate. Actor state: touched only by Receive.
type ticketActor struct {
	cfg TicketConfig
	log zerolog.Logger

	id            engine.ID
	stream        string
	loaded        bool
	state         engine.TicketState
	events        *aggregateStream[engine.TicketState] // reads back and snapshots stream
	conflictCount int
}

func (a *ticketActor) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		ci := cluster.GetClusterIdentity(ctx)
		if ci != nil {
			a.id, _ = strconv.ParseInt(ci.Identity, 10, 64)
		}
		a.stream = TicketStream(a.id)
		a.log = a.cfg.Logger.With().Str("actor", KindTicket).Int64("ticket_id", a.id).Logger()
		a.events = &aggregateStream[engine.TicketState]{journal: a.cfg.Journal, stream: a.stream,
			snapshotType: ticketSnapshotType, every: a.cfg.SnapshotEvery, timeout: a.cfg.AppendTimeout, log: a.log,
			version: func(s engine.TicketState) int64 { return s.Version },
			fold: func(s engine.TicketState, r engine.RecordedEvent) (engine.TicketState, error) {
				ev, err := engine.DecodeTicketEvent(r.Type, r.Data)
				if err != nil {
					return s, err
				}
				return engine.EvolveTicket(s, ev), nil
			}}
		ctx.SetReceiveTimeout(a.cfg.IdleTimeout)
	case *actor.ReceiveTimeout:
		ctx.Poison(ctx.Self())
	case *wire.Command:
		ctx.Respond(a.handle(ctx, msg))
	}
}

func (a *ticketActor) handle(actx actor.Context, cmd *wire.Command) *wire.Reply {
	if a.id <= 0 {
		return ErrorReply(engine.Wrap(engine.ErrNoTicketFound, errors.New("ticket actor without a valid identity")))
	}
	if err := a.ensureLoaded(); err != nil {
		return ErrorReply(engine.Wrap(engine.ErrUnavailable, err))
	}
	var req TicketRequest
	if err := json.Unmarshal(cmd.Payload, &req); err != nil {
		return ErrorReply(engine.Wrap(engine.ErrInvalidJSON, fmt.Errorf("ticket request: %w", err)))
	}
	switch cmd.Type {
	case QueryTicketState:
		if !a.visibleTo(cmd.CompanyId) {
			return ErrorReply(engine.E(engine.ErrNoTicketFound))
		}
		return a.reply(TicketReply{Ticket: a.state})
	case QueryProviderID:
		var q struct {
			ProviderID string `json:"providerId"`
		}
		_ = json.Unmarshal(req.Command, &q)
		_, known := a.state.ProviderIDs[q.ProviderID]
		return a.reply(TicketReply{Ticket: a.state, KnowsProvider: known && q.ProviderID != ""})
	}
	c, err := DecodeTicketCommand(cmd.Type, req.Command)
	if err != nil {
		return ErrorReply(engine.Wrap(engine.ErrValidation, err))
	}
	if open, ok := c.(engine.OpenTicket); ok && open.TicketID != a.id {
		return ErrorReply(engine.Wrap(engine.ErrValidation, fmt.Errorf("open ticket %d sent to actor %d", open.TicketID, a.id)))
	}
	if req.Principal != nil {
		if err := engine.AuthorizeTicket(*req.Principal, a.state, c); err != nil {
			return ErrorReply(err)
		}
	} else if _, isOpen := c.(engine.OpenTicket); !isOpen && !a.visibleTo(cmd.CompanyId) {
		return ErrorReply(engine.E(engine.ErrNoTicketFound))
	}
	if req.Connection != 0 && a.state.Exists() && a.state.ConnectionID != req.Connection {
		return ErrorReply(engine.Wrap(engine.ErrInvalidTransition,
			fmt.Errorf("ticket %d moved to connection %d", a.id, a.state.ConnectionID)))
	}
	// A stale stream (another activation appended meanwhile, e.g. during a split of
	// membership) costs a reload and a second decision; more than that is a fault.
	for attempt := 0; ; attempt++ {
		res, events, err := a.decideAndAppend(c)
		if err == nil {
			if len(events) > 0 && a.cfg.Dispatch != nil {
				a.cfg.Dispatch(actx, a.state, events)
			}
			return a.reply(res)
		}
		if errors.Is(err, engine.ErrConflict) && attempt < 2 {
			a.conflictCount++
			a.log.Warn().Err(err).Msg("journal conflict: reloading the ticket")
			a.loaded = false
			if lerr := a.ensureLoaded(); lerr != nil {
				return ErrorReply(engine.Wrap(engine.ErrUnavailable, lerr))
			}
			continue
		}
		return ErrorReply(err)
	}
}

func (a *ticketActor) visibleTo(company int64) bool {
	return a.state.Exists() && company != 0 && a.state.CompanyID == company
}

func (a *ticketActor) decideAndAppend(c engine.TicketCommand) (TicketReply, []engine.TicketEvent, error) {
	events, err := engine.DecideTicket(a.state, c, a.cfg.Clock.Now())
	if err != nil {
		return TicketReply{}, nil, err
	}
	if len(events) == 0 {
		return TicketReply{Ticket: a.state}, nil, nil
	}
	data := make([]engine.EventData, len(events))
	for i, ev := range events {
		typ, body, err := engine.EncodeTicketEvent(ev)
		if err != nil {
			return TicketReply{}, nil, engine.Wrap(engine.ErrInternal, err)
		}
		data[i] = engine.EventData{Type: typ, Data: body}
	}
	company := a.state.CompanyID
	if open, ok := c.(engine.OpenTicket); ok {
		company = open.CompanyID
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.AppendTimeout)
	defer cancel()
	res, err := a.cfg.Journal.Append(ctx, company, a.stream, a.state.Version, data...)
	if err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return TicketReply{}, nil, err
		}
		// The append may or may not have happened: forget the state so the next
		// command reads the truth from the journal.
		a.loaded = false
		return TicketReply{}, nil, engine.Wrap(engine.ErrUnavailable, fmt.Errorf("append %s: %w", a.stream, err))
	}
	for _, ev := range events {
		a.state = engine.EvolveTicket(a.state, ev)
	}
	a.events.maybeSnapshot(a.state)
	return TicketReply{Ticket: a.state, Position: res.LastPosition(), Events: len(events)}, events, nil
}

// reply encodes a successful answer.
func (a *ticketActor) reply(r TicketReply) *wire.Reply {
	r.Ticket.Messages, r.Ticket.ProviderIDs = nil, nil // internal index, not for callers
	body, err := json.Marshal(r)
	if err != nil {
		return ErrorReply(engine.Wrap(engine.ErrInternal, err))
	}
	return &wire.Reply{Payload: body}
}

func (a *ticketActor) ensureLoaded() error {
	if a.loaded {
		return nil
	}
	state, err := a.events.load()
	if err != nil {
		return err
	}
	a.state = state
	a.loaded = true
	return nil
}
