package engine

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestOpenTicketValidation(t *testing.T) {
	with := func(f func(*OpenTicket)) OpenTicket {
		c := baseOpen
		f(&c)
		return c
	}
	tests := []struct {
		name   string
		cmd    OpenTicket
		fields map[string]string // nil: valid
	}{
		{"open with user", baseOpen, nil},
		{"pending without user", with(func(c *OpenTicket) { c.Status, c.UserID = StatusPending, 0 }), nil},
		{"no queue", with(func(c *OpenTicket) { c.QueueID = 0 }), nil},
		{"group on telegram", with(func(c *OpenTicket) { c.IsGroup, c.Channel = true, ChannelTelegram }), nil},
		{"no protocol", with(func(c *OpenTicket) { c.Protocol = "" }), nil},
		{"empty command", OpenTicket{}, map[string]string{
			"ticketId": MsgRequired, "companyId": MsgRequired, "contactId": MsgRequired, "whatsappId": MsgRequired,
			"uuid": MsgRequired, "channel": MsgRequired, "status": MsgRequired}},
		{"open without user", with(func(c *OpenTicket) { c.UserID = 0 }), map[string]string{"userId": MsgRequired}},
		{"pending with user", with(func(c *OpenTicket) { c.Status = StatusPending }), map[string]string{"userId": MsgInvalidValue}},
		{"born closed", with(func(c *OpenTicket) { c.Status = StatusClosed }), map[string]string{"status": MsgInvalidValue}},
		{"unknown channel", with(func(c *OpenTicket) { c.Channel = "sms" }), map[string]string{"channel": MsgInvalidValue}},
		{"negative ids", with(func(c *OpenTicket) { c.QueueID, c.ContactID = -1, -2 }),
			map[string]string{"queueId": MsgInvalidValue, "contactId": MsgInvalidValue}},
		{"blank uuid", with(func(c *OpenTicket) { c.UUID = "   " }), map[string]string{"uuid": MsgRequired}},
		{"uuid with newline", with(func(c *OpenTicket) { c.UUID = "a\nb" }), map[string]string{"uuid": MsgInvalidValue}},
		{"protocol with control", with(func(c *OpenTicket) { c.Protocol = "2026\x00" }), map[string]string{"protocol": MsgInvalidValue}},
		{"protocol too long", with(func(c *OpenTicket) { c.Protocol = strings.Repeat("9", 65) }), map[string]string{"protocol": MsgTooLong}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := DecideTicket(TicketState{}, tt.cmd, t0)
			if tt.fields == nil {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				s := FoldTicket(TicketState{}, evs)
				if s.ID != tt.cmd.TicketID || s.Status != tt.cmd.Status || s.UserID != tt.cmd.UserID ||
					s.QueueID != tt.cmd.QueueID || s.Channel != tt.cmd.Channel || s.IsGroup != tt.cmd.IsGroup ||
					s.CompanyID != tt.cmd.CompanyID || s.UUID != tt.cmd.UUID || s.Protocol != tt.cmd.Protocol ||
					!s.CreatedAt.Equal(t0) || !s.UpdatedAt.Equal(t0) || s.Version != 1 {
					t.Errorf("state %+v does not reflect %+v", s, tt.cmd)
				}
				return
			}
			if codeOf(t, err) != ErrValidation {
				t.Fatalf("error %v, want ERR_VALIDATION", err)
			}
			if !maps.Equal(fieldsOf(err), tt.fields) {
				t.Errorf("fields %v, want %v", fieldsOf(err), tt.fields)
			}
		})
	}
}

