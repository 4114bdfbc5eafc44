package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/journal"
	"atende/persistence/store"
	httpapi "atende/transport/http"
	"atende/transport/media"
)

// Fixtures of the ticket and message route tests. The commander is a world, so that
// the routes are tested without starting actors: it judges commands with the real engine
// (AuthorizeTicket, DecideTicket, EvolveTicket) in process, records each command it
// is asked, and keeps a read model that — like the real projection — trails it: the
// read model catches up only when the handler waits for a position (fakeWaiter).
// Users, queues and tags are the real stores on a real database, the history reads a
// real journal, and uploads go to a real media store.

// call is one command the commander was asked.
type call struct {
	P      engine.Principal
	Ticket engine.ID
	Cmd    engine.TicketCommand
}

// pendingEvents are events the read model has not applied yet.
type pendingEvents struct {
	pos    int64
	ticket engine.ID
	events []engine.TicketEvent
}

// world implements engine.TicketCommander, engine.TicketQueries,
// engine.MessageLocator and httpapi.Waiter.
type world struct {
	mu     sync.Mutex
	now    time.Time
	names  map[engine.ID]string // user names for the read model
	states map[engine.ID]engine.TicketState
	views  map[engine.ID]engine.Ticket
	msgs   map[engine.ID][]engine.Message // by ticket, oldest first
	pos    int64
	lag    []pendingEvents
	nextID engine.ID

	calls   []call
	opens   []engine.OpenTicketInput
	waits   []int64
	waitErr error // WaitFor fails with it (and applies nothing)

	lastQuery engine.TicketQuery // Location taken out into lastZone
	lastZone  string             // the zone the handler handed over (the tenant's)
	lastP     engine.Principal
	lastMsgQ  engine.MessageQuery
	page      engine.TicketPage // the canned answer of ListTickets
	// pageSize > 0 makes ListMessages page for real (newest page first, cursors
	// "at:<index>"), as the read model does; 0 answers every message with a canned
	// "older" cursor.
	pageSize int
}

func newWorld(names map[engine.ID]string) *world {
	w := &world{names: names}
	w.reset()
	return w
}

func (w *world) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	w.states = map[engine.ID]engine.TicketState{}
	w.views = map[engine.ID]engine.Ticket{}
	w.msgs = map[engine.ID][]engine.Message{}
	w.pos, w.lag, w.nextID = 0, nil, 1000
	w.calls, w.opens, w.waits, w.waitErr = nil, nil, nil, nil
	w.lastQuery, w.lastP, w.lastMsgQ = engine.TicketQuery{}, engine.Principal{}, engine.MessageQuery{}
	w.page = engine.TicketPage{Tickets: []engine.Ticket{}}
}

// system runs cmd on ticket id without authorisation (the channel side) and projects
// it at once: fixtures.
func (w *world) system(t *testing.T, id engine.ID, cmd engine.TicketCommand) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, _, err := w.apply(id, cmd); err != nil {
		t.Fatalf("fixture %T on ticket %d: %v", cmd, id, err)
	}
	w.catchUp(w.pos)
}

// openTicket creates ticket id of company in queue (0: none) for user (0: pending),
// projected at once.
func (w *world) openTicket(t *testing.T, id, company, queue, user engine.ID) {
	t.Helper()
	status := engine.StatusPending
	if user != 0 {
		status = engine.StatusOpen
	}
	w.system(t, id, engine.OpenTicket{TicketID: id, UUID: fmt.Sprintf("uuid-%d", id), CompanyID: company,
		ContactID: 500 + id, ConnectionID: 1, Channel: engine.ChannelWhatsApp, QueueID: queue, UserID: user, Status: status})
}

// apply decides and evolves cmd on ticket id; called with mu held.
func (w *world) apply(id engine.ID, cmd engine.TicketCommand) (engine.TicketState, []engine.TicketEvent, error) {
	st := w.states[id].Clone()
	evs, err := engine.DecideTicket(st, cmd, w.now)
	if err != nil || len(evs) == 0 {
		return st, nil, err
	}
	st = engine.FoldTicket(st, evs)
	if open, ok := cmd.(engine.OpenTicket); ok {
		st.ID = open.TicketID
	}
	w.states[id] = st
	w.pos++
	w.lag = append(w.lag, pendingEvents{pos: w.pos, ticket: id, events: evs})
	w.now = w.now.Add(time.Second)
	return st, evs, nil
}

// catchUp applies every pending event up to pos to the read model; mu held.
func (w *world) catchUp(pos int64) {
	rest := w.lag[:0]
	for _, pe := range w.lag {
		if pe.pos > pos {
			rest = append(rest, pe)
			continue
		}
		w.project(pe)
	}
	w.lag = rest
}

