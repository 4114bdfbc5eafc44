package engine

import (
	"slices"
	"testing"
	"time"
)

// outcome of one (status, command) cell: an error code, or the event types produced
// (none for a legal no-op) and the status after evolving them.
type outcome struct {
	err    Code
	events []string
	status string
}

func ok(status string, events ...string) outcome { return outcome{events: events, status: status} }
func fail(code Code) outcome                     { return outcome{err: code} }

var (
	nf = fail(ErrNoTicketFound)
	it = fail(ErrInvalidTransition)
)

// matrixStatuses are the rows: never opened, the three statuses, deleted.
var matrixStatuses = []string{"none", StatusPending, StatusOpen, StatusClosed, "deleted"}

// ticketMatrix: every command against every status (spec section 4 and the rules of
// DecideTicket). Commands act as user 8 where a user is needed.
var ticketMatrix = []struct {
	name string
	cmd  TicketCommand
	want map[string]outcome
}{
	{"open", baseOpen, map[string]outcome{
		"none": ok(StatusOpen, EvTicketOpened), StatusPending: it, StatusOpen: it, StatusClosed: it, "deleted": nf}},
	{"accept", Accept{UserID: 8}, map[string]outcome{
		"none": nf, StatusPending: ok(StatusOpen, EvTicketAccepted), StatusOpen: it, StatusClosed: it, "deleted": nf}},
	{"resolve", Resolve{}, map[string]outcome{
		"none": nf, StatusPending: it, StatusOpen: ok(StatusClosed, EvTicketResolved), StatusClosed: it, "deleted": nf}},
	{"return", Return{}, map[string]outcome{
		"none": nf, StatusPending: it, StatusOpen: ok(StatusPending, EvTicketReturned), StatusClosed: it, "deleted": nf}},
	{"reopen", Reopen{UserID: 8}, map[string]outcome{
		"none": nf, StatusPending: it, StatusOpen: it, StatusClosed: ok(StatusOpen, EvTicketReopened), "deleted": nf}},
	{"transfer to user", Transfer{UserID: 8}, map[string]outcome{
		"none": nf, StatusPending: ok(StatusOpen, EvTicketTransferred), StatusOpen: ok(StatusOpen, EvTicketTransferred),
		StatusClosed: it, "deleted": nf}},
	{"transfer to queue", Transfer{QueueID: 41}, map[string]outcome{
		"none": nf, StatusPending: ok(StatusPending, EvTicketTransferred), StatusOpen: ok(StatusPending, EvTicketTransferred),
		StatusClosed: it, "deleted": nf}},
	{"delete", Delete{}, map[string]outcome{
		"none": nf, StatusPending: ok(StatusPending, EvTicketDeleted), StatusOpen: ok(StatusOpen, EvTicketDeleted),
		StatusClosed: ok(StatusClosed, EvTicketDeleted), "deleted": nf}},
	{"receive message", ReceiveMessage{MessageID: 200, ProviderID: "p200", Body: "ainda aí?"}, map[string]outcome{
		"none": nf, StatusPending: ok(StatusPending, EvTicketMessageReceived), StatusOpen: ok(StatusOpen, EvTicketMessageReceived),
		StatusClosed: it, "deleted": nf}},
	{"send message", SendMessage{MessageID: 201, SenderID: 7, Body: "sim"}, map[string]outcome{
		"none": nf, StatusPending: it, StatusOpen: ok(StatusOpen, EvTicketMessageSent), StatusClosed: it, "deleted": nf}},
	{"send automatic message", SendAutomaticMessage{MessageID: 202, Body: "Obrigado pelo contato"}, map[string]outcome{
		"none": nf, StatusPending: ok(StatusPending, EvTicketMessageSent), StatusOpen: ok(StatusOpen, EvTicketMessageSent),
		StatusClosed: ok(StatusClosed, EvTicketMessageSent), "deleted": nf}},
	{"add whisper", AddWhisper{MessageID: 203, SenderID: 7, Body: "nota"}, map[string]outcome{
		"none": nf, StatusPending: it, StatusOpen: ok(StatusOpen, EvTicketWhisperAdded), StatusClosed: it, "deleted": nf}},
	{"ack message", AckMessage{MessageID: 100, Ack: AckRead}, map[string]outcome{
		"none": nf, StatusPending: ok(StatusPending, EvTicketMessageAcked), StatusOpen: ok(StatusOpen, EvTicketMessageAcked),
		StatusClosed: ok(StatusClosed, EvTicketMessageAcked), "deleted": nf}},
	{"delete message", DeleteMessage{MessageID: 100, ByUserID: 7}, map[string]outcome{
		"none": nf, StatusPending: ok(StatusPending, EvTicketMessageDeleted), StatusOpen: ok(StatusOpen, EvTicketMessageDeleted),
		StatusClosed: ok(StatusClosed, EvTicketMessageDeleted), "deleted": nf}},
	{"mark read", MarkRead{}, map[string]outcome{
		"none": nf, StatusPending: ok(StatusPending, EvTicketRead), StatusOpen: ok(StatusOpen, EvTicketRead),
		StatusClosed: ok(StatusClosed), // resolving already read it: a no-op
		"deleted":    nf}},
	{"set tags", SetTags{TagIDs: []ID{5}}, map[string]outcome{
		"none": nf, StatusPending: ok(StatusPending, EvTicketTagsSet), StatusOpen: ok(StatusOpen, EvTicketTagsSet),
		StatusClosed: ok(StatusClosed, EvTicketTagsSet), "deleted": nf}},
	{"invite", Invite{UserID: 8, ByUserID: 7}, map[string]outcome{
		"none": nf, StatusPending: ok(StatusPending, EvTicketInvited), StatusOpen: ok(StatusOpen, EvTicketInvited),
		StatusClosed: it, "deleted": nf}},
	// Without an invitation there is nothing to answer (ticket_invite_test.go has
	// the answers to a pending one).
	{"accept invite", AcceptInvite{UserID: 8}, map[string]outcome{
		"none": nf, StatusPending: fail(ErrNoPermission), StatusOpen: fail(ErrNoPermission),
		StatusClosed: fail(ErrNoPermission), "deleted": nf}},
	{"decline invite", DeclineInvite{UserID: 8}, map[string]outcome{
		"none": nf, StatusPending: fail(ErrNoPermission), StatusOpen: fail(ErrNoPermission),
		StatusClosed: fail(ErrNoPermission), "deleted": nf}},
}