func TestLifecycleEffects(t *testing.T) {
	tests := []struct {
		name  string
		from  string
		cmd   TicketCommand
		check func(t *testing.T, s TicketState)
	}{
		{"accept assigns", StatusPending, Accept{UserID: 8}, func(t *testing.T, s TicketState) {
			if s.UserID != 8 || s.Status != StatusOpen || s.QueueID != 40 {
				t.Errorf("got %s user %d queue %d", s.Status, s.UserID, s.QueueID)
			}
		}},
		{"return drops the user, keeps queue and unread", StatusOpen, Return{}, func(t *testing.T, s TicketState) {
			if s.UserID != 0 || s.Status != StatusPending || s.QueueID != 40 || s.UnreadMessages != 1 {
				t.Errorf("got %+v", s)
			}
		}},
		{"resolve keeps the user and clears unread", StatusOpen, Resolve{}, func(t *testing.T, s TicketState) {
			if s.UserID != 7 || s.Status != StatusClosed || s.UnreadMessages != 0 {
				t.Errorf("got %+v", s)
			}
		}},
		{"reopen assigns the reopener", StatusClosed, Reopen{UserID: 8}, func(t *testing.T, s TicketState) {
			if s.UserID != 8 || s.Status != StatusOpen {
				t.Errorf("got %+v", s)
			}
		}},
		{"delete keeps the data, hides the ticket", StatusOpen, Delete{}, func(t *testing.T, s TicketState) {
			if !s.Deleted || s.Exists() || s.Status != StatusOpen {
				t.Errorf("got %+v", s)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fixture(t, tt.from)
			now := t0.Add(2 * time.Hour)
			evs, err := DecideTicket(s, tt.cmd, now)
			if err != nil {
				t.Fatal(err)
			}
			s = FoldTicket(s, evs)
			if !s.UpdatedAt.Equal(now) {
				t.Errorf("updatedAt %v, want %v", s.UpdatedAt, now)
			}
			tt.check(t, s)
		})
	}
}

func TestLifecycleEventsCarryHistory(t *testing.T) {
	s := fixture(t, StatusClosed)
	evs, err := DecideTicket(s, Reopen{UserID: 9}, t0)
	if err != nil {
		t.Fatal(err)
	}
	want := TicketReopened{FromUserID: 7, ToUserID: 9, QueueID: 40, At: t0}
	if !reflect.DeepEqual(evs, []TicketEvent{want}) {
		t.Errorf("got %#v, want %#v", evs, want)
	}
}

func TestTransfer(t *testing.T) {
	type want struct {
		status          string
		user, queue, wa ID
	}
	tests := []struct {
		name   string
		from   string
		cmd    Transfer
		want   *want // nil: no events
		err    Code
		fields map[string]string
	}{
		{"open to another user keeps the queue", StatusOpen, Transfer{UserID: 8}, &want{StatusOpen, 8, 40, 30}, "", nil},
		{"open to user and queue", StatusOpen, Transfer{UserID: 8, QueueID: 41}, &want{StatusOpen, 8, 41, 30}, "", nil},
		{"open to a queue only goes pending", StatusOpen, Transfer{QueueID: 41}, &want{StatusPending, 0, 41, 30}, "", nil},
		{"open to its own queue goes pending", StatusOpen, Transfer{QueueID: 40}, &want{StatusPending, 0, 40, 30}, "", nil},
		{"pending to a user opens it", StatusPending, Transfer{UserID: 9}, &want{StatusOpen, 9, 40, 30}, "", nil},
		{"pending to a queue", StatusPending, Transfer{QueueID: 41}, &want{StatusPending, 0, 41, 30}, "", nil},
		{"pending to another connection", StatusPending, Transfer{ConnectionID: 31}, &want{StatusPending, 0, 40, 31}, "", nil},
		{"open to another connection without user goes pending", StatusOpen, Transfer{ConnectionID: 31}, &want{StatusPending, 0, 40, 31}, "", nil},
		{"everything at once", StatusOpen, Transfer{UserID: 8, QueueID: 41, ConnectionID: 31}, &want{StatusOpen, 8, 41, 31}, "", nil},
		{"to where it already is", StatusOpen, Transfer{UserID: 7, QueueID: 40, ConnectionID: 30}, nil, "", nil},
		{"pending to its own queue", StatusPending, Transfer{QueueID: 40}, nil, "", nil},
		{"nothing chosen", StatusOpen, Transfer{}, nil, ErrValidation,
			map[string]string{"userId": MsgRequired, "queueId": MsgRequired}},
		{"negative user", StatusOpen, Transfer{UserID: -3}, nil, ErrValidation, map[string]string{"userId": MsgInvalidValue}},
		{"closed", StatusClosed, Transfer{UserID: 8}, nil, ErrInvalidTransition, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fixture(t, tt.from)
			evs, err := DecideTicket(s, tt.cmd, t0)
			if got := codeOf(t, err); got != tt.err {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
			if tt.fields != nil && !maps.Equal(fieldsOf(err), tt.fields) {
				t.Errorf("fields %v, want %v", fieldsOf(err), tt.fields)
			}
			if tt.want == nil {
				if len(evs) != 0 {
					t.Errorf("events %v, want none", evs)
				}
				return
			}
			if len(evs) != 1 {
				t.Fatalf("events %v", evs)
			}
			ev := evs[0].(TicketTransferred)
			if ev.FromUserID != s.UserID || ev.FromQueueID != s.QueueID || ev.FromConnectionID != s.ConnectionID || ev.FromStatus != s.Status {
				t.Errorf("from side %+v does not match state %+v", ev, s)
			}
			s = FoldTicket(s, evs)
			got := want{s.Status, s.UserID, s.QueueID, s.ConnectionID}
			if got != *tt.want {
				t.Errorf("got %+v, want %+v", got, *tt.want)
			}
		})
	}
}

func TestReceiveMessage(t *testing.T) {
	s := fixture(t, StatusOpen) // unread 1 from message 101
	later := t0.Add(time.Hour)
	evs, err := DecideTicket(s, ReceiveMessage{MessageID: 300, ProviderID: "p300", Body: "Preciso de ajuda"}, later)
	if err != nil {
		t.Fatal(err)
	}
	s = FoldTicket(s, evs)
	if s.UnreadMessages != 2 || s.LastMessage != "Preciso de ajuda" || !s.UpdatedAt.Equal(later) {
		t.Errorf("after receive: unread %d, last %q, updated %v", s.UnreadMessages, s.LastMessage, s.UpdatedAt)
	}
	if m := s.Messages[300]; m.FromMe || m.SenderID != 0 {
		t.Errorf("meta %+v", m)
	}

	dupes := []struct {
		name string
		cmd  ReceiveMessage
	}{
		{"same message id", ReceiveMessage{MessageID: 300, ProviderID: "p300", Body: "Preciso de ajuda"}},
		{"same provider id, new message id", ReceiveMessage{MessageID: 301, ProviderID: "p300", Body: "Preciso de ajuda"}},
		{"id of a message we sent", ReceiveMessage{MessageID: 100, Body: "x"}},
	}
	for _, d := range dupes {
		t.Run(d.name, func(t *testing.T) {
			evs, err := DecideTicket(s, d.cmd, later)
			if err != nil || len(evs) != 0 {
				t.Errorf("got %v, %v; want no events, nil", evs, err)
			}
		})
	}

	t.Run("retry after resolve is still a no-op", func(t *testing.T) {
		closed := fixture(t, StatusClosed)
		evs, err := DecideTicket(closed, ReceiveMessage{MessageID: 101, ProviderID: "p101", Body: "Oi"}, later)
		if err != nil || len(evs) != 0 {
			t.Errorf("got %v, %v", evs, err)
		}
	})
	t.Run("media without caption shows its type", func(t *testing.T) {
		evs, err := DecideTicket(s, ReceiveMessage{MessageID: 302, MediaType: MediaAudio, MediaURL: "/public/302.ogg"}, later)
		if err != nil {
			t.Fatal(err)
		}
		if got := FoldTicket(s.Clone(), evs).LastMessage; got != MediaAudio {
			t.Errorf("lastMessage %q", got)
		}
	})
}

func TestMessageValidation(t *testing.T) {
	open := fixture(t, StatusOpen)
	tests := []struct {
		name   string
		cmd    TicketCommand
		fields map[string]string
	}{
		{"receive: empty", ReceiveMessage{}, map[string]string{"messageId": MsgRequired, "body": MsgRequired}},
		{"receive: blank body", ReceiveMessage{MessageID: 1, Body: " \n\t"}, map[string]string{"body": MsgRequired}},
		{"receive: NUL", ReceiveMessage{MessageID: 1, Body: "a\x00b"}, map[string]string{"body": MsgInvalidValue}},
		{"receive: invalid UTF-8", ReceiveMessage{MessageID: 1, Body: "a\xffb"}, map[string]string{"body": MsgInvalidValue}},
		{"receive: huge", ReceiveMessage{MessageID: 1, Body: strings.Repeat("é", MaxMessageBody+1)}, map[string]string{"body": MsgTooLong}},
		{"receive: whisper media", ReceiveMessage{MessageID: 1, Body: "x", MediaType: MediaWhisper}, map[string]string{"mediaType": MsgInvalidValue}},
		{"receive: image without url", ReceiveMessage{MessageID: 1, Body: "x", MediaType: MediaImage}, map[string]string{"mediaUrl": MsgRequired}},
		{"receive: url with newline", ReceiveMessage{MessageID: 1, MediaType: MediaImage, MediaURL: "/a\nb"}, map[string]string{"mediaUrl": MsgInvalidValue}},
		{"receive: negative quote", ReceiveMessage{MessageID: 1, Body: "x", QuotedID: -1}, map[string]string{"quotedId": MsgInvalidValue}},
		{"receive: provider id with control", ReceiveMessage{MessageID: 1, Body: "x", ProviderID: "p\x01"}, map[string]string{"providerId": MsgInvalidValue}},
		{"send: no sender", SendMessage{MessageID: 1, Body: "x"}, map[string]string{"senderId": MsgRequired}},
		{"send: whisper media", SendMessage{MessageID: 1, SenderID: 7, Body: "x", MediaType: MediaWhisper}, map[string]string{"mediaType": MsgInvalidValue}},
		{"send: empty", SendMessage{MessageID: 1, SenderID: 7}, map[string]string{"body": MsgRequired}},
		{"automatic: empty", SendAutomaticMessage{}, map[string]string{"messageId": MsgRequired, "body": MsgRequired}},
		{"automatic: receipt without the channel's id", SendAutomaticMessage{MessageID: 1, Body: "x", Ack: AckRead},
			map[string]string{"ack": MsgInvalidValue}},
		{"automatic: 2 is no ack", SendAutomaticMessage{MessageID: 1, ProviderID: "p", Body: "x", Ack: 2},
			map[string]string{"ack": MsgInvalidValue}},
		{"whisper: empty", AddWhisper{}, map[string]string{"messageId": MsgRequired, "senderId": MsgRequired, "body": MsgRequired}},
		{"ack: 2 is no ack", AckMessage{MessageID: 100, Ack: 2}, map[string]string{"ack": MsgInvalidValue}},
		{"ack: 5", AckMessage{MessageID: 100, Ack: 5}, map[string]string{"ack": MsgInvalidValue}},
		{"ack: no message", AckMessage{Ack: 1}, map[string]string{"messageId": MsgRequired}},
		{"delete message: nobody", DeleteMessage{MessageID: 100}, map[string]string{"byUserId": MsgRequired}},
		{"tags: zero id", SetTags{TagIDs: []ID{1, 0}}, map[string]string{"tags": MsgInvalidValue}},
		{"tags: too many", SetTags{TagIDs: seq(MaxTicketTags + 1)}, map[string]string{"tags": MsgTooLong}},
		{"accept: nobody", Accept{}, map[string]string{"userId": MsgRequired}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := DecideTicket(open, tt.cmd, t0)
			if codeOf(t, err) != ErrValidation || evs != nil {
				t.Fatalf("got %v, %v; want ERR_VALIDATION", evs, err)
			}
			if !maps.Equal(fieldsOf(err), tt.fields) {
				t.Errorf("fields %v, want %v", fieldsOf(err), tt.fields)
			}
		})
	}
}

