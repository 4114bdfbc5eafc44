package engine

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func chatFixture(t *testing.T) ChatState {
	t.Helper()
	evs, err := DecideChat(ChatState{}, CreateChat{ChatID: 9, UUID: "u", CompanyID: 1, OwnerID: 10, Users: []ID{11, 12, 11}, Title: " Plantão "}, time.Unix(100, 0))
	if err != nil {
		t.Fatal(err)
	}
	var s ChatState
	for _, ev := range evs {
		s = EvolveChat(s, ev)
	}
	return s
}

func TestDecideChatCreateFoldsParticipantsAndTitle(t *testing.T) {
	s := chatFixture(t)
	if got := s.Participants; len(got) != 3 || got[0] != 10 || got[1] != 11 || got[2] != 12 {
		t.Fatalf("participants %v, want [10 11 12]", got)
	}
	if s.Title != "Plantão" || s.OwnerID != 10 || s.CompanyID != 1 || !s.Exists() {
		t.Fatalf("state %+v", s)
	}
}

func TestDecideChatValidation(t *testing.T) {
	s := chatFixture(t)
	title := strings.Repeat("t", ChatTitleMax+1)
	cases := []struct {
		name  string
		state ChatState
		cmd   ChatCommand
		field string
		msg   string
	}{
		{"no other user", ChatState{}, CreateChat{ChatID: 1, OwnerID: 10, Users: []ID{10}}, "users", MsgRequired},
		{"negative user", ChatState{}, CreateChat{ChatID: 1, OwnerID: 10, Users: []ID{-3, 11}}, "users", MsgInvalidValue},
		{"group without title", ChatState{}, CreateChat{ChatID: 1, OwnerID: 10, Users: []ID{11, 12}}, "title", MsgRequired},
		{"title too long", ChatState{}, CreateChat{ChatID: 1, OwnerID: 10, Users: []ID{11}, Title: title}, "title", MsgTooLong},
		{"title two lines", ChatState{}, CreateChat{ChatID: 1, OwnerID: 10, Users: []ID{11}, Title: "a\nb"}, "title", MsgInvalidValue},
		{"empty message", s, PostChatMessage{MessageID: 1, SenderID: 10, Body: "  "}, "message", MsgRequired},
		{"huge message", s, PostChatMessage{MessageID: 1, SenderID: 10, Body: strings.Repeat("é", MaxMessageBody+1)}, "message", MsgTooLong},
		{"control characters", s, PostChatMessage{MessageID: 1, SenderID: 10, Body: "a\x00b"}, "message", MsgInvalidValue},
		{"edit leaves the owner alone", s, EditChat{Users: &[]ID{}}, "users", MsgRequired},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecideChat(tc.state, tc.cmd, time.Now())
			var e *Error
			if !errors.As(err, &e) || e.Code != ErrValidation || e.Fields[tc.field] != tc.msg {
				t.Fatalf("err %v, want %s=%q", err, tc.field, tc.msg)
			}
		})
	}
}

func TestDecideChatMediaWithoutCaption(t *testing.T) {
	s := chatFixture(t)
	evs, err := DecideChat(s, PostChatMessage{MessageID: 5, SenderID: 10, MediaPath: "1/a.png", MediaName: "foto.png", MediaType: MediaImage}, time.Unix(9, 0))
	if err != nil || len(evs) != 1 || evs[0].MediaPath != "1/a.png" {
		t.Fatalf("%+v %v", evs, err)
	}
	if s = EvolveChat(s, evs[0]); s.LastMessage != "foto.png" {
		t.Fatalf("last message %q", s.LastMessage)
	}
}

