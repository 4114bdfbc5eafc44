package actors

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/rs/zerolog"

	"atende/actors/wire"
	"atende/engine"
)

// KindConnection is the cluster kind of connection actors; the identity is the
// connection id. A connection actor is the only holder of its channel session in the
// whole cluster: it starts the channel, turns what the channel hears into ticket
// commands, and sends what attendants write.
const KindConnection = "connection"

// Commands a connection actor answers (wire.Command.Type).
const (
	// CmdConnectionStart activates the actor (and so its channel); idempotent.
	CmdConnectionStart = "connection.start"
	// CmdConnectionRestart stops the channel and starts it again with a fresh
	// read of the connection row (after an edit, or to renew a session).
	CmdConnectionRestart = "connection.restart"
	// CmdConnectionDeliver sends an outbound message (a DeliverRequest).
	CmdConnectionDeliver = "connection.deliver"
	// CmdConnectionFarewell sends the farewell message of a resolved ticket.
	CmdConnectionFarewell = "connection.farewell"
	// CmdConnectionOpenTicket opens a ticket for a contact on behalf of a person (an
	// OpenTicketRequest); ERR_OTHER_OPEN_TICKET when the contact already has one
	// pending or open on this connection.
	CmdConnectionOpenTicket = "connection.open_ticket"
	// CmdConnectionInbound records a message a provider delivered to any node (a
	// web-hook, a visitor socket): an engine.InboundMessage. The reply comes once the
	// message is durable in its ticket, so the caller may then acknowledge the provider.
	CmdConnectionInbound = "connection.inbound"
	// CmdConnectionReceipt records a delivery receipt (an engine.Receipt).
	CmdConnectionReceipt = "connection.receipt"
	// CmdConnectionStatus records a session state change (an engine.StatusChange) that
	// a node other than the channel's learned, e.g. from a provider's web-hook.
	CmdConnectionStatus = "connection.status"
	// CmdConnectionStop ends the channel's session (DISCONNECTED) until the next start
	// or restart.
	CmdConnectionStop = "connection.stop"
	// CmdConnectionWipe ends the session and wipes the credentials the channel keeps
	// (engine.CredentialWiper), so the next start pairs afresh.
	CmdConnectionWipe = "connection.wipe"
	// CmdConnectionContacts reads the address book of the channel's session
	// (engine.ContactLister): the reply is the []engine.PhoneContact. A channel
	// without one answers ErrNoDefWappFound, a session not started or not paired
	// ErrWappNotInitialized.
	CmdConnectionContacts = "connection.contacts"
)

// DeliverRequest asks a connection to send one message of a ticket.
type DeliverRequest struct {
	TicketID  engine.ID `json:"ticketId"`
	MessageID engine.ID `json:"messageId"`
	ContactID engine.ID `json:"contactId"`
	Body      string    `json:"body"`
	MediaType string    `json:"mediaType,omitempty"`
	MediaURL  string    `json:"mediaUrl,omitempty"`
	QuotedID  engine.ID `json:"quotedId,omitempty"`
	// QueueID and IsGroup are the resolved ticket's, for the farewell's survey.
	QueueID engine.ID `json:"queueId,omitempty"`
	IsGroup bool      `json:"isGroup,omitempty"`
}

// OpenTicketRequest asks a connection to open a ticket for a contact.
type OpenTicketRequest struct {
	Principal engine.Principal `json:"principal"`
	ContactID engine.ID        `json:"contactId"`
	UserID    engine.ID        `json:"userId,omitempty"`
	QueueID   engine.ID        `json:"queueId,omitempty"`
	Status    string           `json:"status"`
	// What a caller inside the server may have read just before, so that the actor
	// need not read it again: the contact's number, and (CurrentRead) the contact's
	// current ticket on this connection in the guard, 0 for none. The actor's own
	// memory wins over both. A stale Current costs nothing but a lost claim: the
	// guard's swap compares it, and a mismatch answers the ticket the guard holds.
	Number      string    `json:"number,omitempty"`
	Current     engine.ID `json:"current,omitempty"`
	CurrentRead bool      `json:"currentRead,omitempty"`
}