func seq(n int) []ID {
	out := make([]ID, n)
	for i := range out {
		out[i] = ID(i + 1)
	}
	return out
}

func TestSendKinds(t *testing.T) {
	open := fixture(t, StatusOpen)
	later := t0.Add(time.Hour)

	t.Run("attendant reply", func(t *testing.T) {
		evs, err := DecideTicket(open, SendMessage{MessageID: 400, SenderID: 7, Body: "Pronto", QuotedID: 101}, later)
		if err != nil {
			t.Fatal(err)
		}
		want := TicketMessageSent{MessageID: 400, SenderID: 7, Body: "Pronto", QuotedID: 101, At: later}
		if !reflect.DeepEqual(evs, []TicketEvent{want}) {
			t.Errorf("got %#v", evs)
		}
		s := FoldTicket(open.Clone(), evs)
		if s.UnreadMessages != open.UnreadMessages || s.LastMessage != "Pronto" || !s.UpdatedAt.Equal(later) {
			t.Errorf("state %+v", s)
		}
		if m := s.Messages[400]; !m.FromMe || m.SenderID != 7 || m.Ack != AckPending {
			t.Errorf("meta %+v", m)
		}
		again, err := DecideTicket(s, SendMessage{MessageID: 400, SenderID: 7, Body: "Pronto"}, later)
		if err != nil || again != nil {
			t.Errorf("retry gave %v, %v", again, err)
		}
	})
	t.Run("automatic farewell on a closed ticket", func(t *testing.T) {
		closed := fixture(t, StatusClosed)
		evs, err := DecideTicket(closed, SendAutomaticMessage{MessageID: 401, ProviderID: "echo-1", Body: "Até logo"}, later)
		if err != nil {
			t.Fatal(err)
		}
		ev := evs[0].(TicketMessageSent)
		if !ev.Automatic || ev.SenderID != 0 {
			t.Errorf("event %+v", ev)
		}
		s := FoldTicket(closed, evs)
		if s.UnreadMessages != 0 || s.Status != StatusClosed || s.ProviderIDs["echo-1"] != 401 {
			t.Errorf("state %+v", s)
		}
		if evs, err := DecideTicket(s, SendAutomaticMessage{MessageID: 402, ProviderID: "echo-1", Body: "Até logo"}, later); err != nil || evs != nil {
			t.Errorf("echo redelivery gave %v, %v", evs, err)
		}
	})
	t.Run("history with its receipt", func(t *testing.T) {
		evs := mustDecide(t, open, SendAutomaticMessage{MessageID: 404, ProviderID: "old-1", Body: "Enviado ontem", Ack: AckRead})
		if len(evs) != 1 || evs[0].(TicketMessageSent).Ack != AckRead {
			t.Fatalf("events %+v, want one sent message carrying its read receipt", evs)
		}
		s := FoldTicket(open.Clone(), evs)
		if m := s.Messages[404]; m.Ack != AckRead || !m.FromMe {
			t.Errorf("message %+v", m)
		}
		// A later receipt that is not news adds nothing.
		if evs, err := DecideTicket(s, AckMessage{MessageID: 404, Ack: AckSent}, later); err != nil || len(evs) != 0 {
			t.Errorf("stale receipt gave %v, %v", evs, err)
		}
	})
	t.Run("whisper stays internal", func(t *testing.T) {
		evs, err := DecideTicket(open, AddWhisper{MessageID: 403, SenderID: 9, Body: "cliente VIP"}, later)
		if err != nil {
			t.Fatal(err)
		}
		s := FoldTicket(open.Clone(), evs)
		if s.LastMessage != open.LastMessage || s.UnreadMessages != open.UnreadMessages || !s.UpdatedAt.Equal(open.UpdatedAt) {
			t.Errorf("whisper changed the conversation: %+v", s)
		}
		if m := s.Messages[403]; !m.Whisper || !m.FromMe || m.SenderID != 9 {
			t.Errorf("meta %+v", m)
		}
	})
}

