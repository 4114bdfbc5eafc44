package realtime

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/transport/socket"
)

// leadJSON decodes the lead frame of rec: 42["name",{…}].
func leadJSON(t *testing.T, rec *socket.Record) (string, map[string]any) {
	t.Helper()
	if rec.LeadFrame == nil {
		t.Fatal("no lead frame")
	}
	return frameJSON(t, &socket.Record{Frame: rec.LeadFrame})
}

// whaticket's rooms: a ticket that changes status or holder is announced with a
// "delete" (ticketId) to the status room it left, then an "update" to the room of
// its new status — a whaticket list only adds on update and removes on delete.
func TestWhaticketTicketMoveDeletesFromTheRoomItLeft(t *testing.T) {
	r := newRig(t)
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	pending, open, closed := socket.TicketsRoom(engine.StatusPending), socket.TicketsRoom(engine.StatusOpen), socket.TicketsRoom(engine.StatusClosed)
	cases := []struct {
		name  string
		now   engine.Ticket
		ev    engine.TicketEvent
		left  socket.Room
		enter socket.Room
	}{
		{"accepted", engine.Ticket{ID: 1, CompanyID: 1, Status: engine.StatusOpen, UserID: 2, QueueID: 10},
			engine.TicketAccepted{UserID: 2, QueueID: 10, At: at}, pending, open},
		{"resolved", engine.Ticket{ID: 2, CompanyID: 1, Status: engine.StatusClosed, UserID: 2, QueueID: 10},
			engine.TicketResolved{UserID: 2, QueueID: 10, At: at}, open, closed},
		{"returned", engine.Ticket{ID: 3, CompanyID: 1, Status: engine.StatusPending, QueueID: 10},
			engine.TicketReturned{FromUserID: 2, QueueID: 10, At: at}, open, pending},
		{"reopened", engine.Ticket{ID: 4, CompanyID: 1, Status: engine.StatusOpen, UserID: 3, QueueID: 10},
			engine.TicketReopened{FromUserID: 2, ToUserID: 3, QueueID: 10, At: at}, closed, open},
		// Handed to another attendant, still open: delete then update in the same room.
		{"transferred to a colleague", engine.Ticket{ID: 5, CompanyID: 1, Status: engine.StatusOpen, UserID: 3, QueueID: 10},
			engine.TicketTransferred{FromUserID: 2, ToUserID: 3, FromQueueID: 10, ToQueueID: 10,
				FromStatus: engine.StatusOpen, ToStatus: engine.StatusOpen, At: at}, open, open},
	}
	var pos int64
	for _, c := range cases {
		r.q.set(c.now)
		pos = r.ticketEvent(t, c.now.ID, c.ev)
	}
	recs := r.published(t, 1, pos)
	if len(recs) != len(cases) {
		t.Fatalf("%d records, want %d", len(recs), len(cases))
	}
	for i, c := range cases {
		rec := recs[i]
		name, body := frameJSON(t, rec)
		tk, _ := body["ticket"].(map[string]any)
		if name != EventTicket || body["action"] != ActionUpdate || tk["status"] != c.now.Status {
			t.Errorf("%s: main frame %s %v", c.name, name, body)
		}
		if !slices.Contains(rec.Rooms, c.enter) || !slices.Contains(rec.Rooms, socket.NotificationRoom()) {
			t.Errorf("%s: update rooms %v, want %v and notification", c.name, rec.Rooms, c.enter)
		}
		for _, st := range []socket.Room{pending, open, closed} {
			if st != c.enter && slices.Contains(rec.Rooms, st) {
				t.Errorf("%s: update also to %v: a whaticket list there would add the ticket", c.name, st)
			}
		}
		name, lead := leadJSON(t, rec)
		if name != EventTicket || lead["action"] != ActionDelete || lead["ticketId"] != float64(c.now.ID) ||
			lead["moved"] != true || lead["seq"] != nil {
			t.Errorf("%s: lead frame %s %v", c.name, name, lead)
		}
		if !slices.Equal(rec.LeadRooms, []socket.Room{c.left}) {
			t.Errorf("%s: delete to %v, want %v", c.name, rec.LeadRooms, c.left)
		}
	}
	// An update that moves nothing (tags) has no delete.
	r.q.set(engine.Ticket{ID: 6, CompanyID: 1, Status: engine.StatusOpen, UserID: 2})
	pos = r.ticketEvent(t, 6, engine.TicketTagsSet{TagIDs: []engine.ID{1}, At: at})
	recs = r.published(t, 1, pos)
	if last := recs[len(recs)-1]; last.LeadFrame != nil || !slices.Contains(last.Rooms, open) || slices.Contains(last.Rooms, pending) {
		t.Fatalf("tags update: rooms %v lead %q", last.Rooms, last.LeadFrame)
	}
}

