package realtime

import (
	"slices"
	"testing"
	"time"

	"atende/engine"
	"atende/transport/socket"
)

// The invitation events reach one user's sockets: the invitee for an invitation, the
// inviter for an answer — no status, notification or chat room, so nobody else learns
// of them.
func TestInvitationEventsGoToOneUser(t *testing.T) {
	r := newRig(t)
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tk := engine.Ticket{ID: 7, CompanyID: 1, Status: engine.StatusOpen, UserID: 2, QueueID: 10,
		Contact: &engine.Contact{ID: 3, Name: "Maria Cliente", ProfilePicURL: "https://pic.example/m.jpg"}}
	r.q.set(tk)
	cases := []struct {
		ev     engine.TicketEvent
		to     engine.ID
		action string
		uTo    string
		uFrom  string
	}{
		{engine.TicketInvited{UserID: 5, ByUserID: 2, ToName: "Bruno", FromName: "Ana", At: at}, 5, ActionCreate, "Bruno", "Ana"},
		{engine.TicketInviteAccepted{UserID: 5, ByUserID: 2, Name: "Bruno", At: at}, 2, ActionAccept, "Bruno", ""},
		{engine.TicketInviteDeclined{UserID: 5, ByUserID: 2, Name: "Bruno", At: at}, 2, ActionDecline, "Bruno", ""},
	}
	var pos int64
	for _, c := range cases {
		pos = r.ticketEvent(t, tk.ID, c.ev)
	}
	recs := r.published(t, 1, pos)
	if len(recs) != len(cases) {
		t.Fatalf("%d records, want %d", len(recs), len(cases))
	}
	for i, c := range cases {
		rec := recs[i]
		if !slices.Equal(rec.Rooms, []socket.Room{socket.UserRoom(c.to)}) {
			t.Errorf("%s: rooms %v, want only user %d's", c.action, rec.Rooms, c.to)
		}
		name, body := frameJSON(t, rec)
		if name != EventInvitation || body["action"] != c.action || body["uTo"] != c.uTo || body["uFrom"] != c.uFrom ||
			body["to"] != float64(c.to) || body["ticket"] != float64(7) || body["userId"] != float64(5) ||
			body["userFrom"] != float64(2) || body["contact"] != "Maria Cliente" ||
			body["profilePic"] != "https://pic.example/m.jpg" || body["dateTime"] != "2026-11-22T12:00:00Z" ||
			body["ticketStatus"] != engine.StatusOpen {
			t.Errorf("%s: %s %v", c.action, name, body)
		}
	}
}