func TestAckMessage(t *testing.T) {
	base := fixture(t, StatusOpen)
	base = FoldTicket(base, mustDecide(t, base, AddWhisper{MessageID: 102, SenderID: 7, Body: "nota"}))
	base = FoldTicket(base, mustDecide(t, base, SendAutomaticMessage{MessageID: 103, Body: "Bem-vindo"}))
	tests := []struct {
		name    string
		acks    []int // applied in order to message 100
		final   int
		nEvents int
	}{
		{"in order", []int{AckSent, AckRead, AckPlayed}, AckPlayed, 3},
		{"read before sent", []int{AckRead, AckSent}, AckRead, 1},
		{"repeated", []int{AckSent, AckSent, AckSent}, AckSent, 1},
		{"pending is never news", []int{AckPending}, AckPending, 0},
		{"played then read", []int{AckPlayed, AckRead, AckSent}, AckPlayed, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base.Clone()
			n := 0
			for _, a := range tt.acks {
				evs, err := DecideTicket(s, AckMessage{MessageID: 100, Ack: a}, t0)
				if err != nil {
					t.Fatalf("ack %d: %v", a, err)
				}
				n += len(evs)
				s = FoldTicket(s, evs)
			}
			if s.Messages[100].Ack != tt.final || n != tt.nEvents {
				t.Errorf("ack %d after %d events, want %d after %d", s.Messages[100].Ack, n, tt.final, tt.nEvents)
			}
			if !s.UpdatedAt.Equal(base.UpdatedAt) {
				t.Error("an ack moved updatedAt")
			}
		})
	}
	errs := []struct {
		name string
		id   ID
		code Code
	}{
		{"unknown message", 999, ErrNoMessageFound},
		{"customer's message", 101, ErrInvalidTransition},
		{"whisper", 102, ErrInvalidTransition},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecideTicket(base, AckMessage{MessageID: tt.id, Ack: AckRead}, t0)
			if codeOf(t, err) != tt.code {
				t.Errorf("error %v, want %s", err, tt.code)
			}
		})
	}
	t.Run("automatic message takes receipts", func(t *testing.T) {
		if evs, err := DecideTicket(base, AckMessage{MessageID: 103, Ack: AckSent}, t0); err != nil || len(evs) != 1 {
			t.Errorf("got %v, %v", evs, err)
		}
	})
}

