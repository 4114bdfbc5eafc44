package realtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/transport/socket"
)

// Socket event names and actions of spec section 7.
const (
	EventTicket          = "ticket"
	EventAppMessage      = "appMessage"
	EventWhatsappSession = "whatsappSession"

	ActionUpdate       = "update"
	ActionDelete       = "delete"
	ActionUpdateUnread = "updateUnread"
	ActionCreate       = "create"
)

var statusRooms = []socket.Room{
	socket.TicketsRoom(engine.StatusPending), socket.TicketsRoom(engine.StatusOpen), socket.TicketsRoom(engine.StatusClosed),
}

// ticketCache reads each ticket of a batch from the read model once.
type ticketCache struct {
	q    engine.TicketQueries
	seen map[engine.ID]*engine.Ticket // nil entry: not in the read model
}

func newTicketCache(q engine.TicketQueries) *ticketCache {
	return &ticketCache{q: q, seen: map[engine.ID]*engine.Ticket{}}
}

// bulkTickets is implemented by read models that read many tickets in one query.
type bulkTickets interface {
	GetTickets(ctx context.Context, companyID engine.ID, ids []engine.ID) ([]engine.Ticket, error)
}

// prefetch reads at once every ticket the batch's events touch, when the read model
// can; what it cannot find stays for get to read (or mark missing) one by one.
func (c *ticketCache) prefetch(ctx context.Context, evs []engine.RecordedEvent) {
	bulk, ok := c.q.(bulkTickets)
	if !ok {
		return
	}
	byCompany := map[engine.ID][]engine.ID{}
	for _, ev := range evs {
		if !strings.HasPrefix(ev.StreamID, "ticket/") {
			continue
		}
		id, err := strconv.ParseInt(strings.TrimPrefix(ev.StreamID, "ticket/"), 10, 64)
		if err != nil {
			continue
		}
		if _, seen := c.seen[id]; !seen && !slices.Contains(byCompany[ev.CompanyID], id) {
			byCompany[ev.CompanyID] = append(byCompany[ev.CompanyID], id)
		}
	}
	for company, ids := range byCompany {
		ts, err := bulk.GetTickets(ctx, company, ids)
		if err != nil {
			return // get reads them one by one and reports the error
		}
		for i := range ts {
			c.seen[ts[i].ID] = &ts[i]
		}
	}
}

func (c *ticketCache) get(ctx context.Context, company, id engine.ID) (*engine.Ticket, error) {
	if t, ok := c.seen[id]; ok {
		return t, nil
	}
	t, err := c.q.GetTicket(ctx, company, id)
	switch {
	case err == nil:
		c.seen[id] = &t
		return &t, nil
	case engine.CodeOf(err) == engine.ErrNoTicketFound:
		c.seen[id] = nil
		return nil, nil
	default:
		return nil, err
	}
}

// holders are who may see a ticket event besides those who see the ticket as it now
// is: the previous holder and queue of a ticket that moved, so it leaves their lists.
type holders struct {
	users  []engine.ID
	queues []engine.ID
}

// visibility is the Filter of a ticket's events: engine.SeesTicket of the ticket as it
// now is, or of the ticket with a previous holder or queue (the status stays the
// current one: a reopened ticket is not shown to all as a closed one would be).
func visibility(t *engine.Ticket, h holders) socket.Filter {
	now := engine.Ticket{CompanyID: t.CompanyID, Status: t.Status, QueueID: t.QueueID, UserID: t.UserID, Guests: t.Guests}
	was := make([]engine.Ticket, 0, len(h.users)+len(h.queues))
	for _, u := range h.users {
		was = append(was, engine.Ticket{CompanyID: t.CompanyID, Status: t.Status, QueueID: t.QueueID, UserID: u, Guests: t.Guests})
	}
	for _, q := range h.queues {
		was = append(was, engine.Ticket{CompanyID: t.CompanyID, Status: t.Status, QueueID: q, UserID: t.UserID, Guests: t.Guests})
	}
	return socket.FilterFunc(func(sp socket.Principal) bool {
		p := engine.Principal{UserID: sp.UserID, CompanyID: sp.CompanyID, Profile: sp.Profile, QueueIDs: sp.QueueIDs}
		if engine.SeesTicket(p, now) {
			return true
		}
		for _, w := range was {
			if engine.SeesTicket(p, w) {
				return true
			}
		}
		return false
	})
}

