package engine

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// randomTicketCommand draws a command from small pools of ids, so that duplicates,
// unknown messages, other people's messages and invalid values all come up often.
func randomTicketCommand(r *rand.Rand) TicketCommand {
	user := func() ID { return ID(r.IntN(4)) } // 0 is "none"
	queue := func() ID { return ID(r.IntN(3)) }
	msg := func() ID { return ID(r.IntN(25)) }
	provider := func() string {
		if r.IntN(3) == 0 {
			return ""
		}
		return fmt.Sprintf("p%d", r.IntN(8))
	}
	body := func() string {
		return []string{"", "oi", "Olá 😀", "  ", "O'Brien; DROP TABLE tickets;--", "a\x00b", "2", " 3. ", "4"}[r.IntN(9)]
	}
	switch r.IntN(21) {
	case 0:
		c := baseOpen
		c.Status = []string{StatusOpen, StatusPending, StatusClosed}[r.IntN(3)]
		c.UserID, c.QueueID = user(), queue()
		return c
	case 1:
		return Accept{UserID: user()}
	case 2:
		return Resolve{}
	case 3:
		return Return{}
	case 4:
		return Reopen{UserID: user()}
	case 5:
		return Transfer{UserID: user(), QueueID: queue(), ConnectionID: ID(r.IntN(3)) * 30}
	case 6:
		if r.IntN(40) == 0 { // deletion ends the ticket: keep it rare
			return Delete{}
		}
		return MarkRead{}
	case 7, 8:
		return ReceiveMessage{MessageID: msg(), ProviderID: provider(), Body: body()}
	case 9:
		return SendMessage{MessageID: msg(), SenderID: user(), Body: body()}
	case 10:
		if r.IntN(2) == 0 {
			return BotStep{ReplyTo: provider(), MessageID: msg(), Body: body(), FromLevel: ID(r.IntN(2)),
				Level: ID(r.IntN(3)), Done: r.IntN(2) == 0, Absent: r.IntN(2) == 0, QueueID: queue(), UserID: user()}
		}
		return SendAutomaticMessage{MessageID: msg(), ProviderID: provider(), Body: body()}
	case 11:
		if r.IntN(3) == 0 {
			return AddWhisper{MessageID: msg(), SenderID: user(), Body: body(), MediaType: MediaChatGPT}
		}
		return AddWhisper{MessageID: msg(), SenderID: user(), Body: body()}
	case 12, 13:
		return AckMessage{MessageID: msg(), Ack: r.IntN(6) - 1, ProviderID: provider()}
	case 16, 17:
		return RevokeMessage{ProviderID: provider(), FromMe: r.IntN(2) == 0}
	case 18:
		if r.IntN(2) == 0 {
			return AskRating{MessageID: msg(), Body: body()}
		}
		return FailMessage{MessageID: msg(), Reason: body()}
	case 14:
		if r.IntN(3) == 0 {
			return TranslateMessage{MessageID: msg(), ByUserID: user(), Language: []string{"cn", "es", "gb", "fr"}[r.IntN(4)], Body: body()}
		}
		return DeleteMessage{MessageID: msg(), ByUserID: user()}
	case 19:
		return Invite{UserID: user(), ByUserID: user(), ToName: body(), FromName: "Ana"}
	case 20:
		if r.IntN(2) == 0 {
			return AcceptInvite{UserID: user()}
		}
		return DeclineInvite{UserID: user()}
	default:
		ids := make([]ID, r.IntN(4))
		for i := range ids {
			ids[i] = ID(r.IntN(5))
		}
		return SetTags{TagIDs: ids}
	}
}

var decideCodes = map[Code]bool{
	ErrNoTicketFound: true, ErrInvalidTransition: true, ErrValidation: true,
	ErrNoMessageFound: true, ErrNoPermission: true,
}

// checkTicketInvariants holds for every state decide/evolve can reach.
func checkTicketInvariants(s TicketState) error {
	if s.Status == "" {
		if s.Version != 0 || s.Deleted {
			return fmt.Errorf("unopened ticket with version %d, deleted %v", s.Version, s.Deleted)
		}
		return nil
	}
	switch s.Status {
	case StatusOpen:
		if s.UserID == 0 {
			return fmt.Errorf("open without a user")
		}
	case StatusPending:
		if s.UserID != 0 {
			return fmt.Errorf("pending with user %d", s.UserID)
		}
	case StatusClosed:
		if s.UnreadMessages != 0 {
			return fmt.Errorf("closed with %d unread", s.UnreadMessages)
		}
	default:
		return fmt.Errorf("status %q", s.Status)
	}
	inbound := 0
	for id, m := range s.Messages {
		if !validAcks[m.Ack] {
			return fmt.Errorf("message %d has ack %d", id, m.Ack)
		}
		if !m.FromMe {
			inbound++
			if m.SenderID != 0 || m.Ack != 0 || m.Whisper {
				return fmt.Errorf("inbound message %d: %+v", id, m)
			}
		}
		if m.Whisper && m.Ack != 0 {
			return fmt.Errorf("whisper %d was acked", id)
		}
	}
	if s.UnreadMessages < 0 || s.UnreadMessages > inbound {
		return fmt.Errorf("unread %d of %d inbound", s.UnreadMessages, inbound)
	}
	for p, id := range s.ProviderIDs {
		if !s.HasMessage(id) {
			return fmt.Errorf("provider id %q points at unknown message %d", p, id)
		}
	}
	for i := 1; i < len(s.TagIDs); i++ {
		if s.TagIDs[i] <= s.TagIDs[i-1] {
			return fmt.Errorf("tags not sorted and unique: %v", s.TagIDs)
		}
	}
	for i, g := range s.Guests {
		if g <= 0 || (i > 0 && g <= s.Guests[i-1]) {
			return fmt.Errorf("guests not sorted, unique and positive: %v", s.Guests)
		}
		if _, pending := s.Invites[g]; pending {
			return fmt.Errorf("guest %d still has a pending invitation", g)
		}
	}
	for to, by := range s.Invites {
		if to <= 0 || by <= 0 || to == by {
			return fmt.Errorf("invitation %d by %d", to, by)
		}
	}
	return nil
}

