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

// KindChat is the cluster kind of internal-chat actors; the identity is the chat id.
const KindChat = "chat"

// chatSnapshotType names the encoding of chat snapshots; bump it when
// engine.ChatState changes incompatibly.
const chatSnapshotType = "chat.v1"

// ChatConfig is what every chat actor shares. Zero fields take the defaults of
// TicketConfig (snapshot every 100 events, passivate after 10 min idle, 5 s appends).
type ChatConfig struct {
	Journal       engine.Journal
	Clock         engine.Clock // engine.SystemClock when nil
	Logger        zerolog.Logger
	SnapshotEvery int64
	IdleTimeout   time.Duration
	AppendTimeout time.Duration
}

// ChatKind returns the cluster kind hosting chat actors. A chat actor is the only
// writer of its stream chat/<id> in the cluster (virtual actor placement), like a
// ticket's: it authorises, decides, appends with the version it decided on, then
// evolves; a conflict (another activation wrote during a split) reloads and decides
// again.
func ChatKind(cfg ChatConfig) *cluster.Kind {
	tc := TicketConfig{Clock: cfg.Clock, SnapshotEvery: cfg.SnapshotEvery, IdleTimeout: cfg.IdleTimeout, AppendTimeout: cfg.AppendTimeout}
	tc.fill()
	cfg.Clock, cfg.SnapshotEvery, cfg.IdleTimeout, cfg.AppendTimeout = tc.Clock, tc.SnapshotEvery, tc.IdleTimeout, tc.AppendTimeout
	return cluster.NewKind(KindChat, actor.PropsFromProducer(func() actor.Actor {
		return &chatActor{cfg: cfg}
	}))
}

// ChatRequest is the JSON body of a wire.Command sent to a chat actor.
type ChatRequest struct {
	Principal engine.Principal `json:"principal"`
	Command   json.RawMessage  `json:"command"`
}

// ChatReply is the JSON body of a chat actor's successful reply.
type ChatReply struct {
	Chat     engine.ChatState `json:"chat"`
	Position int64            `json:"position"`
}

// QueryChatState returns the chat's state to a participant without changing it.
const QueryChatState = "chat.state"

var chatCommands = map[string]func([]byte) (engine.ChatCommand, error){
	engine.CreateChat{}.CommandName():      decodeChat[engine.CreateChat],
	engine.EditChat{}.CommandName():        decodeChat[engine.EditChat],
	engine.DeleteChat{}.CommandName():      decodeChat[engine.DeleteChat],
	engine.PostChatMessage{}.CommandName(): decodeChat[engine.PostChatMessage],
	engine.ReadChat{}.CommandName():        decodeChat[engine.ReadChat],
}

func decodeChat[C engine.ChatCommand](b []byte) (engine.ChatCommand, error) {
	var c C
	if len(b) == 0 {
		b = []byte("{}")
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, err
	}
	return c, nil
}

// chatActor hosts one chat aggregate. Actor state: touched only by Receive.
type chatActor struct {
	cfg ChatConfig
	log zerolog.Logger

	id     engine.ID
	stream string
	events *aggregateStream[engine.ChatState]
	loaded bool
	state  engine.ChatState
}

func (a *chatActor) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		if ci := cluster.GetClusterIdentity(ctx); ci != nil {
			a.id, _ = strconv.ParseInt(ci.Identity, 10, 64)
		}
		a.stream = engine.ChatStream(a.id)
		a.log = a.cfg.Logger.With().Str("actor", KindChat).Int64("chat_id", a.id).Logger()
		a.events = &aggregateStream[engine.ChatState]{journal: a.cfg.Journal, stream: a.stream,
			snapshotType: chatSnapshotType, every: a.cfg.SnapshotEvery, timeout: a.cfg.AppendTimeout, log: a.log,
			version: func(s engine.ChatState) int64 { return s.Version },
			fold: func(s engine.ChatState, r engine.RecordedEvent) (engine.ChatState, error) {
				ev, err := engine.DecodeChatEvent(r.Type, r.Data)
				if err != nil {
					return s, err
				}
				return engine.EvolveChat(s, ev), nil
			}}
		ctx.SetReceiveTimeout(a.cfg.IdleTimeout)
	case *actor.ReceiveTimeout:
		ctx.Poison(ctx.Self())
	case *wire.Command:
		ctx.Respond(a.handle(msg))
	}
}