func payload(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode payload: %w", err)
	}
	return b, nil
}

func (p *Publisher) ticketEvent(ctx context.Context, rec engine.RecordedEvent, tickets *ticketCache, messages *messageCache) (*socket.Event, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(rec.StreamID, "ticket/"), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("ticket stream %q: %w", rec.StreamID, err)
	}
	ev, err := engine.DecodeTicketEvent(rec.Type, rec.Data)
	if err != nil {
		return nil, err
	}
	chat := socket.ChatBoxRoom(id)
	if del, ok := ev.(engine.TicketDeleted); ok {
		body, err := payload(map[string]any{"action": ActionDelete, "ticketId": id})
		if err != nil {
			return nil, err
		}
		gone := &engine.Ticket{ID: id, CompanyID: rec.CompanyID, Status: engine.StatusOpen, UserID: del.UserID, QueueID: del.QueueID}
		return &socket.Event{Rooms: append(append([]socket.Room{}, statusRooms...), socket.NotificationRoom(), chat),
			Exempt: []socket.Room{chat}, Name: EventTicket, Payload: body, Filter: visibility(gone, holders{})}, nil
	}
	t, err := tickets.get(ctx, rec.CompanyID, id)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, nil // deleted since, or not projected: nothing worth showing
	}
	if out, ok, err := invitationEvent(t, ev); ok {
		return out, err
	}
	var h holders
	var left socket.Room // the status room a move left; zero: not a move
	switch e := ev.(type) {
	case engine.TicketTransferred:
		h = holders{users: []engine.ID{e.FromUserID}, queues: []engine.ID{e.FromQueueID}}
		left = socket.TicketsRoom(e.FromStatus)
	case engine.TicketReturned:
		h = holders{users: []engine.ID{e.FromUserID}}
		left = socket.TicketsRoom(engine.StatusOpen)
	case engine.TicketReopened:
		h = holders{users: []engine.ID{e.FromUserID}}
		left = socket.TicketsRoom(engine.StatusClosed)
	case engine.TicketAccepted:
		left = socket.TicketsRoom(engine.StatusPending)
	case engine.TicketResolved:
		left = socket.TicketsRoom(engine.StatusOpen)
	}
	filter := visibility(t, h)
	switch e := ev.(type) {
	case engine.TicketMessageReceived:
		return p.messageCreated(rec, t, filter, engine.Message{ID: e.MessageID, Body: e.Body, MediaType: e.MediaType,
			MediaURL: e.MediaURL, ProviderID: e.ProviderID, QuotedMsg: p.quotes.quote(e.QuotedID), CreatedAt: e.At})
	case engine.TicketMessageSent:
		return p.messageCreated(rec, t, filter, engine.Message{ID: e.MessageID, SenderID: e.SenderID, FromMe: true, Read: true,
			Body: e.Body, MediaType: e.MediaType, MediaURL: e.MediaURL, ProviderID: e.ProviderID, Ack: e.Ack,
			QuotedMsg: p.quotes.quote(e.QuotedID), CreatedAt: e.At})
	case engine.TicketWhisperAdded:
		return p.messageCreated(rec, t, filter, engine.Message{ID: e.MessageID, SenderID: e.SenderID, FromMe: true, Read: true,
			Body: e.Body, MediaType: e.Media(), CreatedAt: e.At})
	case engine.TicketMessageTranslated:
		return p.messageUpdated(rec, t, messages, e.MessageID, map[string]any{"id": e.MessageID, "ticketId": id,
			"translation": e.Body, "translationLanguage": e.Language})
	case engine.TicketMessageAcked:
		return p.messageUpdated(rec, t, messages, e.MessageID, map[string]any{"id": e.MessageID, "ticketId": id, "ack": e.Ack})
	case engine.TicketMessageDeleted:
		return p.messageUpdated(rec, t, messages, e.MessageID, map[string]any{"id": e.MessageID, "ticketId": id, "isDeleted": true})
	case engine.TicketMessageFailed:
		return p.messageUpdated(rec, t, messages, e.MessageID, map[string]any{"id": e.MessageID, "ticketId": id, "failed": true})
	case engine.TicketRead:
		body, err := payload(map[string]any{"action": ActionUpdateUnread, "ticketId": id, "ticket": t})
		if err != nil {
			return nil, err
		}
		return &socket.Event{Rooms: withGuests(append(append([]socket.Room{}, statusRooms...), socket.NotificationRoom(), chat), t),
			Exempt: []socket.Room{chat}, Name: EventTicket, Payload: body, Filter: filter}, nil
	}
	// whaticket's rooms: the update goes to the room of the ticket's status (and to
	// notification and the chat box); a move also sends, first, a delete to the
	// status room it left — even when that is the room it is in, since a list that
	// only adds on update and removes on delete must drop a ticket handed to someone
	// else. The delete says moved: true, so a client that also gets the update (ours)
	// can tell it from the ticket's deletion.
	body, err := payload(map[string]any{"action": ActionUpdate, "ticket": t})
	if err != nil {
		return nil, err
	}
	out := &socket.Event{Rooms: withGuests([]socket.Room{socket.TicketsRoom(t.Status), socket.NotificationRoom(), chat}, t),
		Exempt: []socket.Room{chat}, Name: EventTicket, Payload: body, Filter: filter}
	if left.Valid() {
		lead, err := payload(map[string]any{"action": ActionDelete, "ticketId": id, "moved": true})
		if err != nil {
			return nil, err
		}
		out.Lead = &socket.Lead{Rooms: []socket.Room{left}, Payload: lead}
	}
	return out, nil
}

