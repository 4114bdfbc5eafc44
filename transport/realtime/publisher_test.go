package realtime

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/journal"
	"atende/transport/socket"
)

// tickets is a read model stand-in: the ticket as the projection would show it.
type tickets struct {
	mu sync.Mutex
	m  map[engine.ID]engine.Ticket
}

func (q *tickets) set(t engine.Ticket) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.m[t.ID] = t
}

func (q *tickets) GetTicket(_ context.Context, company, id engine.ID) (engine.Ticket, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	t, ok := q.m[id]
	if !ok || t.CompanyID != company {
		return engine.Ticket{}, engine.E(engine.ErrNoTicketFound)
	}
	return t, nil
}

func (q *tickets) ListTickets(context.Context, engine.Principal, engine.TicketQuery) (engine.TicketPage, error) {
	panic("not used")
}
func (q *tickets) ListMessages(context.Context, engine.ID, engine.ID, engine.MessageQuery) (engine.MessagePage, error) {
	panic("not used")
}
func (q *tickets) AllMessages(context.Context, engine.ID, engine.ID) ([]engine.Message, error) {
	panic("not used")
}
func (q *tickets) CountsByStatus(context.Context, engine.Principal, engine.TicketQuery) (engine.TicketCounts, error) {
	panic("not used")
}
func (q *tickets) UnreadTickets(context.Context, engine.Principal) ([]engine.Ticket, error) {
	panic("not used")
}

type rig struct {
	j       *journal.Store
	q       *tickets
	backlog *socket.PositionBacklog
	pub     *Publisher
}