// ConnectionConfig is what every connection actor shares.
type ConnectionConfig struct {
	Connections engine.ConnectionStore
	Contacts    engine.ContactStore
	// Queues, when set, is read for the satisfaction survey: a ticket resolved in a
	// queue with the nps flag gets the rating question after the farewell, and the
	// customer's answer gets the queue's encouraging message. Nil: no survey.
	Queues engine.QueueStore
	// Bots, when set, holds the tenant's reception-menu bot levels; nil (or a tenant
	// without levels) leaves the connection's queues as the only menu. Settings, when
	// set, gives the tenant's time zone for the queues' business hours (the default
	// zone when nil).
	Bots     engine.BotStore
	Settings engine.SettingStore
	Guard    engine.TicketGuard
	IDs      engine.IDAllocator
	Channels engine.ChannelFactory
	// Journal receives the connection's status changes (stream connection/<id>).
	Journal engine.Journal
	// Outbox, when set, lists messages recorded but never sent; the actor sends them
	// once its channel has started (after a crash of the node that held it).
	Outbox engine.Outbox
	// Attempts, when set, makes sends at most once across activations on channels
	// that cannot de-duplicate a re-send (not engine.IdempotentSender): an attempt is
	// recorded before a message's Send, and a message the outbox lists whose attempt
	// is recorded is failed (ERR_CHANNEL_OUTCOME_UNKNOWN) instead of sent again.
	Attempts engine.SendAttemptLog
	// AttemptRetention is how long an attempt row of a message that no longer waits
	// is kept before it is pruned (1 h when zero); pruning runs at every channel start
	// and every AttemptRetention after.
	AttemptRetention time.Duration
	// Locator, when set, finds messages by the channel's id in the durable record,
	// for what the actor's memory does not know (after a restart or a hand-over):
	// receipts and quotes of earlier sends, revokes, and redeliveries of messages
	// stored in an earlier ticket.
	Locator engine.ProviderLocator
	// CustomersKept bounds the customers an activation remembers (their contact,
	// number, current ticket and its opening): between this many and twice as many,
	// those active lately (0: defaultCustomersKept). A customer forgotten is learned
	// again, off the actor, on their next message.
	CustomersKept int
	// Intents, when set, routes a new ticket by its first message on a connection with
	// several queues (connection_intent.go); nil: the queue menu alone.
	Intents engine.IntentRouter
	Clock   engine.Clock // engine.SystemClock when nil
	Logger  zerolog.Logger
	// CallTimeout bounds one call to a ticket actor or a store (5 s when zero).
	CallTimeout time.Duration
	// SendAttempts is how often a temporary send failure is retried (8 when zero),
	// with exponential backoff from SendBackoff (500 ms when zero) up to 1 min.
	SendAttempts int
	SendBackoff  time.Duration
	// Routines tracks the goroutines that run channel calls; the wiring closes it on
	// shutdown. Required.
	Routines *Routines
	// Flows, when set, hands customer messages of pending tickets to their Bizflow
	// run where flows start on the connection (connection_flow.go). Nil: no flows.
	Flows FlowStarts

	// afterClaim, in tests, runs between a ticket's guard claim and its opening
	// in the journal, to hold that window open.
	afterClaim func(contactID engine.ID)
}

func (c *ConnectionConfig) fill() {
	if c.Clock == nil {
		c.Clock = engine.SystemClock{}
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = 5 * time.Second
	}
	if c.SendAttempts <= 0 {
		c.SendAttempts = 8
	}
	if c.SendBackoff <= 0 {
		c.SendBackoff = 500 * time.Millisecond
	}
	if c.Routines == nil {
		c.Routines = &Routines{}
	}
	if c.AttemptRetention <= 0 {
		c.AttemptRetention = time.Hour
	}
}

// ConnectionKind returns the cluster kind hosting connection actors.
func ConnectionKind(cfg ConnectionConfig) *cluster.Kind {
	cfg.fill()
	return cluster.NewKind(KindConnection, actor.PropsFromProducer(func() actor.Actor {
		return &connActor{cfg: cfg}
	}))
}

// ConnectionStream is the journal stream of a connection's status changes.
func ConnectionStream(id engine.ID) string { return engine.ConnectionStream(id) }