func (w *world) project(pe pendingEvents) {
	st := w.states[pe.ticket]
	if st.Deleted {
		delete(w.views, pe.ticket)
	} else {
		t := st.Ticket()
		t.Contact = &engine.Contact{ID: st.ContactID, CompanyID: st.CompanyID, Name: "Cliente " + fmt.Sprint(st.ContactID)}
		if st.UserID != 0 {
			t.User = &engine.UserRef{ID: st.UserID, Name: w.names[st.UserID]}
		}
		if st.QueueID != 0 {
			t.Queue = &engine.QueueRef{ID: st.QueueID, Name: fmt.Sprintf("queue %d", st.QueueID)}
		}
		w.views[pe.ticket] = t
	}
	for _, ev := range pe.events {
		switch e := ev.(type) {
		case engine.TicketMessageReceived:
			w.msgs[pe.ticket] = append(w.msgs[pe.ticket], engine.Message{ID: e.MessageID, CompanyID: st.CompanyID,
				TicketID: pe.ticket, Body: e.Body, MediaType: e.MediaType, MediaURL: e.MediaURL, CreatedAt: e.At})
		case engine.TicketMessageSent:
			w.msgs[pe.ticket] = append(w.msgs[pe.ticket], engine.Message{ID: e.MessageID, CompanyID: st.CompanyID,
				TicketID: pe.ticket, SenderID: e.SenderID, FromMe: true, Read: true, Body: e.Body,
				MediaType: e.MediaType, MediaURL: e.MediaURL, CreatedAt: e.At})
		case engine.TicketWhisperAdded:
			w.msgs[pe.ticket] = append(w.msgs[pe.ticket], engine.Message{ID: e.MessageID, CompanyID: st.CompanyID,
				TicketID: pe.ticket, SenderID: e.SenderID, FromMe: true, Read: true, Body: e.Body,
				MediaType: e.Media(), CreatedAt: e.At})
		case engine.TicketMessageTranslated:
			for i := range w.msgs[pe.ticket] {
				if w.msgs[pe.ticket][i].ID == e.MessageID {
					w.msgs[pe.ticket][i].Translation, w.msgs[pe.ticket][i].TranslationLanguage = e.Body, e.Language
				}
			}
		case engine.TicketMessageDeleted:
			for i := range w.msgs[pe.ticket] {
				if w.msgs[pe.ticket][i].ID == e.MessageID {
					w.msgs[pe.ticket][i].IsDeleted = true
				}
			}
		case engine.TicketRead:
			for i := range w.msgs[pe.ticket] {
				w.msgs[pe.ticket][i].Read = true
			}
		}
	}
}

// Do implements engine.TicketCommander as the ticket actor does: authorise, decide,
// evolve.
func (w *world) Do(ctx context.Context, p engine.Principal, id engine.ID, cmd engine.TicketCommand) (engine.TicketState, int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, call{P: p, Ticket: id, Cmd: cmd})
	if err := engine.AuthorizeTicket(p, w.states[id], cmd); err != nil {
		return engine.TicketState{}, 0, err
	}
	st, evs, err := w.apply(id, cmd)
	if err != nil {
		return engine.TicketState{}, 0, err
	}
	if len(evs) == 0 {
		return st, 0, nil
	}
	return st, w.pos, nil
}

// Open implements engine.TicketCommander like the connection actor: one pending or
// open ticket per contact and connection.
func (w *world) Open(ctx context.Context, p engine.Principal, in engine.OpenTicketInput) (engine.TicketState, int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.opens = append(w.opens, in)
	conn := in.ConnectionID
	if conn == 0 {
		conn = 1
	}
	for _, st := range w.states {
		if st.CompanyID == p.CompanyID && st.ContactID == in.ContactID && st.ConnectionID == conn &&
			!st.Deleted && st.Status != engine.StatusClosed {
			return engine.TicketState{}, 0, engine.E(engine.ErrOtherOpenTicket)
		}
	}
	w.nextID++
	cmd := engine.OpenTicket{TicketID: w.nextID, UUID: fmt.Sprintf("uuid-%d", w.nextID), CompanyID: p.CompanyID,
		ContactID: in.ContactID, ConnectionID: conn, Channel: engine.ChannelWhatsApp, QueueID: in.QueueID,
		UserID: in.UserID, Status: in.Status}
	if err := engine.AuthorizeTicket(p, engine.TicketState{}, cmd); err != nil {
		return engine.TicketState{}, 0, err
	}
	st, _, err := w.apply(w.nextID, cmd)
	if err != nil {
		return engine.TicketState{}, 0, err
	}
	return st, w.pos, nil
}