func mustDecide(t *testing.T, s TicketState, c TicketCommand) []TicketEvent {
	t.Helper()
	evs, err := DecideTicket(s, c, t0)
	if err != nil {
		t.Fatalf("%s: %v", c.CommandName(), err)
	}
	return evs
}

func TestDeleteMessage(t *testing.T) {
	base := fixture(t, StatusOpen)
	base = FoldTicket(base, mustDecide(t, base, AddWhisper{MessageID: 102, SenderID: 9, Body: "nota"}))
	base = FoldTicket(base, mustDecide(t, base, SendAutomaticMessage{MessageID: 103, Body: "Bem-vindo"}))
	tests := []struct {
		name    string
		cmd     DeleteMessage
		code    Code
		nEvents int
	}{
		{"own message", DeleteMessage{MessageID: 100, ByUserID: 7}, "", 1},
		{"own whisper", DeleteMessage{MessageID: 102, ByUserID: 9}, "", 1},
		{"someone else's message", DeleteMessage{MessageID: 100, ByUserID: 8}, ErrNoPermission, 0},
		{"customer's message", DeleteMessage{MessageID: 101, ByUserID: 7}, ErrNoPermission, 0},
		{"automatic message", DeleteMessage{MessageID: 103, ByUserID: 7}, ErrNoPermission, 0},
		{"unknown message", DeleteMessage{MessageID: 999, ByUserID: 7}, ErrNoMessageFound, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := DecideTicket(base, tt.cmd, t0)
			if codeOf(t, err) != tt.code || len(evs) != tt.nEvents {
				t.Fatalf("got %v, %v; want %q and %d events", evs, err, tt.code, tt.nEvents)
			}
			if tt.nEvents == 0 {
				return
			}
			s := FoldTicket(base.Clone(), evs)
			if !s.Messages[tt.cmd.MessageID].Deleted {
				t.Error("not marked deleted")
			}
			if evs, err := DecideTicket(s, tt.cmd, t0); err != nil || evs != nil {
				t.Errorf("second delete gave %v, %v", evs, err)
			}
			if _, err := DecideTicket(s, DeleteMessage{MessageID: tt.cmd.MessageID, ByUserID: 1}, t0); codeOf(t, err) != ErrNoPermission {
				t.Errorf("a stranger deleting a deleted message got %v", err)
			}
		})
	}
}