// messageCreated is appMessage create: to the ticket's chat box (whoever opened it),
// and to the lists and notifications of those who may see the ticket.
func (p *Publisher) messageCreated(rec engine.RecordedEvent, t *engine.Ticket, filter socket.Filter, m engine.Message) (*socket.Event, error) {
	m.CompanyID, m.TicketID, m.ContactID, m.Contact = rec.CompanyID, t.ID, t.ContactID, t.Contact
	if m.MediaURL != "" && p.cfg.SignMedia != nil {
		m.MediaURL = p.cfg.SignMedia(rec.CompanyID, m.MediaURL)
	}
	m.UpdatedAt = m.CreatedAt
	p.quotes.add(m)
	body, err := payload(map[string]any{"action": ActionCreate, "message": m, "ticket": t, "contact": t.Contact})
	if err != nil {
		return nil, err
	}
	chat := socket.ChatBoxRoom(t.ID)
	return &socket.Event{Rooms: withGuests([]socket.Room{chat, socket.NotificationRoom(), socket.TicketsRoom(t.Status)}, t),
		Exempt: []socket.Room{chat}, Name: EventAppMessage, Payload: body, Filter: filter}, nil
}

// withGuests adds the user rooms of t's guests to rooms: a guest's sockets get the
// ticket's updates and messages whether or not they joined the status room the
// ticket is in (a socket in several rooms gets an event once; the Filter,
// engine.SeesTicket, admits guests).
func withGuests(rooms []socket.Room, t *engine.Ticket) []socket.Room {
	for _, g := range t.Guests {
		rooms = append(rooms, socket.UserRoom(g))
	}
	return rooms
}

// messageUpdated is appMessage update (acks, deletions, failures): only the chat box
// shows it. It carries the whole message as the read model holds it, as whaticket
// sends it — whaticket's chat replaces the message it shows with the event's, so a
// receipt carrying only the changed fields would blank it. A message the read model
// cannot give (a read model without GetMessages) goes out as the changed fields.
func (p *Publisher) messageUpdated(rec engine.RecordedEvent, t *engine.Ticket, messages *messageCache, id engine.ID, fields map[string]any) (*socket.Event, error) {
	var msg any = fields
	if m := messages.get(rec.CompanyID, id); m != nil {
		whole := *m
		if whole.MediaURL != "" && p.cfg.SignMedia != nil {
			whole.MediaURL = p.cfg.SignMedia(rec.CompanyID, whole.MediaURL)
		}
		msg = whole
	}
	body, err := payload(map[string]any{"action": ActionUpdate, "message": msg})
	if err != nil {
		return nil, err
	}
	return &socket.Event{Rooms: []socket.Room{socket.ChatBoxRoom(t.ID)}, Name: EventAppMessage, Payload: body}, nil
}

// bulkMessages is implemented by read models that read many messages in one query
// (persistence/readmodel's Queries).
type bulkMessages interface {
	GetMessages(ctx context.Context, companyID engine.ID, ids []engine.ID) ([]engine.Message, error)
}

// messageCache holds the messages a batch's updates touch, read at once.
type messageCache struct {
	byID map[engine.ID]*engine.Message
}