func newRig(t *testing.T) *rig {
	t.Helper()
	d := dbtest.Open(t, db.SQLite)
	j, err := journal.New(d, journal.Config{Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	r := &rig{j: j, q: &tickets{m: map[engine.ID]engine.Ticket{}}, backlog: socket.NewPositionBacklog(0, 0, 0, nil)}
	hub, err := socket.NewHub(socket.HubConfig{Backlog: r.backlog})
	if err != nil {
		t.Fatal(err)
	}
	r.pub, err = New(Config{Source: j, Hub: hub, Backlog: r.backlog, Queries: r.q, Poll: 10 * time.Millisecond,
		SignMedia: func(c engine.ID, p string) string { return "/media/signed/" + p }})
	if err != nil {
		t.Fatal(err)
	}
	r.pub.Start()
	t.Cleanup(r.pub.Close)
	return r
}

func (r *rig) append(t *testing.T, company engine.ID, stream string, typ string, v any) int64 {
	t.Helper()
	body, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.j.Append(context.Background(), company, stream, engine.AnyVersion, engine.EventData{Type: typ, Data: body})
	if err != nil {
		t.Fatal(err)
	}
	return res.LastPosition()
}

func (r *rig) ticketEvent(t *testing.T, id engine.ID, ev engine.TicketEvent) int64 {
	t.Helper()
	typ, body, err := engine.EncodeTicketEvent(ev)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.j.Append(context.Background(), 1, engine.TicketStream(id), engine.AnyVersion, engine.EventData{Type: typ, Data: body})
	if err != nil {
		t.Fatal(err)
	}
	return res.LastPosition()
}

// published waits until the publisher passed pos and returns the tenant's records.
func (r *rig) published(t *testing.T, tenant, pos int64) []*socket.Record {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for r.pub.Position() < pos {
		if time.Now().After(deadline) {
			t.Fatalf("publisher stuck at %d, want %d", r.pub.Position(), pos)
		}
		time.Sleep(5 * time.Millisecond)
	}
	var out []*socket.Record
	if err := r.backlog.Replay(tenant, 0, func(rec *socket.Record) bool { out = append(out, rec); return true }); err != nil {
		t.Fatal(err)
	}
	return out
}

func frameJSON(t *testing.T, rec *socket.Record) (string, map[string]any) {
	t.Helper()
	f := rec.Frame
	// Strip the websocket header: text frames here are < 64 KiB.
	switch n := f[1] & 0x7f; {
	case n < 126:
		f = f[2:]
	default:
		f = f[4:]
	}
	s := strings.TrimPrefix(string(f), "42")
	var arr []json.RawMessage
	if err := json.Unmarshal([]byte(s), &arr); err != nil {
		t.Fatalf("frame %q: %v", s, err)
	}
	var name string
	var body map[string]any
	_ = json.Unmarshal(arr[0], &name)
	_ = json.Unmarshal(arr[1], &body)
	return name, body
}

var (
	ana    = socket.Principal{UserID: 2, CompanyID: 1, Profile: engine.ProfileUser, QueueIDs: []int64{10}}
	bruno  = socket.Principal{UserID: 3, CompanyID: 1, Profile: engine.ProfileUser, QueueIDs: []int64{20}}
	superv = socket.Principal{UserID: 4, CompanyID: 1, Profile: engine.ProfileSuperv}
)

func TestTicketEventsCarryPositionRoomsAndVisibility(t *testing.T) {
	r := newRig(t)
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	r.q.set(engine.Ticket{ID: 7, CompanyID: 1, Status: engine.StatusPending, QueueID: 10, ContactID: 5,
		Contact: &engine.Contact{ID: 5, Name: "Maria"}})
	p1 := r.ticketEvent(t, 7, engine.TicketOpened{TicketID: 7, CompanyID: 1, ContactID: 5, QueueID: 10, Status: engine.StatusPending, At: at})
	p2 := r.ticketEvent(t, 7, engine.TicketMessageReceived{MessageID: 70, Body: "Olá", MediaURL: "1/a.ogg", MediaType: engine.MediaAudio, At: at})
	p3 := r.ticketEvent(t, 7, engine.TicketMessageSent{MessageID: 71, SenderID: 2, Body: "Oi!", QuotedID: 70, At: at})
	p4 := r.ticketEvent(t, 7, engine.TicketMessageAcked{MessageID: 71, Ack: engine.AckRead, At: at})
	p5 := r.ticketEvent(t, 7, engine.TicketMessageFailed{MessageID: 71, Reason: "ERR_CHANNEL_REFUSED", At: at})
	recs := r.published(t, 1, p5)
	if len(recs) != 5 {
		t.Fatalf("%d records, want 5", len(recs))
	}
	for i, want := range []int64{p1, p2, p3, p4} {
		if recs[i].Seq != want {
			t.Fatalf("record %d seq %d, want journal position %d", i, recs[i].Seq, want)
		}
	}
	name, body := frameJSON(t, recs[0])
	if name != EventTicket || body["action"] != ActionUpdate || int64(body["seq"].(float64)) != p1 {
		t.Fatalf("opened → %s %v", name, body)
	}
	if !slices.Contains(recs[0].Rooms, socket.TicketsRoom(engine.StatusPending)) || !slices.Contains(recs[0].Rooms, socket.NotificationRoom()) {
		t.Fatalf("ticket update rooms %v", recs[0].Rooms)
	}
	// Queue 10's attendant and a supervisor see it; queue 20's attendant does not.
	if !recs[0].Filter.Visible(ana) || !recs[0].Filter.Visible(superv) || recs[0].Filter.Visible(bruno) {
		t.Fatal("ticket filter does not follow the queue rules")
	}
	name, body = frameJSON(t, recs[1])
	msg := body["message"].(map[string]any)
	if name != EventAppMessage || body["action"] != ActionCreate || msg["body"] != "Olá" || msg["mediaUrl"] != "/media/signed/1/a.ogg" {
		t.Fatalf("message → %s %v", name, body)
	}
	if !slices.Contains(recs[1].Exempt, socket.ChatBoxRoom(7)) {
		t.Fatal("the chat box must receive messages whatever the filter says")
	}
	_, body = frameJSON(t, recs[2])
	q := body["message"].(map[string]any)["quotedMsg"].(map[string]any)
	if q["body"] != "Olá" || q["fromMe"] != false {
		t.Fatalf("reply quotes %v", q)
	}
	if !slices.Equal(recs[3].Rooms, []socket.Room{socket.ChatBoxRoom(7)}) {
		t.Fatalf("ack goes to %v, want only the chat box", recs[3].Rooms)
	}
	// A refused send marks the message failed in the open chat (the reason stays in the journal).
	name, body = frameJSON(t, recs[4])
	m := body["message"].(map[string]any)
	if name != EventAppMessage || body["action"] != ActionUpdate || m["failed"] != true || m["id"] != float64(71) ||
		!slices.Equal(recs[4].Rooms, []socket.Room{socket.ChatBoxRoom(7)}) {
		t.Fatalf("failed → %s %v to %v", name, body, recs[4].Rooms)
	}
}

func TestTransferKeepsThePreviousHolderInformed(t *testing.T) {
	r := newRig(t)
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	// The read model shows the ticket after the transfer: pending in queue 20.
	r.q.set(engine.Ticket{ID: 8, CompanyID: 1, Status: engine.StatusPending, QueueID: 20})
	pos := r.ticketEvent(t, 8, engine.TicketTransferred{FromUserID: 2, FromQueueID: 10, ToQueueID: 20,
		FromStatus: engine.StatusOpen, ToStatus: engine.StatusPending, At: at})
	recs := r.published(t, 1, pos)
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	if !recs[0].Filter.Visible(ana) {
		t.Fatal("the attendant who lost the ticket must get the update that removes it")
	}
	if !recs[0].Filter.Visible(bruno) {
		t.Fatal("the new queue's attendant must see it")
	}
	outsider := socket.Principal{UserID: 9, CompanyID: 1, Profile: engine.ProfileUser, QueueIDs: []int64{30}}
	if recs[0].Filter.Visible(outsider) {
		t.Fatal("an attendant of another queue must not see it")
	}
}

func TestNoticesConnectionsAndTenants(t *testing.T) {
	r := newRig(t)
	Bus{Journal: r.j}.Publish(2, "contact", map[string]any{"action": "update", "contact": map[string]any{"id": 3}})
	pos := r.append(t, 1, engine.ConnectionStream(4), engine.EvConnectionStatus,
		engine.ConnectionStatusChanged{ConnectionID: 4, Status: engine.ConnQRCode, QRCode: "2@xyz"})
	recs := r.published(t, 1, pos)
	if len(recs) != 1 {
		t.Fatalf("tenant 1 got %d records, want only its connection status", len(recs))
	}
	name, body := frameJSON(t, recs[0])
	sess := body["session"].(map[string]any)
	if name != EventWhatsappSession || sess["status"] != engine.ConnQRCode || sess["qrcode"] != "2@xyz" {
		t.Fatalf("connection status → %s %v", name, body)
	}
	other := r.published(t, 2, pos)
	if len(other) != 1 {
		t.Fatalf("tenant 2 got %d records", len(other))
	}
	name, body = frameJSON(t, other[0])
	if name != "contact" || body["action"] != "update" || !slices.Equal(other[0].Rooms, []socket.Room{socket.CompanyRoom()}) {
		t.Fatalf("notice → %s %v rooms %v", name, body, other[0].Rooms)
	}
}

func TestUnknownAndDeletedTicketsDoNotStopThePublisher(t *testing.T) {
	r := newRig(t)
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	// A ticket the read model never had, a malformed event, then a good one.
	r.ticketEvent(t, 50, engine.TicketAccepted{UserID: 2, At: at})
	r.append(t, 1, "ticket/51", "ticket.accepted", map[string]any{"userId": "not a number"})
	r.q.set(engine.Ticket{ID: 52, CompanyID: 1, Status: engine.StatusOpen, UserID: 2})
	del := r.ticketEvent(t, 53, engine.TicketDeleted{UserID: 2, QueueID: 10, At: at})
	pos := r.ticketEvent(t, 52, engine.TicketAccepted{UserID: 2, At: at})
	recs := r.published(t, 1, pos)
	if len(recs) != 2 {
		t.Fatalf("%d records, want the deletion and the good update", len(recs))
	}
	name, body := frameJSON(t, recs[0])
	if recs[0].Seq != del || name != EventTicket || body["action"] != ActionDelete || body["ticketId"].(float64) != 53 {
		t.Fatalf("deletion → %s %v", name, body)
	}
}

// bulkTicketsStub is tickets with the bulk read, counting how it is used.
type bulkTicketsStub struct {
	*tickets
	bulkCalls, singleCalls int
	mu                     sync.Mutex
}

func (b *bulkTicketsStub) GetTickets(ctx context.Context, company engine.ID, ids []engine.ID) ([]engine.Ticket, error) {
	b.mu.Lock()
	b.bulkCalls++
	b.mu.Unlock()
	var out []engine.Ticket
	for _, id := range ids {
		if t, err := b.tickets.GetTicket(ctx, company, id); err == nil {
			out = append(out, t)
		}
	}
	return out, nil
}

func (b *bulkTicketsStub) GetTicket(ctx context.Context, company, id engine.ID) (engine.Ticket, error) {
	b.mu.Lock()
	b.singleCalls++
	b.mu.Unlock()
	return b.tickets.GetTicket(ctx, company, id)
}

// A batch touching many tickets reads them with one bulk query.
func TestBatchReadsTicketsInBulk(t *testing.T) {
	d := dbtest.Open(t, db.SQLite)
	j, err := journal.New(d, journal.Config{Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	q := &bulkTicketsStub{tickets: &tickets{m: map[engine.ID]engine.Ticket{}}}
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	var last int64
	for id := engine.ID(1); id <= 30; id++ {
		q.set(engine.Ticket{ID: id, CompanyID: 1, Status: engine.StatusPending})
		typ, body, _ := engine.EncodeTicketEvent(engine.TicketMessageReceived{MessageID: 100 + id, Body: "oi", At: at})
		res, err := j.Append(context.Background(), 1, engine.TicketStream(id), engine.AnyVersion, engine.EventData{Type: typ, Data: body})
		if err != nil {
			t.Fatal(err)
		}
		last = res.LastPosition()
	}
	backlog := socket.NewPositionBacklog(0, 0, 0, nil)
	hub, _ := socket.NewHub(socket.HubConfig{Backlog: backlog})
	pub, err := New(Config{Source: j, Hub: hub, Backlog: backlog, Queries: q, Poll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	pub.Start()
	defer pub.Close()
	deadline := time.Now().Add(5 * time.Second)
	for pub.Position() < last {
		if time.Now().After(deadline) {
			t.Fatal("publisher stuck")
		}
		time.Sleep(5 * time.Millisecond)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.bulkCalls != 1 || q.singleCalls != 0 {
		t.Fatalf("%d bulk and %d single reads for one batch of 30 tickets; want 1 and 0", q.bulkCalls, q.singleCalls)
	}
}

// A notice with a permission reaches only the profiles allowed it (who is online is
// for the supervision screens); one without reaches everybody of the tenant.
func TestNoticeWithPermission(t *testing.T) {
	r := newRig(t)
	bus := Bus{Journal: r.j}
	bus.PublishTo(1, "presence", engine.ActViewSupervMenu, map[string]any{"action": "update", "userId": 7})
	bus.Publish(1, "contact", map[string]any{"action": "update"})
	pos, err := r.j.Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	recs := r.published(t, 1, pos)
	if len(recs) != 2 || recs[0].Name != "presence" || recs[0].Filter == nil {
		t.Fatalf("records %+v, want the filtered presence notice first", recs)
	}
	for _, profile := range engine.Profiles() {
		p := socket.Principal{UserID: 1, CompanyID: 1, Profile: profile}
		if got, want := recs[0].Filter.Visible(p), engine.Can(profile, engine.ActViewSupervMenu); got != want {
			t.Errorf("presence notice visible to %s = %v, want %v", profile, got, want)
		}
	}
	if recs[1].Filter != nil {
		t.Errorf("a notice without permission has a filter")
	}
}

// A guest of a ticket (an accepted invitation) outside its queue gets its updates and
// messages: their user room is among the event's rooms and the filter admits them.
func TestTicketEventsReachItsGuests(t *testing.T) {
	r := newRig(t)
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	// Open with a user of queue 10; bruno (queue 20) is a guest.
	r.q.set(engine.Ticket{ID: 9, CompanyID: 1, Status: engine.StatusOpen, QueueID: 10, UserID: 5, ContactID: 5,
		Guests: []engine.ID{bruno.UserID}, Contact: &engine.Contact{ID: 5, Name: "Maria"}})
	p1 := r.ticketEvent(t, 9, engine.TicketMessageReceived{MessageID: 90, Body: "Olá", At: at})
	p2 := r.ticketEvent(t, 9, engine.TicketTagsSet{TagIDs: []engine.ID{3}, At: at})
	recs := r.published(t, 1, p2)
	if len(recs) != 2 || recs[0].Seq != p1 {
		t.Fatalf("%d records", len(recs))
	}
	for i, rec := range recs {
		if !slices.Contains(rec.Rooms, socket.UserRoom(bruno.UserID)) {
			t.Errorf("event %d goes to %v, not to the guest's user room", i, rec.Rooms)
		}
		if !rec.Filter.Visible(bruno) {
			t.Errorf("event %d: the filter refuses the guest", i)
		}
		outsider := socket.Principal{UserID: 9, CompanyID: 1, Profile: engine.ProfileUser, QueueIDs: []int64{20}}
		if rec.Filter.Visible(outsider) {
			t.Errorf("event %d: a colleague of the guest's queue who is no guest sees it", i)
		}
	}
}

// stepWaiter is a projection runner stand-in whose applied position the test moves.
type stepWaiter struct {
	mu      sync.Mutex
	applied int64
	changed chan struct{}
}

func (w *stepWaiter) set(pos int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.applied = pos
	close(w.changed)
	w.changed = make(chan struct{})
}

func (w *stepWaiter) Applied() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.applied
}

func (w *stepWaiter) WaitFor(ctx context.Context, pos int64) error {
	for {
		w.mu.Lock()
		applied, ch := w.applied, w.changed
		w.mu.Unlock()
		if applied >= pos {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// While the read models have applied only the head of a batch the publisher read,
// it publishes that head at once and the rest once the read models have it too —
// never an event the read models do not show yet, and no wait for the whole batch.
func TestPublisherPublishesWhatTheReadModelsApplied(t *testing.T) {
	d := dbtest.Open(t, db.SQLite)
	j, err := journal.New(d, journal.Config{Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	q := &tickets{m: map[engine.ID]engine.Ticket{}}
	q.set(engine.Ticket{ID: 7, CompanyID: 1, Status: engine.StatusPending, QueueID: 10, ContactID: 5})
	backlog := socket.NewPositionBacklog(0, 0, 0, nil)
	hub, err := socket.NewHub(socket.HubConfig{Backlog: backlog})
	if err != nil {
		t.Fatal(err)
	}
	w := &stepWaiter{changed: make(chan struct{})}
	// A wait timeout far beyond the test's: publishing must not come from giving up.
	pub, err := New(Config{Source: j, Hub: hub, Backlog: backlog, Queries: q, Waiter: w, Poll: 10 * time.Millisecond,
		WaitTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	var data []engine.EventData
	for i := range 4 {
		typ, body, err := engine.EncodeTicketEvent(engine.TicketMessageReceived{MessageID: engine.ID(70 + i), Body: "Olá", At: at})
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, engine.EventData{Type: typ, Data: body})
	}
	// One append: the publisher reads the four events as one batch.
	res, err := j.Append(context.Background(), 1, engine.TicketStream(7), engine.AnyVersion, data...)
	if err != nil {
		t.Fatal(err)
	}
	last := res.LastPosition()
	first := last - 3
	pub.Start()
	t.Cleanup(pub.Close)

	w.set(first + 1) // the read models have the first two events
	waitPublished := func(pos int64) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for pub.Position() < pos {
			if time.Now().After(deadline) {
				t.Fatalf("publisher at %d, want %d", pub.Position(), pos)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitPublished(first + 1)
	time.Sleep(50 * time.Millisecond) // time for a wrong step past what was applied
	if got := pub.Position(); got != first+1 {
		t.Fatalf("published up to %d while the read models had %d", got, first+1)
	}
	w.set(last)
	waitPublished(last)
	var seqs []int64
	if err := backlog.Replay(1, 0, func(rec *socket.Record) bool { seqs = append(seqs, rec.Seq); return true }); err != nil {
		t.Fatal(err)
	}
	if want := []int64{first, first + 1, first + 2, last}; !slices.Equal(seqs, want) {
		t.Fatalf("published %v, want each event once, in order: %v", seqs, want)
	}
}