func TestMarkReadAndTags(t *testing.T) {
	s := fixture(t, StatusOpen)
	evs := mustDecide(t, s, MarkRead{})
	if !reflect.DeepEqual(evs, []TicketEvent{TicketRead{Count: 1, At: t0}}) {
		t.Errorf("read events %#v", evs)
	}
	s = FoldTicket(s, evs)
	if s.UnreadMessages != 0 {
		t.Errorf("unread %d", s.UnreadMessages)
	}
	if evs := mustDecide(t, s, MarkRead{}); evs != nil {
		t.Errorf("second read gave %v", evs)
	}

	evs = mustDecide(t, s, SetTags{TagIDs: []ID{9, 2, 9, 5}})
	if !reflect.DeepEqual(evs, []TicketEvent{TicketTagsSet{TagIDs: []ID{2, 5, 9}, At: t0}}) {
		t.Errorf("tag events %#v", evs)
	}
	s = FoldTicket(s, evs)
	if evs := mustDecide(t, s, SetTags{TagIDs: []ID{5, 2, 9}}); evs != nil {
		t.Errorf("same set gave %v", evs)
	}
	s = FoldTicket(s, mustDecide(t, s, SetTags{}))
	if s.TagIDs != nil {
		t.Errorf("cleared tags = %#v, want nil", s.TagIDs)
	}
	if evs := mustDecide(t, s, SetTags{TagIDs: []ID{}}); evs != nil {
		t.Errorf("clearing no tags gave %v", evs)
	}
}