func (a *chatActor) handle(cmd *wire.Command) *wire.Reply {
	if a.id <= 0 {
		return ErrorReply(engine.Wrap(engine.ErrNotFound, errors.New("chat actor without a valid identity")))
	}
	if err := a.ensureLoaded(); err != nil {
		return ErrorReply(engine.Wrap(engine.ErrUnavailable, err))
	}
	var req ChatRequest
	if err := json.Unmarshal(cmd.Payload, &req); err != nil {
		return ErrorReply(engine.Wrap(engine.ErrInvalidJSON, fmt.Errorf("chat request: %w", err)))
	}
	if cmd.Type == QueryChatState {
		// Reading needs what posting needs: a participant of the tenant.
		if err := engine.AuthorizeChat(req.Principal, a.state, engine.ReadChat{UserID: req.Principal.UserID}); err != nil {
			return ErrorReply(err)
		}
		return a.reply(ChatReply{Chat: a.state})
	}
	dec, ok := chatCommands[cmd.Type]
	if !ok {
		return ErrorReply(engine.Wrap(engine.ErrValidation, fmt.Errorf("unknown chat command %q", cmd.Type)))
	}
	c, err := dec(req.Command)
	if err != nil {
		return ErrorReply(engine.Wrap(engine.ErrValidation, err))
	}
	if create, ok := c.(engine.CreateChat); ok && create.ChatID != a.id {
		return ErrorReply(engine.Wrap(engine.ErrValidation, fmt.Errorf("create chat %d sent to actor %d", create.ChatID, a.id)))
	}
	if err := engine.AuthorizeChat(req.Principal, a.state, c); err != nil {
		return ErrorReply(err)
	}
	for attempt := 0; ; attempt++ {
		pos, err := a.decideAndAppend(c)
		if err == nil {
			return a.reply(ChatReply{Chat: a.state, Position: pos})
		}
		if errors.Is(err, engine.ErrConflict) && attempt < 2 {
			a.log.Warn().Err(err).Msg("journal conflict: reloading the chat")
			a.loaded = false
			if lerr := a.ensureLoaded(); lerr != nil {
				return ErrorReply(engine.Wrap(engine.ErrUnavailable, lerr))
			}
			continue
		}
		return ErrorReply(err)
	}
}

func (a *chatActor) decideAndAppend(c engine.ChatCommand) (int64, error) {
	events, err := engine.DecideChat(a.state, c, a.cfg.Clock.Now())
	if err != nil || len(events) == 0 {
		return 0, err
	}
	data := make([]engine.EventData, len(events))
	for i, ev := range events {
		typ, body, err := engine.EncodeChatEvent(ev)
		if err != nil {
			return 0, engine.Wrap(engine.ErrInternal, err)
		}
		data[i] = engine.EventData{Type: typ, Data: body}
	}
	company := a.state.CompanyID
	if create, ok := c.(engine.CreateChat); ok {
		company = create.CompanyID
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.AppendTimeout)
	defer cancel()
	res, err := a.cfg.Journal.Append(ctx, company, a.stream, a.state.Version, data...)
	if err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return 0, err
		}
		a.loaded = false // the append may have happened: read the truth next time
		return 0, engine.Wrap(engine.ErrUnavailable, fmt.Errorf("append %s: %w", a.stream, err))
	}
	for _, ev := range events {
		a.state = engine.EvolveChat(a.state, ev)
	}
	a.events.maybeSnapshot(a.state)
	return res.LastPosition(), nil
}

func (a *chatActor) reply(r ChatReply) *wire.Reply {
	r.Chat.Recent = nil // internal, not for callers
	body, err := json.Marshal(r)
	if err != nil {
		return ErrorReply(engine.Wrap(engine.ErrInternal, err))
	}
	return &wire.Reply{Payload: body}
}

func (a *chatActor) ensureLoaded() error {
	if a.loaded {
		return nil
	}
	state, err := a.events.load()
	if err != nil {
		return err
	}
	a.state, a.loaded = state, true
	return nil
}

// Chats sends commands to chat actors wherever the cluster placed them; it
// implements engine.ChatCommander.
type Chats struct{ Node *Node }

var _ engine.ChatCommander = Chats{}

// Chat implements engine.ChatCommander.
func (c Chats) Chat(ctx context.Context, p engine.Principal, id engine.ID, cmd engine.ChatCommand) (engine.ChatState, int64, error) {
	body, err := json.Marshal(cmd)
	if err != nil {
		return engine.ChatState{}, 0, fmt.Errorf("encode %s: %w", cmd.CommandName(), err)
	}
	r, err := c.call(ctx, p, id, cmd.CommandName(), body)
	return r.Chat, r.Position, err
}

// ChatState implements engine.ChatCommander.
func (c Chats) ChatState(ctx context.Context, p engine.Principal, id engine.ID) (engine.ChatState, error) {
	r, err := c.call(ctx, p, id, QueryChatState, nil)
	return r.Chat, err
}

func (c Chats) call(ctx context.Context, p engine.Principal, id engine.ID, typ string, cmd []byte) (ChatReply, error) {
	payload, err := json.Marshal(ChatRequest{Principal: p, Command: cmd})
	if err != nil {
		return ChatReply{}, fmt.Errorf("encode %s: %w", typ, err)
	}
	out, err := c.Node.Call(ctx, KindChat, strconv.FormatInt(id, 10), &wire.Command{Type: typ, Payload: payload, CompanyId: p.CompanyID})
	if err != nil {
		return ChatReply{}, err
	}
	var r ChatReply
	if err := json.Unmarshal(out, &r); err != nil {
		return ChatReply{}, fmt.Errorf("decode %s reply: %w", typ, err)
	}
	return r, nil
}