// WaitFor implements httpapi.Waiter: the read model catches up to pos.
func (w *world) WaitFor(ctx context.Context, pos int64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.waits = append(w.waits, pos)
	if w.waitErr != nil {
		return w.waitErr
	}
	w.catchUp(pos)
	return nil
}

func (w *world) ListTickets(ctx context.Context, p engine.Principal, q engine.TicketQuery) (engine.TicketPage, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.recordQuery(q, p)
	return w.page, nil
}

func (w *world) GetTicket(ctx context.Context, companyID, id engine.ID) (engine.Ticket, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.views[id]
	if !ok || t.CompanyID != companyID {
		return engine.Ticket{}, engine.E(engine.ErrNoTicketFound)
	}
	t.Tags = slices.Clone(t.Tags)
	return t, nil
}

func (w *world) ListMessages(ctx context.Context, companyID, ticketID engine.ID, q engine.MessageQuery) (engine.MessagePage, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lastMsgQ = q
	if t, ok := w.views[ticketID]; !ok || t.CompanyID != companyID {
		return engine.MessagePage{}, engine.E(engine.ErrNoTicketFound)
	}
	if w.pageSize > 0 {
		return pageOf(w.msgs[ticketID], w.pageSize, q.Cursor), nil
	}
	return engine.MessagePage{Messages: slices.Clone(w.msgs[ticketID]), HasMore: true, NextCursor: "older"}, nil
}

// pageOf is the page of msgs (oldest first) that ends before the index cursor names
// ("at:<n>"; "" is the end): the newest size messages before it.
func pageOf(msgs []engine.Message, size int, cursor string) engine.MessagePage {
	end := len(msgs)
	if n, ok := strings.CutPrefix(cursor, "at:"); ok {
		if v, err := strconv.Atoi(n); err == nil && v >= 0 && v <= end {
			end = v
		}
	}
	start := max(0, end-size)
	p := engine.MessagePage{Messages: slices.Clone(msgs[start:end]), HasMore: start > 0}
	if p.HasMore {
		p.NextCursor = "at:" + strconv.Itoa(start)
	}
	return p
}

func (w *world) AllMessages(ctx context.Context, companyID, ticketID engine.ID) ([]engine.Message, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if t, ok := w.views[ticketID]; !ok || t.CompanyID != companyID {
		return nil, engine.E(engine.ErrNoTicketFound)
	}
	return slices.Clone(w.msgs[ticketID]), nil
}

func (w *world) CountsByStatus(ctx context.Context, p engine.Principal, q engine.TicketQuery) (engine.TicketCounts, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.recordQuery(q, p)
	return engine.TicketCounts{Open: 3, Pending: 7}, nil
}

func (w *world) UnreadTickets(ctx context.Context, p engine.Principal) ([]engine.Ticket, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lastP = p
	var out []engine.Ticket
	for _, t := range w.views {
		if t.CompanyID == p.CompanyID && t.UnreadMessages > 0 {
			out = append(out, t)
		}
	}
	return out, nil
}

// MessageTicket implements engine.MessageLocator.
func (w *world) MessageTicket(ctx context.Context, companyID, messageID engine.ID) (engine.ID, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for tid, msgs := range w.msgs {
		for _, m := range msgs {
			if m.ID == messageID && m.CompanyID == companyID {
				return tid, nil
			}
		}
	}
	return 0, engine.E(engine.ErrNoMessageFound)
}

// takeCalls returns and forgets the commands asked so far.
func (w *world) takeCalls() []call {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.calls
	w.calls = nil
	return out
}

func (w *world) view(id engine.ID) (engine.Ticket, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.views[id]
	return t, ok
}

func (w *world) setWaitErr(err error) {
	w.mu.Lock()
	w.waitErr = err
	w.mu.Unlock()
}

// seqIDs is an engine.IDAllocator counting from 9000.
type seqIDs struct {
	mu   sync.Mutex
	next engine.ID
	err  error
}

func (s *seqIDs) Next(ctx context.Context, name string) (engine.ID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if name != "message" {
		return 0, fmt.Errorf("unexpected id name %q", name)
	}
	if s.err != nil {
		return 0, s.err
	}
	s.next++
	return 9000 + s.next, nil
}

// removingStore is the media store with the Remove the handlers use to discard the
// files of a refused send.
type removingStore struct {
	*media.Store
	dir string
}

func (s removingStore) Remove(ctx context.Context, companyID engine.ID, path string) error {
	return os.Remove(filepath.Join(s.dir, filepath.FromSlash(path)))
}

// storedFiles lists the files the media folder holds for a tenant.
func (e *ticketEnv) storedFiles(t *testing.T, company engine.ID) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(e.mediaDir, fmt.Sprint(company)))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, en := range entries {
		out = append(out, en.Name())
	}
	return out
}

