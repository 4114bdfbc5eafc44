package readmodel_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/readmodel"
)

// world is a test tenant setup with a projection fed by events decided by the engine
// itself, so every event a test applies is one the ticket actor could write.
type world struct {
	t    *testing.T
	d    *db.DB
	proj *readmodel.Projection
	q    *readmodel.Queries

	now      time.Time
	position int64
	states   map[engine.ID]engine.TicketState
	nextMsg  engine.ID
	// log keeps every recorded event, in position order, for replays.
	log []engine.RecordedEvent
}

// base is the fixtures' start time: 2026-11-22 10:00 in Cuiabá.
var base = time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)

func newWorld(t *testing.T, d *db.DB) *world {
	t.Helper()
	q, err := readmodel.NewQueries(d, readmodel.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return &world{t: t, d: d, proj: readmodel.NewProjection(zerolog.Nop()), q: q, now: base,
		states: map[engine.ID]engine.TicketState{}, nextMsg: 1000}
}

// tick moves the clock one second on and returns it.
func (w *world) tick() time.Time {
	w.now = w.now.Add(time.Second)
	return w.now
}

// exec runs a setup statement, with SQLite's times as text.
func (w *world) exec(query string, args ...any) {
	w.t.Helper()
	if _, err := w.d.SQL.Exec(query, args...); err != nil {
		w.t.Fatalf("%s: %v", query, err)
	}
}

func (w *world) ts(t time.Time) any {
	if w.d.Dialect == db.SQLite {
		return t.UTC().Format("2006-01-02T15:04:05.000000Z")
	}
	return t
}

func (w *world) company(id engine.ID) {
	w.exec(`INSERT INTO companies (id, name) VALUES ($1, $2)`, id, fmt.Sprintf("company %d", id))
}

func (w *world) user(company, id engine.ID, name, profile string) {
	w.exec(`INSERT INTO users (id, company_id, name, name_key, search, email, password_hash, profile, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $4, $5, 'x', $6, $7, $7)`, id, company, name, engine.FoldSearchText(name),
		fmt.Sprintf("u%d@example.com", id), profile, w.ts(base))
}

func (w *world) queue(company, id engine.ID, name, color string) {
	w.exec(`INSERT INTO queues (id, company_id, name, color, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)`,
		id, company, name, color, w.ts(base))
}

func (w *world) tag(company, id engine.ID, name, color string) {
	w.exec(`INSERT INTO tags (id, company_id, name, name_key, color, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)`,
		id, company, name, engine.FoldSearchText(name), color, w.ts(base))
}

// contact inserts a contact the way the contact store lays it out (migration 0151).
func (w *world) contact(company, id engine.ID, name, number, email string) {
	norm := engine.FoldSearchText(name)
	w.exec(`INSERT INTO contacts (id, company_id, name, name_norm, number, email, search, profile_pic_url, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)`, id, company, name, norm, number, email,
		norm+"\x1f"+number+"\x1f"+email, "https://pics.example/"+strconv.FormatInt(id, 10), w.ts(base))
}

// do decides cmd on ticket id at the next tick and applies the events in one batch.
func (w *world) do(id engine.ID, cmd engine.TicketCommand) []engine.RecordedEvent {
	w.t.Helper()
	evs := w.decide(id, cmd)
	w.apply(evs)
	return evs
}

// decide decides cmd on ticket id at the next tick and records the events (without
// applying them).
func (w *world) decide(id engine.ID, cmd engine.TicketCommand) []engine.RecordedEvent {
	w.t.Helper()
	s := w.states[id].Clone()
	at := w.tick()
	tevs, err := engine.DecideTicket(s, cmd, at)
	if err != nil {
		w.t.Fatalf("decide %s on ticket %d: %v", cmd.CommandName(), id, err)
	}
	var out []engine.RecordedEvent
	for _, te := range tevs {
		s = engine.EvolveTicket(s, te)
		typ, data, err := engine.EncodeTicketEvent(te)
		if err != nil {
			w.t.Fatal(err)
		}
		w.position++
		company := s.CompanyID
		out = append(out, engine.RecordedEvent{Position: w.position, StreamID: readmodel.TicketStreamPrefix + strconv.FormatInt(id, 10),
			Version: s.Version, Type: typ, Data: data, CompanyID: company, RecordedAt: at})
	}
	w.states[id] = s
	w.log = append(w.log, out...)
	return out
}

// apply runs one batch through the projection in its own transaction.
func (w *world) apply(evs []engine.RecordedEvent) {
	w.t.Helper()
	if len(evs) == 0 {
		return
	}
	err := w.d.Tx(context.Background(), func(tx *sql.Tx) error {
		return w.proj.Apply(context.Background(), tx, w.d, evs)
	})
	if err != nil {
		w.t.Fatalf("apply: %v", err)
	}
}

// open opens a pending (user 0) or open ticket.
func (w *world) open(company, id, contact, queue, user engine.ID, protocol string) {
	w.t.Helper()
	status := engine.StatusPending
	if user != 0 {
		status = engine.StatusOpen
	}
	w.do(id, engine.OpenTicket{TicketID: id, UUID: fmt.Sprintf("uuid-%d", id), CompanyID: company, ContactID: contact,
		ConnectionID: 1, Channel: engine.ChannelWhatsApp, QueueID: queue, UserID: user, Status: status, Protocol: protocol})
}

// receive records an inbound message and returns its id.
func (w *world) receive(id engine.ID, body string) engine.ID {
	w.t.Helper()
	w.nextMsg++
	w.do(id, engine.ReceiveMessage{MessageID: w.nextMsg, Body: body, ProviderID: "p" + strconv.FormatInt(w.nextMsg, 10)})
	return w.nextMsg
}

// send records an attendant's message and returns its id.
func (w *world) send(id, user engine.ID, body string, quoted engine.ID) engine.ID {
	w.t.Helper()
	w.nextMsg++
	w.do(id, engine.SendMessage{MessageID: w.nextMsg, SenderID: user, Body: body, QuotedID: quoted})
	return w.nextMsg
}

func principal(company, user engine.ID, profile string, queues ...engine.ID) engine.Principal {
	return engine.Principal{UserID: user, CompanyID: company, Profile: profile, QueueIDs: queues}
}

// ids lists the ticket ids of a page, in order.
func ids(ts []engine.Ticket) []engine.ID {
	out := make([]engine.ID, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

func list(t *testing.T, w *world, p engine.Principal, q engine.TicketQuery) engine.TicketPage {
	t.Helper()
	page, err := w.q.ListTickets(context.Background(), p, q)
	if err != nil {
		t.Fatalf("ListTickets(%+v): %v", q, err)
	}
	return page
}

// sameIDs compares as sets.
func sameIDs(a, b []engine.ID) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// wantCode checks that err is an *engine.Error of code.
func wantCode(t *testing.T, err error, code engine.Code) {
	t.Helper()
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("error = %v, want %s", err, code)
	}
}