func TestDecideTimeAndPurity(t *testing.T) {
	sp := time.FixedZone("BRT", -3*3600)
	now := time.Date(2026, 11, 22, 9, 0, 0, 123456789, sp)
	s := fixture(t, StatusOpen)
	before := s.Clone()
	evs, err := DecideTicket(s, Resolve{}, now)
	if err != nil {
		t.Fatal(err)
	}
	at := evs[0].OccurredAt()
	if at.Location() != time.UTC || at.Nanosecond() != 123456000 || !at.Equal(now.Truncate(time.Microsecond)) {
		t.Errorf("event time %v (%v)", at, at.Location())
	}
	if !reflect.DeepEqual(s, before) {
		t.Error("DecideTicket modified its state")
	}
	again, _ := DecideTicket(s, Resolve{}, now)
	if !reflect.DeepEqual(evs, again) {
		t.Error("DecideTicket is not deterministic")
	}
}

func TestDecideOddCommands(t *testing.T) {
	s := fixture(t, StatusOpen)
	if _, err := DecideTicket(s, nil, t0); codeOf(t, err) != ErrInternal {
		t.Errorf("nil command: %v", err)
	}
	if _, err := DecideTicket(s, &Resolve{}, t0); codeOf(t, err) != ErrInternal {
		t.Errorf("pointer command: %v", err)
	}
}

func TestTicketStateSnapshotRoundTrip(t *testing.T) {
	s := fixture(t, StatusOpen)
	s = FoldTicket(s, mustDecide(t, s, SetTags{TagIDs: []ID{3, 1}}))
	s = FoldTicket(s, mustDecide(t, s, AckMessage{MessageID: 100, Ack: AckRead}))
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back TicketState
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Errorf("snapshot round trip:\n got %+v\nwant %+v", back, s)
	}
}

func TestCloneIsDeep(t *testing.T) {
	s := fixture(t, StatusOpen)
	s = FoldTicket(s, mustDecide(t, s, SetTags{TagIDs: []ID{1}}))
	c := s.Clone()
	c = FoldTicket(c, mustDecide(t, c, ReceiveMessage{MessageID: 500, ProviderID: "p500", Body: "x"}))
	c.TagIDs[0] = 99
	if s.HasMessage(500) || s.ProviderIDs["p500"] != 0 || s.TagIDs[0] != 1 {
		t.Error("clone shares data with the original")
	}
}

func TestTicketView(t *testing.T) {
	s := fixture(t, StatusOpen)
	s = FoldTicket(s, mustDecide(t, s, SetTags{TagIDs: []ID{4, 2}}))
	tk := s.Ticket()
	if tk.ID != 10 || tk.Status != StatusOpen || tk.UserID != 7 || tk.QueueID != 40 || tk.UnreadMessages != 1 ||
		tk.LastMessage != "Oi" || tk.Channel != ChannelWhatsApp || tk.UUID != "uuid-10" {
		t.Errorf("ticket %+v", tk)
	}
	if ids := []ID{tk.Tags[0].ID, tk.Tags[1].ID}; !slices.Equal(ids, []ID{2, 4}) {
		t.Errorf("tags %v", tk.Tags)
	}
}