// ticketEnv is an env whose server has the ticket collaborators.
type ticketEnv struct {
	*env
	w        *world
	msgIDs   *seqIDs
	journal  *journal.Store
	media    removingStore
	mediaDir string
	tags     *store.Tags
}

// Media limits of the test store: small, so that refusals are cheap to provoke.
const (
	testMaxImage  = 4 << 10
	testMaxUpload = 64 << 10
)

// extraTicketDeps, when set, adds collaborators to the next newTicketEnv (the AI
// routes' tests set it around their call; those tests are not parallel).
var extraTicketDeps func(*httpapi.Deps)

func newTicketEnv(t *testing.T, d *db.DB) *ticketEnv {
	t.Helper()
	te := &ticketEnv{msgIDs: &seqIDs{}, mediaDir: t.TempDir()}
	var err error
	te.journal, err = journal.New(d, journal.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { te.journal.Close() })
	ms, err := media.New(media.Config{Dir: te.mediaDir, Secret: testSecret, MaxImage: testMaxImage, BaseURL: "/media"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ms.Close() })
	te.media = removingStore{Store: ms, dir: te.mediaDir}
	names := map[engine.ID]string{}
	te.w = newWorld(names)
	te.env = newEnv(t, d, withDeps(func(e *env, deps *httpapi.Deps) {
		te.tags = store.NewTags(d, e.clock)
		deps.RefDeps = httpapi.RefDeps{Contacts: store.NewContacts(d, e.clock), Queues: store.NewQueues(d, e.clock),
			Tags: te.tags, QuickAnswers: store.NewQuickAnswers(d, e.clock)}
		deps.TicketDeps = httpapi.TicketDeps{Tickets: te.w, TicketQueries: te.w, Journal: te.journal, IDs: te.msgIDs,
			Media: te.media, Waiter: te.w, MaxUploadBytes: testMaxUpload, VideoCalls: testVideoCalls(t)}
		if extraTicketDeps != nil {
			extraTicketDeps(deps)
		}
	}))
	e := te.env
	for local, id := range e.ids {
		u, err := e.users.Get(context.Background(), e.company(local), id)
		if err != nil {
			t.Fatal(err)
		}
		names[id] = u.Name
	}
	return te
}

// eachTicketEnv runs fn on a fresh ticketEnv per dialect.
func eachTicketEnv(t *testing.T, fn func(t *testing.T, e *ticketEnv)) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) { fn(t, newTicketEnv(t, d)) })
}

// Ticket fixtures of fixtures(): co1's 101 pending in queue 11, 102 open with ana in
// queue 11, 103 closed (resolved by ana) in queue 11, 104 open with bruno in queue
// 12, 105 pending without a queue; co2's 201 open with admin2 in queue 21.
const (
	tPending  engine.ID = 101
	tOpenAna  engine.ID = 102
	tClosed   engine.ID = 103
	tOpenBrun engine.ID = 104
	tNoQueue  engine.ID = 105
	tOther    engine.ID = 201
)

// fixtures resets the world to the fixture tickets.
func (e *ticketEnv) fixtures(t *testing.T) {
	t.Helper()
	e.w.reset()
	e.pub.take()
	e.w.openTicket(t, tPending, co1, 11, 0)
	e.w.openTicket(t, tOpenAna, co1, 11, e.ids["ana"])
	e.w.openTicket(t, tClosed, co1, 11, e.ids["ana"])
	e.w.system(t, tClosed, engine.Resolve{})
	e.w.openTicket(t, tOpenBrun, co1, 12, e.ids["bruno"])
	e.w.openTicket(t, tNoQueue, co1, 0, 0)
	e.w.openTicket(t, tOther, co2, 21, e.ids["admin2"])
	e.w.takeCalls()
}

// oneCall fails unless exactly one command was asked since the last take, and
// returns it.
func (e *ticketEnv) oneCall(t *testing.T) call {
	t.Helper()
	calls := e.w.takeCalls()
	if len(calls) != 1 {
		t.Fatalf("commands %+v, want one", calls)
	}
	return calls[0]
}

// noCall fails if any command was asked since the last take.
func (e *ticketEnv) noCall(t *testing.T) {
	t.Helper()
	if calls := e.w.takeCalls(); len(calls) != 0 {
		t.Fatalf("unexpected commands %+v", calls)
	}
}

// recordQuery keeps q's zone apart from the rest of it, so tests compare the filters
// and the zone separately. Called with w.mu held.
func (w *world) recordQuery(q engine.TicketQuery, p engine.Principal) {
	w.lastZone = ""
	if q.Location != nil {
		w.lastZone = q.Location.String()
	}
	q.Location = nil
	w.lastQuery, w.lastP = q, p
}