func TestTicketMatrixIsComplete(t *testing.T) {
	names := map[string]bool{}
	for _, row := range ticketMatrix {
		names[row.cmd.CommandName()] = true
		for _, st := range matrixStatuses {
			if _, ok := row.want[st]; !ok {
				t.Errorf("%s: no expectation for status %q", row.name, st)
			}
		}
		if len(row.want) != len(matrixStatuses) {
			t.Errorf("%s: %d expectations for %d statuses", row.name, len(row.want), len(matrixStatuses))
		}
	}
	for _, c := range []TicketCommand{OpenTicket{}, Accept{}, Resolve{}, Return{}, Reopen{}, Transfer{}, Delete{},
		ReceiveMessage{}, SendMessage{}, SendAutomaticMessage{}, AddWhisper{}, AckMessage{}, DeleteMessage{},
		MarkRead{}, SetTags{}, Invite{}, AcceptInvite{}, DeclineInvite{}} {
		if !names[c.CommandName()] {
			t.Errorf("command %s missing from the matrix", c.CommandName())
		}
	}
}

func TestTicketMatrix(t *testing.T) {
	for _, row := range ticketMatrix {
		for _, st := range matrixStatuses {
			want := row.want[st]
			t.Run(row.name+"/"+st, func(t *testing.T) {
				s := fixture(t, st)
				before := s.Clone()
				evs, err := DecideTicket(s, row.cmd, t0.Add(time.Hour))
				if got := codeOf(t, err); got != want.err {
					t.Fatalf("error %v, want code %q", err, want.err)
				}
				if err != nil {
					if evs != nil {
						t.Errorf("events %v with an error", evs)
					}
					return
				}
				if got := eventTypes(evs); !slices.Equal(got, want.events) {
					t.Errorf("events %v, want %v", got, want.events)
				}
				after := FoldTicket(s, evs)
				if after.Status != want.status {
					t.Errorf("status after %q, want %q", after.Status, want.status)
				}
				if after.Version != before.Version+int64(len(evs)) {
					t.Errorf("version %d, want %d", after.Version, before.Version+int64(len(evs)))
				}
			})
		}
	}
}
