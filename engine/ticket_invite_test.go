package engine

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// TestInviteLifecycle: an invitation is recorded, accepted exactly once (the second
// accept records nothing), and a declined one leaves no guest; answers without an
// invitation are refused.
func TestInviteLifecycle(t *testing.T) {
	s := fixture(t, StatusOpen) // held by 7
	evs := mustDecide(t, s, Invite{UserID: 8, ByUserID: 7, ToName: " Bruno ", FromName: "Ana"})
	want := []TicketEvent{TicketInvited{UserID: 8, ByUserID: 7, ToName: "Bruno", FromName: "Ana", At: t0}}
	if !reflect.DeepEqual(evs, want) {
		t.Fatalf("invite: %#v", evs)
	}
	s = FoldTicket(s, evs)
	if by, ok := s.InvitedBy(8); !ok || by != 7 || s.IsGuest(8) {
		t.Fatalf("after invite: invites %v guests %v", s.Invites, s.Guests)
	}

	accepted := FoldTicket(s.Clone(), mustDecide(t, s, AcceptInvite{UserID: 8}))
	if !accepted.IsGuest(8) || len(accepted.Invites) != 0 {
		t.Fatalf("after accept: invites %v guests %v", accepted.Invites, accepted.Guests)
	}
	if evs := mustDecide(t, accepted, AcceptInvite{UserID: 8}); evs != nil {
		t.Errorf("second accept recorded %v", evs)
	}
	if _, err := DecideTicket(accepted, DeclineInvite{UserID: 8}, t0); codeOf(t, err) != ErrNoPermission {
		t.Errorf("decline after accept: %v", err)
	}
	if _, err := DecideTicket(accepted, Invite{UserID: 8, ByUserID: 7}, t0); codeOf(t, err) != ErrValidation {
		t.Errorf("inviting a guest again: %v", err)
	}

	declined := FoldTicket(s.Clone(), mustDecide(t, s, DeclineInvite{UserID: 8}))
	if declined.IsGuest(8) || len(declined.Invites) != 0 {
		t.Fatalf("after decline: invites %v guests %v", declined.Invites, declined.Guests)
	}
	if _, err := DecideTicket(declined, AcceptInvite{UserID: 8}, t0); codeOf(t, err) != ErrNoPermission {
		t.Errorf("accept after decline: %v", err)
	}

	// A guest survives a snapshot and a replay.
	data, err := json.Marshal(accepted)
	if err != nil {
		t.Fatal(err)
	}
	var snap TicketState
	if err := json.Unmarshal(data, &snap); err != nil || !snap.IsGuest(8) {
		t.Fatalf("snapshot: %v, guests %v", err, snap.Guests)
	}
}

func TestInviteRefusals(t *testing.T) {
	open := fixture(t, StatusOpen)
	closed := fixture(t, StatusClosed)
	invited := FoldTicket(open.Clone(), mustDecide(t, open, Invite{UserID: 8, ByUserID: 7}))
	tests := []struct {
		name string
		s    TicketState
		cmd  TicketCommand
		want Code
	}{
		{"no invitee", open, Invite{ByUserID: 7}, ErrValidation},
		{"no inviter", open, Invite{UserID: 8}, ErrValidation},
		{"negative invitee", open, Invite{UserID: -3, ByUserID: 7}, ErrValidation},
		{"oneself", open, Invite{UserID: 7, ByUserID: 7}, ErrValidation},
		{"the holder", open, Invite{UserID: 7, ByUserID: 9}, ErrValidation},
		{"a name with a NUL", open, Invite{UserID: 8, ByUserID: 7, ToName: "a\x00b"}, ErrValidation},
		{"a closed ticket", closed, Invite{UserID: 8, ByUserID: 7}, ErrInvalidTransition},
		{"answer without user", invited, AcceptInvite{}, ErrValidation},
		{"answer for another user", invited, AcceptInvite{UserID: 9}, ErrNoPermission},
		{"decline for another user", invited, DeclineInvite{UserID: 9}, ErrNoPermission},
		{"answer with a NUL in the name", invited, AcceptInvite{UserID: 8, Name: "x\x00"}, ErrValidation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := DecideTicket(tt.s, tt.cmd, t0)
			if got := codeOf(t, err); got != tt.want || evs != nil {
				t.Errorf("got %v %v, want %q", evs, err, tt.want)
			}
		})
	}
	// The invitation outlives a resolve, but a closed ticket takes no answer.
	resolved := FoldTicket(invited.Clone(), mustDecide(t, invited, Resolve{}))
	if _, err := DecideTicket(resolved, AcceptInvite{UserID: 8}, t0); codeOf(t, err) != ErrInvalidTransition {
		t.Errorf("accept on a closed ticket: %v", err)
	}
}

func TestInviteNamesAreClipped(t *testing.T) {
	long := string(slices.Repeat([]rune("é"), MaxInviteNameRunes+10))
	evs := mustDecide(t, fixture(t, StatusPending), Invite{UserID: 8, ByUserID: 7, ToName: long, FromName: long})
	e := evs[0].(TicketInvited)
	if n := len([]rune(e.ToName)); n != MaxInviteNameRunes || len([]rune(e.FromName)) != MaxInviteNameRunes {
		t.Errorf("names of %d runes", n)
	}
}

// The history shows each invitation and its answer: the inviter as the old user, the
// invitee as the new one.
func TestInviteHistory(t *testing.T) {
	_, evs := build(t, baseOpen,
		Invite{UserID: 8, ByUserID: 7}, AcceptInvite{UserID: 8},
		Invite{UserID: 9, ByUserID: 7}, DeclineInvite{UserID: 9})
	recorded := make([]RecordedTicketEvent, len(evs))
	for i, ev := range evs {
		recorded[i] = RecordedTicketEvent{Version: int64(i + 1), Event: ev}
	}
	names := MapNames{Users: map[ID]string{7: "Ana", 8: "Bruno", 9: "Carla"}, Queues: map[ID]string{40: "Vendas"}}
	var got []string
	for _, h := range TicketHistory(recorded, names)[1:] {
		got = append(got, h.Action+":"+h.OldUserName+">"+h.NewUserName)
	}
	want := []string{"invite:Ana>Bruno", "invite_accept:Ana>Bruno", "invite:Ana>Carla", "invite_decline:Ana>Carla"}
	if !slices.Equal(got, want) {
		t.Errorf("history %v, want %v", got, want)
	}
}