// connActor hosts one connection. Actor state: touched only by Receive and the
// continuations it schedules (which the actor runs one at a time, too).
type connActor struct {
	cfg ConnectionConfig
	log zerolog.Logger

	// part: this is an inbound partition of the connection (KindInbound,
	// connection_partition.go), without a channel; partition is its number.
	part      bool
	partition int

	id       engine.ID
	conn     engine.Connection
	loaded   bool
	loadedAt time.Time // when conn was read (a partition reads it again after partitionRefresh)
	// refreshing: a partition's read of its connection row is in flight.
	refreshing bool
	channel    engine.Channel
	started    bool // the channel's Start returned nil
	// idempotent: the channel de-duplicates re-sends (engine.IdempotentSender), so
	// no attempt is recorded and the outbox re-sends after a restart.
	idempotent bool
	gen        int // bumps on every (re)start, to drop results of an older session

	// The customers seen lately (recent.go: bounded by CustomersKept; what is
	// forgotten is learned again off the actor).
	contacts *recent[string, engine.ID]    // channel number -> contact id
	numbers  *recent[engine.ID, string]    // contact id -> channel number
	tickets  *recent[engine.ID, engine.ID] // contact id -> ticket id (cache of the guard)
	since    *recent[engine.ID, opened]    // contact id -> its current ticket's opening, as far as known
	out      outbound                      // what this activation handed to the channel (outbound.go)
	// ticketLookups: tickets whose PID is being looked up outside the actor -> that
	// lookup, which their later commands wait on (connection_tickets.go).
	ticketLookups map[engine.ID]*actor.Future
	// resolving: numbers being looked up (welcome) or having a ticket opened
	// (openForNumber) outside the actor -> that work's future, which their later
	// messages and opens wait on.
	resolving map[string]*actor.Future
	// learning: contacts whose number is being read for a delivery (learnNumber) ->
	// that read's future, which later deliveries to them wait on.
	learning map[engine.ID]*actor.Future
	// flowHere: whether flows start on this connection, as read at flowCheckedAt
	// (connection_flow.go).
	flowHere      bool
	flowCheckedAt time.Time
}

func (a *connActor) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		a.init(ctx)
	case *actor.Stopping:
		a.stopChannel()
	case *wire.Command:
		if a.part {
			a.partitionCommand(ctx, msg)
		} else {
			a.command(ctx, msg)
		}
	case *inboundMsg:
		a.onInbound(ctx, msg)
	case *receiptMsg:
		ctx.Respond(&sinkAnswer{err: a.onReceipt(ctx, msg.r)})
	case *statusMsg:
		ctx.Respond(&sinkAnswer{err: a.onStatus(msg.s)})
	case *startResult:
		a.onStartResult(ctx, msg)
	case *sendResult:
		a.onSendResult(ctx, msg)
	case *retryDeliver:
		if msg.to != "" {
			a.relaunch(ctx, msg.req, msg.attempt, msg.to)
		} else {
			a.deliver(ctx, msg.req, msg.attempt)
		}
	case *pruneTick:
		if msg.gen == a.gen {
			a.pruneAttempts(ctx)
		}
	}
}

func (a *connActor) init(ctx actor.Context) {
	var identity string
	if ci := cluster.GetClusterIdentity(ctx); ci != nil {
		identity = ci.Identity
	}
	if a.part {
		var err error
		if a.id, a.partition, err = parseInboundIdentity(identity); err != nil {
			a.cfg.Logger.Error().Err(err).Msg("inbound partition idle")
		}
		a.log = a.cfg.Logger.With().Str("actor", KindInbound).Int64("conn_id", a.id).Int("partition", a.partition).Logger()
	} else {
		a.id, _ = strconv.ParseInt(identity, 10, 64)
		a.log = a.cfg.Logger.With().Str("actor", KindConnection).Int64("conn_id", a.id).Logger()
	}
	kept := a.cfg.CustomersKept
	if kept <= 0 {
		kept = defaultCustomersKept
	}
	a.contacts = newRecent[string, engine.ID](kept)
	a.numbers = newRecent[engine.ID, string](kept)
	a.tickets = newRecent[engine.ID, engine.ID](kept)
	a.since = newRecent[engine.ID, opened](kept)
	a.out = newOutbound(outboundIndexSize, settledKept)
	a.ticketLookups = map[engine.ID]*actor.Future{}
	a.resolving = map[string]*actor.Future{}
	a.learning = map[engine.ID]*actor.Future{}
	if a.part {
		if a.id != 0 {
			a.ensureLoaded(ctx)
		}
		return
	}
	a.startChannel(ctx)
}