// TestTicketProperties runs random command sequences through decide/evolve and checks,
// after every step: errors are catalogue errors with no events; decide is
// deterministic and leaves its input alone; every event survives the journal's
// encoding; the version grows by the number of events; a deleted ticket takes
// nothing; acks never move back; the state invariants of TicketState hold. At the end
// a replay of all events from zero rebuilds the same state, and so does a snapshot.
func TestTicketProperties(t *testing.T) {
	const sequences, steps = 300, 150
	produced := map[string]int{} // event type -> count, over all sequences
	failed := map[Code]int{}
	for seed := range uint64(sequences) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 0x5eed))
			var (
				s   TicketState
				all []TicketEvent
				now = t0
			)
			// Most sequences start opened, so the interesting part is reached.
			if seed%5 != 0 {
				evs := mustDecide(t, s, baseOpen)
				s, all = FoldTicket(s, evs), append(all, evs...)
			}
			for step := range steps {
				now = now.Add(time.Duration(r.IntN(90)) * time.Second)
				cmd := randomTicketCommand(r)
				before := s.Clone()
				evs, err := DecideTicket(s, cmd, now)
				where := fmt.Sprintf("step %d %s %+v on %s v%d", step, cmd.CommandName(), cmd, s.Status, s.Version)

				if !reflect.DeepEqual(s, before) {
					t.Fatalf("%s: decide modified its state", where)
				}
				evs2, err2 := DecideTicket(before, cmd, now)
				if !reflect.DeepEqual(evs, evs2) || codeOfErr(err) != codeOfErr(err2) {
					t.Fatalf("%s: not deterministic", where)
				}
				if err != nil {
					if !decideCodes[codeOfErr(err)] {
						t.Fatalf("%s: unexpected error %v", where, err)
					}
					if evs != nil {
						t.Fatalf("%s: events with an error", where)
					}
					failed[codeOfErr(err)]++
					continue
				}
				if before.Deleted && len(evs) > 0 {
					t.Fatalf("%s: a deleted ticket produced %v", where, evs)
				}
				for _, ev := range evs {
					typ, data, err := EncodeTicketEvent(ev)
					if err != nil {
						t.Fatalf("%s: encode: %v", where, err)
					}
					back, err := DecodeTicketEvent(typ, data)
					if err != nil || !reflect.DeepEqual(back, ev) {
						t.Fatalf("%s: round trip of %#v gave %#v, %v", where, ev, back, err)
					}
				}
				for _, ev := range evs {
					produced[ev.Type()]++
				}
				s = FoldTicket(s, evs)
				all = append(all, evs...)
				if s.Version != before.Version+int64(len(evs)) {
					t.Fatalf("%s: version %d after %d events from %d", where, s.Version, len(evs), before.Version)
				}
				for id, m := range before.Messages {
					if s.Messages[id].Ack < m.Ack || (m.Deleted && !s.Messages[id].Deleted) {
						t.Fatalf("%s: message %d went back: %+v -> %+v", where, id, m, s.Messages[id])
					}
				}
				if err := checkTicketInvariants(s); err != nil {
					t.Fatalf("%s: %v", where, err)
				}
			}
			if replay := FoldTicket(TicketState{}, all); !reflect.DeepEqual(replay, s) {
				t.Fatalf("replay differs:\n got %+v\nwant %+v", replay, s)
			}
			if s.Version != int64(len(all)) {
				t.Fatalf("version %d after %d events", s.Version, len(all))
			}
			data, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var snap TicketState
			if err := json.Unmarshal(data, &snap); err != nil || !reflect.DeepEqual(snap, s) {
				t.Fatalf("snapshot round trip: %v\n got %+v\nwant %+v", err, snap, s)
			}
		})
	}
	// The generator must reach every event and every refusal, or the test proves little.
	for _, typ := range TicketEventTypes() {
		if produced[typ] == 0 {
			t.Errorf("no sequence produced %s", typ)
		}
	}
	for code := range decideCodes {
		if failed[code] == 0 {
			t.Errorf("no sequence was refused with %s", code)
		}
	}
	t.Logf("events %v; refusals %v", produced, failed)
}

func codeOfErr(err error) Code {
	if err == nil {
		return ""
	}
	return CodeOf(err)
}
