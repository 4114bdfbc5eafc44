package engine

import (
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzDecideChatPost: any message body either is refused with a field error or
// becomes one event whose body is storable, trimmed text within the limit.
func FuzzDecideChatPost(f *testing.F) {
	s := ChatState{ID: 1, CompanyID: 1, OwnerID: 1, Participants: []ID{1, 2}, Version: 1}
	for _, seed := range []string{"oi", "", "  ", "a\x00b", "\xff\xfe", "linha\nlinha", "\u2028", "😀"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		evs, err := DecideChat(s, PostChatMessage{MessageID: 9, SenderID: 2, Body: body}, time.Unix(0, 0))
		if err != nil {
			if CodeOf(err) != ErrValidation {
				t.Fatalf("body %q: %v", body, err)
			}
			return
		}
		if len(evs) != 1 {
			t.Fatalf("body %q: %d events", body, len(evs))
		}
		b := evs[0].Body
		if b == "" || !utf8.ValidString(b) || !StorableText(b) || runeLen(b) > MaxMessageBody {
			t.Fatalf("body %q accepted as %q", body, b)
		}
		if next := EvolveChat(s, evs[0]); next.Unreads[1] != 1 || next.Unreads[2] != 0 {
			t.Fatalf("unreads %v", next.Unreads)
		}
	})
}

// FuzzDecodeChatEvent: journal payloads that are not ours never panic the decoder,
// and what decodes folds without panicking.
func FuzzDecodeChatEvent(f *testing.F) {
	f.Add(EvChatCreated, []byte(`{"chatId":1,"participants":[1,2],"at":"2026-01-01T00:00:00Z"}`))
	f.Add(EvChatMessagePosted, []byte(`{"chatId":1,"userId":2,"body":"oi"}`))
	f.Add(EvChatUpdated, []byte(`{"removed":[3],"participants":null}`))
	f.Add("chat.other", []byte(`{}`))
	f.Fuzz(func(t *testing.T, typ string, data []byte) {
		ev, err := DecodeChatEvent(typ, data)
		if err != nil {
			return
		}
		_ = EvolveChat(ChatState{}, ev)
	})
}

// FuzzDecideChatCreate: any title and user list either is refused with a field error
// or makes a chat whose participants are unique, sorted, positive and include the owner.
func FuzzDecideChatCreate(f *testing.F) {
	f.Add("Plantão", int64(2), int64(3), int64(2))
	f.Add("", int64(-1), int64(0), int64(1))
	f.Add("a\nb", int64(5), int64(5), int64(5))
	f.Fuzz(func(t *testing.T, title string, a, b, c int64) {
		evs, err := DecideChat(ChatState{}, CreateChat{ChatID: 1, CompanyID: 1, OwnerID: 1, Title: title, Users: []ID{a, b, c}}, time.Unix(0, 0))
		if err != nil {
			if CodeOf(err) != ErrValidation {
				t.Fatalf("%v", err)
			}
			return
		}
		ps := evs[0].Participants
		if len(ps) < 2 || ps[0] <= 0 {
			t.Fatalf("participants %v", ps)
		}
		owner := false
		for i, p := range ps {
			owner = owner || p == 1
			if i > 0 && ps[i-1] >= p {
				t.Fatalf("participants not sorted and unique: %v", ps)
			}
		}
		if !owner || (len(ps) > 2 && evs[0].Title == "") || !singleLine(evs[0].Title) {
			t.Fatalf("chat %+v", evs[0])
		}
	})
}