func (a *connActor) command(ctx actor.Context, cmd *wire.Command) {
	switch cmd.Type {
	case CmdConnectionStart:
		if !a.loaded {
			a.startChannel(ctx)
		}
		ctx.Respond(a.okReply(a.conn))
	case CmdConnectionRestart:
		a.stopChannel()
		a.loaded = false
		a.startChannel(ctx)
		ctx.Respond(a.okReply(a.conn))
	case CmdConnectionDeliver:
		var req DeliverRequest
		if err := json.Unmarshal(cmd.Payload, &req); err != nil {
			ctx.Respond(ErrorReply(engine.Wrap(engine.ErrInvalidJSON, err)))
			return
		}
		a.deliver(ctx, req, 0)
		ctx.Respond(&wire.Reply{})
	case CmdConnectionCampaign:
		m, err := decodeCampaign(cmd)
		if err != nil {
			ctx.Respond(ErrorReply(err))
			return
		}
		a.ensureLoaded(ctx)
		if cmd.CompanyId != 0 && a.loaded && cmd.CompanyId != a.conn.CompanyID {
			ctx.Respond(ErrorReply(engine.E(engine.ErrNoWappFound)))
			return
		}
		a.campaignSend(ctx, m)
	case CmdConnectionGroup:
		req, err := decodeGroup(cmd)
		if err != nil {
			ctx.Respond(ErrorReply(err))
			return
		}
		a.ensureLoaded(ctx)
		// A group is created only for the connection's own tenant.
		if cmd.CompanyId == 0 || !a.loaded || cmd.CompanyId != a.conn.CompanyID {
			ctx.Respond(ErrorReply(engine.E(engine.ErrNoWappFound)))
			return
		}
		a.createGroup(ctx, req)
	case CmdConnectionFarewell:
		var req DeliverRequest
		if err := json.Unmarshal(cmd.Payload, &req); err != nil {
			ctx.Respond(ErrorReply(engine.Wrap(engine.ErrInvalidJSON, err)))
			return
		}
		a.sendAutomatic(ctx, req.TicketID, a.conn.FarewellMessage, a.conn.FarewellMedia)
		a.askRating(ctx, req)
		ctx.Respond(&wire.Reply{})
	case CmdConnectionOpenTicket:
		var req OpenTicketRequest
		if err := json.Unmarshal(cmd.Payload, &req); err != nil {
			ctx.Respond(ErrorReply(engine.Wrap(engine.ErrInvalidJSON, err)))
			return
		}
		a.openForPersonWhenSettled(ctx, cmd.CompanyId, req)
	case CmdConnectionInbound:
		var m engine.InboundMessage
		if err := json.Unmarshal(cmd.Payload, &m); err != nil {
			ctx.Respond(ErrorReply(engine.Wrap(engine.ErrInvalidJSON, err)))
			return
		}
		a.onInbound(ctx, &inboundMsg{m: m}) // answers through a.answer
	case CmdConnectionReceipt:
		var r engine.Receipt
		if err := json.Unmarshal(cmd.Payload, &r); err != nil {
			ctx.Respond(ErrorReply(engine.Wrap(engine.ErrInvalidJSON, err)))
			return
		}
		a.answer(ctx, a.onReceipt(ctx, r))
	case CmdConnectionStatus:
		var st engine.StatusChange
		if err := json.Unmarshal(cmd.Payload, &st); err != nil {
			ctx.Respond(ErrorReply(engine.Wrap(engine.ErrInvalidJSON, err)))
			return
		}
		a.answer(ctx, a.onStatus(st))
	case CmdConnectionContacts:
		a.ensureLoaded(ctx)
		list, err := a.phoneContacts()
		if err != nil {
			ctx.Respond(ErrorReply(err))
			return
		}
		ctx.Respond(a.okReply(list))
	case CmdConnectionStop, CmdConnectionWipe:
		a.ensureLoaded(ctx)
		a.endChannel()
		var err error
		if cmd.Type == CmdConnectionWipe {
			err = a.wipeCredentials()
		}
		if err == nil && a.loaded {
			err = a.onStatus(engine.StatusChange{Status: engine.ConnDisconnected, Reason: cmd.Type})
		}
		a.answer(ctx, err)
	default:
		ctx.Respond(ErrorReply(engine.Wrap(engine.ErrValidation, fmt.Errorf("unknown connection command %q", cmd.Type))))
	}
}

// answer replies to the message being handled — a wire command from another node or
// the local channel's sink — with err (nil: done). Continuations run with the message
// that scheduled them, so an asynchronous answer reaches the right caller too.
func (a *connActor) answer(ctx actor.Context, err error) {
	if _, ok := ctx.Message().(*wire.Command); ok {
		if err != nil {
			ctx.Respond(ErrorReply(err))
			return
		}
		ctx.Respond(&wire.Reply{})
		return
	}
	ctx.Respond(&sinkAnswer{err: err})
}