// withMessages is the read model stand-in with the bulk message read.
type withMessages struct {
	*tickets
	mu   sync.Mutex
	msgs map[engine.ID]engine.Message
}

func (q *withMessages) GetMessages(_ context.Context, company engine.ID, ids []engine.ID) ([]engine.Message, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []engine.Message
	for _, id := range ids {
		if m, ok := q.msgs[id]; ok && m.CompanyID == company {
			out = append(out, m)
		}
	}
	return out, nil
}

// whaticket's chat replaces a message with the one an appMessage "update" carries:
// a receipt must carry the whole message, not only its ack.
func TestWhaticketReceiptCarriesTheWholeMessage(t *testing.T) {
	r := newRig(t)
	r.pub.Close()
	q := &withMessages{tickets: r.q, msgs: map[engine.ID]engine.Message{}}
	pub, err := New(Config{Source: r.j, Hub: r.pub.cfg.Hub, Backlog: r.backlog, Queries: q, Poll: 10 * time.Millisecond,
		SignMedia: func(c engine.ID, p string) string { return "/media/signed/" + p }})
	if err != nil {
		t.Fatal(err)
	}
	r.pub = pub
	pub.Start()
	t.Cleanup(pub.Close)

	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	r.q.set(engine.Ticket{ID: 7, CompanyID: 1, Status: engine.StatusOpen, UserID: 2})
	q.msgs[71] = engine.Message{ID: 71, CompanyID: 1, TicketID: 7, Body: "Segue a foto", FromMe: true, Read: true,
		MediaType: engine.MediaImage, MediaURL: "1/foto.jpg", Ack: engine.AckRead, CreatedAt: at, UpdatedAt: at}
	p1 := r.ticketEvent(t, 7, engine.TicketMessageAcked{MessageID: 71, Ack: engine.AckRead, At: at})
	// A message the read model does not hold still gets its changed fields.
	p2 := r.ticketEvent(t, 7, engine.TicketMessageAcked{MessageID: 72, Ack: engine.AckRead, At: at})
	recs := r.published(t, 1, p2)
	var got []map[string]any
	for _, rec := range recs {
		if rec.Seq == p1 || rec.Seq == p2 {
			name, body := frameJSON(t, rec)
			if name != EventAppMessage || body["action"] != ActionUpdate {
				t.Fatalf("%s %v", name, body)
			}
			got = append(got, body["message"].(map[string]any))
		}
	}
	if len(got) != 2 {
		t.Fatalf("%d updates", len(got))
	}
	m := got[0]
	if m["id"] != float64(71) || m["body"] != "Segue a foto" || m["fromMe"] != true || m["ticketId"] != float64(7) ||
		m["ack"] != float64(engine.AckRead) || m["mediaUrl"] != "/media/signed/1/foto.jpg" || m["mediaType"] != engine.MediaImage ||
		m["createdAt"] == nil {
		t.Fatalf("receipt carries %v, want the whole message", m)
	}
	if f := got[1]; f["id"] != float64(72) || f["ack"] != float64(engine.AckRead) || f["body"] != nil {
		t.Fatalf("fallback %v", f)
	}
	if b, _ := json.Marshal(got[0]); strings.Contains(string(b), `"seq"`) {
		t.Fatalf("message %s", b)
	}
}