func TestEvolveChatUnreadsAndRead(t *testing.T) {
	s := chatFixture(t)
	for i := range 3 {
		evs, err := DecideChat(s, PostChatMessage{MessageID: ID(i + 1), SenderID: 11, Body: "oi"}, time.Unix(200, 0))
		if err != nil {
			t.Fatal(err)
		}
		s = EvolveChat(s, evs[0])
	}
	if evs, err := DecideChat(s, PostChatMessage{MessageID: 2, SenderID: 11, Body: "oi"}, time.Unix(200, 0)); err != nil || len(evs) != 0 {
		t.Fatalf("a retried post appended %v (%v)", evs, err)
	}
	if s.Unreads[10] != 3 || s.Unreads[12] != 3 || s.Unreads[11] != 0 || s.LastMessage != "oi" {
		t.Fatalf("unreads %v last %q", s.Unreads, s.LastMessage)
	}
	evs, err := DecideChat(s, ReadChat{UserID: 10}, time.Unix(300, 0))
	if err != nil || len(evs) != 1 {
		t.Fatalf("read: %v %v", evs, err)
	}
	updated := s.UpdatedAt
	s = EvolveChat(s, evs[0])
	if s.Unreads[10] != 0 || s.Unreads[12] != 3 || !s.UpdatedAt.Equal(updated) {
		t.Fatalf("after read: %v, updatedAt %v", s.Unreads, s.UpdatedAt)
	}
	if evs, _ := DecideChat(s, ReadChat{UserID: 10}, time.Unix(300, 0)); len(evs) != 0 {
		t.Fatalf("reading a read chat appended %v", evs)
	}
	// Removing a participant drops their count; the owner stays.
	evs, err = DecideChat(s, EditChat{Users: &[]ID{11}}, time.Unix(400, 0))
	if err != nil || len(evs) != 1 || len(evs[0].Removed) != 1 || evs[0].Removed[0] != 12 {
		t.Fatalf("edit: %+v %v", evs, err)
	}
	s = EvolveChat(s, evs[0])
	if s.HasParticipant(12) || !s.HasParticipant(10) || s.Unreads[12] != 0 {
		t.Fatalf("after edit: %+v", s)
	}
}

func TestAuthorizeChat(t *testing.T) {
	s := chatFixture(t)
	owner := Principal{UserID: 10, CompanyID: 1, Profile: ProfileUser}
	member := Principal{UserID: 11, CompanyID: 1, Profile: ProfileUser}
	outsider := Principal{UserID: 13, CompanyID: 1, Profile: ProfileAdmin}
	otherTenant := Principal{UserID: 10, CompanyID: 2, Profile: ProfileUser}
	unknown := Principal{UserID: 11, CompanyID: 1, Profile: "dashboard"}
	cases := []struct {
		name string
		p    Principal
		s    ChatState
		cmd  ChatCommand
		want Code
	}{
		{"owner edits", owner, s, EditChat{}, ""},
		{"owner deletes", owner, s, DeleteChat{}, ""},
		{"member posts", member, s, PostChatMessage{SenderID: 11}, ""},
		{"member reads", member, s, ReadChat{UserID: 11}, ""},
		{"member cannot edit", member, s, EditChat{}, ErrNoPermission},
		{"member cannot delete", member, s, DeleteChat{}, ErrNoPermission},
		{"member cannot post as another", member, s, PostChatMessage{SenderID: 10}, ErrNoPermission},
		{"member cannot read for another", member, s, ReadChat{UserID: 10}, ErrNoPermission},
		{"outsider admin cannot read", outsider, s, ReadChat{UserID: 13}, ErrNoPermission},
		{"other tenant", otherTenant, s, PostChatMessage{SenderID: 10}, ErrNotFound},
		{"missing chat", owner, ChatState{}, PostChatMessage{SenderID: 10}, ErrNotFound},
		{"unknown profile", unknown, s, ReadChat{UserID: 11}, ErrNoPermission},
		{"create for self", owner, ChatState{}, CreateChat{CompanyID: 1, OwnerID: 10}, ""},
		{"create as another", owner, ChatState{}, CreateChat{CompanyID: 1, OwnerID: 11}, ErrNoPermission},
		{"create in another tenant", owner, ChatState{}, CreateChat{CompanyID: 2, OwnerID: 10}, ErrNoPermission},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := AuthorizeChat(tc.p, tc.s, tc.cmd)
			got := Code("")
			if err != nil {
				got = CodeOf(err)
			}
			if got != tc.want {
				t.Fatalf("got %q (%v), want %q", got, err, tc.want)
			}
		})
	}
}

func TestChatEventRoundTrip(t *testing.T) {
	ev := ChatEvent{Type: EvChatMessagePosted, ChatID: 3, UserID: 4, MessageID: 5, Body: "olá", Participants: []ID{4, 6}, At: time.Unix(1, 0).UTC()}
	typ, data, err := EncodeChatEvent(ev)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeChatEvent(typ, data)
	if err != nil || back.Body != "olá" || back.Type != EvChatMessagePosted || len(back.Participants) != 2 {
		t.Fatalf("%+v %v", back, err)
	}
	if _, err := DecodeChatEvent("chat.bogus", data); !errors.Is(err, ErrUnknownEventType) {
		t.Fatalf("unknown type: %v", err)
	}
	if _, err := DecodeChatEvent(EvChatRead, []byte("{")); err == nil {
		t.Fatal("broken JSON decoded")
	}
}