// newMessageCache reads every message the batch's receipts, deletions and failures
// name, when q can; on failure the events carry the changed fields only.
func newMessageCache(ctx context.Context, q engine.TicketQueries, evs []engine.RecordedEvent, log zerolog.Logger) *messageCache {
	c := &messageCache{byID: map[engine.ID]*engine.Message{}}
	bulk, ok := q.(bulkMessages)
	if !ok {
		return c
	}
	byCompany := map[engine.ID][]engine.ID{}
	for _, ev := range evs {
		var id engine.ID
		switch ev.Type {
		case engine.EvTicketMessageAcked, engine.EvTicketMessageDeleted, engine.EvTicketMessageFailed, engine.EvTicketMessageTranslated:
			var ref struct {
				MessageID engine.ID `json:"messageId"`
			}
			if json.Unmarshal(ev.Data, &ref) != nil {
				continue
			}
			id = ref.MessageID
		default:
			continue
		}
		if id > 0 {
			byCompany[ev.CompanyID] = append(byCompany[ev.CompanyID], id)
		}
	}
	for company, ids := range byCompany {
		ms, err := bulk.GetMessages(ctx, company, ids)
		if err != nil {
			log.Warn().Err(err).Int64("company", company).Msg("read updated messages: publishing the changed fields")
			continue
		}
		for i := range ms {
			if ms[i].CompanyID == company {
				c.byID[ms[i].ID] = &ms[i]
			}
		}
	}
	return c
}

func (c *messageCache) get(company, id engine.ID) *engine.Message {
	if m := c.byID[id]; m != nil && m.CompanyID == company {
		return m
	}
	return nil
}

func connectionEvent(rec engine.RecordedEvent) (*socket.Event, error) {
	if rec.Type != engine.EvConnectionStatus {
		return nil, nil
	}
	var e engine.ConnectionStatusChanged
	if err := json.Unmarshal(rec.Data, &e); err != nil {
		return nil, fmt.Errorf("decode %s: %w", rec.Type, err)
	}
	body, err := payload(map[string]any{"action": ActionUpdate, "session": map[string]any{
		"id": e.ConnectionID, "status": e.Status, "qrcode": e.QRCode, "number": e.Number, "updatedAt": e.At}})
	if err != nil {
		return nil, err
	}
	return &socket.Event{Rooms: []socket.Room{socket.CompanyRoom()}, Name: EventWhatsappSession, Payload: body}, nil
}

func noticeEvent(rec engine.RecordedEvent) (*socket.Event, error) {
	if rec.Type != EvRealtime {
		return nil, nil
	}
	var n Notice
	if err := json.Unmarshal(rec.Data, &n); err != nil {
		return nil, fmt.Errorf("decode notice: %w", err)
	}
	if n.Event == "" || len(n.Payload) == 0 || n.Payload[0] != '{' {
		return nil, errors.New("notice without event or object payload")
	}
	room := socket.CompanyRoom()
	if n.UserID != 0 {
		room = socket.UserRoom(n.UserID)
	}
	ev := &socket.Event{Rooms: []socket.Room{room}, Name: n.Event, Payload: n.Payload}
	if perm := n.Permission; perm != "" {
		ev.Filter = socket.FilterFunc(func(p socket.Principal) bool { return engine.Can(p.Profile, perm) })
	}
	return ev, nil
}

// quoteCache remembers recent messages so that a reply can carry what it quotes
// without a query; older quotes carry only their id (the client looks them up).
type quoteCache struct {
	max   int
	byID  map[engine.ID]engine.QuotedMessage
	order []engine.ID
}

func newQuoteCache(max int) *quoteCache {
	return &quoteCache{max: max, byID: map[engine.ID]engine.QuotedMessage{}}
}

func (c *quoteCache) add(m engine.Message) {
	q := engine.QuotedMessage{ID: m.ID, FromMe: m.FromMe, Body: m.Body}
	if !m.FromMe && m.Contact != nil {
		q.ContactName = m.Contact.Name
	}
	if _, ok := c.byID[m.ID]; !ok {
		c.order = append(c.order, m.ID)
	}
	c.byID[m.ID] = q
	for len(c.order) > c.max {
		delete(c.byID, c.order[0])
		c.order = c.order[1:]
	}
}

func (c *quoteCache) quote(id engine.ID) *engine.QuotedMessage {
	if id == 0 {
		return nil
	}
	if q, ok := c.byID[id]; ok {
		return &q
	}
	return &engine.QuotedMessage{ID: id}
}