// ensureLoaded reads the connection row if the actor has not yet, without starting
// the channel.
func (a *connActor) ensureLoaded(ctx actor.Context) {
	if a.loaded {
		return
	}
	cctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
	defer cancel()
	conn, err := a.cfg.Connections.Lookup(cctx, a.id)
	if err != nil {
		a.log.Warn().Err(err).Msg("connection row not found")
		return
	}
	a.conn, a.loaded, a.loadedAt = conn, true, a.cfg.Clock.Now()
}

// wipeCredentials asks the connection's channel to forget its session credentials.
// Channels without any (web-hook channels, the web chat) have nothing to wipe.
func (a *connActor) wipeCredentials() error {
	if !a.loaded {
		return engine.Wrap(engine.ErrNoWappFound, fmt.Errorf("connection %d", a.id))
	}
	ch, err := a.cfg.Channels.NewChannel(a.conn)
	if err != nil {
		return engine.Wrap(engine.ErrInternal, err)
	}
	w, ok := ch.(engine.CredentialWiper)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
	defer cancel()
	return w.WipeCredentials(ctx)
}

// phoneContacts reads the address book of the running channel's session.
func (a *connActor) phoneContacts() ([]engine.PhoneContact, error) {
	if !a.loaded {
		return nil, engine.Wrap(engine.ErrNoWappFound, fmt.Errorf("connection %d", a.id))
	}
	lister, ok := a.channel.(engine.ContactLister)
	if !ok {
		return nil, engine.Wrap(engine.ErrNoDefWappFound, fmt.Errorf("channel %s of connection %d keeps no address book", a.conn.Channel, a.id))
	}
	if !a.started {
		return nil, engine.Wrap(engine.ErrWappNotInitialized, fmt.Errorf("connection %d not started", a.id))
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
	defer cancel()
	return lister.PhoneContacts(ctx)
}

func (a *connActor) okReply(v any) *wire.Reply {
	body, err := json.Marshal(v)
	if err != nil {
		return ErrorReply(engine.Wrap(engine.ErrInternal, err))
	}
	return &wire.Reply{Payload: body}
}

// startChannel reads the connection row and starts its channel in a tracked
// goroutine (a provider handshake may take seconds); the result comes back as a
// startResult message.
func (a *connActor) startChannel(ctx actor.Context) {
	cctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
	defer cancel()
	conn, err := a.cfg.Connections.Lookup(cctx, a.id)
	if err != nil {
		a.log.Warn().Err(err).Msg("connection row not found: actor idle")
		return
	}
	a.conn, a.loaded, a.loadedAt = conn, true, a.cfg.Clock.Now()
	ch, err := a.cfg.Channels.NewChannel(conn)
	if err != nil {
		a.log.Error().Err(err).Str("channel", conn.Channel).Msg("no channel adapter")
		return
	}
	a.gen++
	gen, self, system := a.gen, ctx.Self(), ctx.ActorSystem()
	a.channel = ch
	a.idempotent = engine.ResendIsIdempotent(ch)
	sink := &actorSink{system: system, pid: self, timeout: a.cfg.CallTimeout}
	if n := a.partitioned(system); n != nil {
		sink.partitions = Connections{Node: n}.Sink(a.id)
	}
	a.cfg.Routines.Go(func() {
		err := ch.Start(context.Background(), sink)
		system.Root.Send(self, &startResult{gen: gen, err: err})
	})
}

type startResult struct {
	gen int
	err error
}

func (a *connActor) onStartResult(ctx actor.Context, m *startResult) {
	if m.gen != a.gen {
		return
	}
	if m.err != nil {
		a.log.Error().Err(m.err).Msg("channel did not start")
		_ = a.onStatus(engine.StatusChange{Status: engine.ConnDisconnected, Reason: m.err.Error()})
		return
	}
	a.started = true
	a.log.Info().Str("channel", a.conn.Channel).Msg("channel started")
	a.resendPending(ctx)
	a.pruneAttempts(ctx)
}

// resendPending hands the channel what tickets recorded for it but no channel ever
// accepted. On a channel that de-duplicates re-sends (engine.IdempotentSender) every
// such message goes out again, a send that completed just before a crash included.
// On the others (with an attempt log) a message whose attempt was recorded may have
// reached the customer already: it is failed with ERR_CHANNEL_OUTCOME_UNKNOWN, not
// sent, so delivery there is at most once; messages never attempted are sent.
func (a *connActor) resendPending(ctx actor.Context) {
	if a.cfg.Outbox == nil {
		return
	}
	cctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
	defer cancel()
	pending, err := a.cfg.Outbox.PendingOutbound(cctx, a.id, 500)
	if err != nil {
		a.log.Warn().Err(err).Msg("read unsent messages")
		return
	}
	var attempted map[engine.ID]bool
	if a.cfg.Attempts != nil && !a.idempotent && len(pending) > 0 {
		ids := make([]engine.ID, len(pending))
		for i, p := range pending {
			ids[i] = p.MessageID
		}
		if attempted, err = a.cfg.Attempts.Attempted(cctx, a.id, ids); err != nil {
			// Without the record a re-send could be a duplicate: send nothing now;
			// the next activation tries again.
			a.log.Warn().Err(err).Msg("read send attempts: unsent messages left for the next start")
			return
		}
	}
	for _, p := range pending {
		req := DeliverRequest{TicketID: p.TicketID, MessageID: p.MessageID, ContactID: p.ContactID,
			Body: p.Body, MediaType: p.MediaType, MediaURL: p.MediaURL, QuotedID: p.QuotedID}
		if attempted[p.MessageID] {
			if a.out.admit(p.MessageID) {
				a.out.settle(p.MessageID)
				a.log.Warn().Int64("ticket_id", p.TicketID).Int64("message_id", p.MessageID).
					Msg("send attempted before a restart, outcome unknown: message failed, not sent again")
				a.recordFailure(ctx, req, engine.E(engine.ErrChannelOutcomeUnknown))
			}
			continue
		}
		a.deliver(ctx, req, 0)
	}
	if len(pending) > 0 {
		a.log.Info().Int("messages", len(pending)).Int("failed_outcome_unknown", len(attempted)).
			Msg("re-sending messages recorded but not sent")
	}
}

type pruneTick struct{ gen int }

// pruneAttempts removes, in a tracked goroutine, the attempt rows of messages that no
// longer wait to be sent, recorded more than AttemptRetention ago (the delay keeps a
// row while the read model may still show its message at ack 0), and schedules the
// next pruning of this session. A channel that de-duplicates re-sends records no
// attempts, so it has none to prune.
func (a *connActor) pruneAttempts(ctx actor.Context) {
	if a.cfg.Attempts == nil || a.idempotent {
		return
	}
	store, id, keep, timeout := a.cfg.Attempts, a.id, a.cfg.AttemptRetention, a.cfg.CallTimeout
	before, log := a.cfg.Clock.Now().Add(-keep), a.log
	a.cfg.Routines.Go(func() {
		pctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		if n, err := store.Prune(pctx, id, before); err != nil {
			log.Warn().Err(err).Msg("prune send attempts")
		} else if n > 0 {
			log.Debug().Int64("rows", n).Msg("send attempts pruned")
		}
	})
	gen, self, system := a.gen, ctx.Self(), ctx.ActorSystem()
	time.AfterFunc(keep, func() { system.Root.Send(self, &pruneTick{gen: gen}) })
}

func (a *connActor) stopChannel() { a.letGo(false) }

// endChannel stops the channel because a person stopped the connection: a channel
// whose sessions reach past this node (engine.ChannelEnder) ends them everywhere.
func (a *connActor) endChannel() { a.letGo(true) }

func (a *connActor) letGo(end bool) {
	if a.channel == nil {
		return
	}
	ch := a.channel
	a.channel, a.started = nil, false
	a.gen++
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
	defer cancel()
	var err error
	if e, ok := ch.(engine.ChannelEnder); ok && end {
		err = e.End(ctx)
	} else {
		err = ch.Stop(ctx)
	}
	if err != nil {
		a.log.Warn().Err(err).Msg("stop channel")
	}
}

// onStatus records a session state change: on the connection row for the screens,
// and in the journal so every node's sockets hear it in order.
func (a *connActor) onStatus(s engine.StatusChange) error {
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
	defer cancel()
	if err := a.cfg.Connections.SetStatus(ctx, a.id, s); err != nil {
		return err
	}
	a.conn.Status, a.conn.QRCode = s.Status, s.QRCode
	if a.cfg.Journal == nil {
		return nil
	}
	body, err := json.Marshal(engine.ConnectionStatusChanged{ConnectionID: a.id, Status: s.Status, QRCode: s.QRCode,
		Number: s.Number, Reason: s.Reason, At: a.cfg.Clock.Now().UTC()})
	if err != nil {
		return err
	}
	_, err = a.cfg.Journal.Append(ctx, a.conn.CompanyID, ConnectionStream(a.id), engine.AnyVersion,
		engine.EventData{Type: engine.EvConnectionStatus, Data: body})
	return err
}
