package engine

import (
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

var goldenAt = time.Date(2026, 11, 22, 13, 45, 6, 123456000, time.UTC)

// sampleTicketEvents holds one fully populated event per registered type.
func sampleTicketEvents() []TicketEvent {
	return []TicketEvent{
		TicketOpened{TicketID: 10, UUID: "3f0c6a52-5d0e-4c47-9b62-0f1a1b2c3d4e", CompanyID: 1, ContactID: 20,
			ConnectionID: 30, Channel: ChannelWhatsApp, QueueID: 40, UserID: 7, Status: StatusOpen,
			IsGroup: false, Protocol: "20261122-000010", At: goldenAt},
		TicketAccepted{UserID: 7, QueueID: 40, At: goldenAt},
		TicketResolved{UserID: 7, QueueID: 40, At: goldenAt},
		TicketReturned{FromUserID: 7, QueueID: 40, At: goldenAt},
		TicketReopened{FromUserID: 7, ToUserID: 8, QueueID: 40, At: goldenAt},
		TicketTransferred{FromUserID: 7, ToUserID: 8, FromQueueID: 40, ToQueueID: 41, FromConnectionID: 30,
			ToConnectionID: 31, FromStatus: StatusOpen, ToStatus: StatusOpen, At: goldenAt},
		TicketDeleted{UserID: 7, QueueID: 40, At: goldenAt},
		TicketMessageReceived{MessageID: 100, ProviderID: "3EB0C767D26A1D2E", Body: "Olá, tudo bem? 😀",
			MediaType: MediaImage, MediaURL: "/public/100.jpg", QuotedID: 99, At: goldenAt},
		TicketMessageSent{MessageID: 101, SenderID: 7, Automatic: false, ProviderID: "", Body: "Bom dia!",
			MediaType: MediaDocument, MediaURL: "/public/101.pdf", QuotedID: 100, At: goldenAt},
		TicketWhisperAdded{MessageID: 102, SenderID: 9, Body: "cliente VIP", At: goldenAt},
		TicketMessageTranslated{MessageID: 100, ByUserID: 7, Language: "es", Body: "Hola, ¿todo bien? 😀", At: goldenAt},
		TicketMessageAcked{MessageID: 101, Ack: AckRead, ProviderID: "3EB0A1B2C3D4E5F6", At: goldenAt},
		TicketMessageFailed{MessageID: 101, Reason: "recipient is not on WhatsApp", At: goldenAt},
		TicketMessageDeleted{MessageID: 101, ByUserID: 7, At: goldenAt},
		TicketRead{Count: 3, At: goldenAt},
		TicketTagsSet{TagIDs: []ID{2, 5}, At: goldenAt},
		TicketRatingAsked{MessageID: 103, At: goldenAt},
		TicketBotStepped{ReplyTo: "3EB0C767D26A1D2E", Level: 12, Done: true, Absent: true, AbsentAt: goldenAt, At: goldenAt},
		TicketRated{Score: 3, ContactID: 20, QueueID: 40, UserID: 7, At: goldenAt},
		TicketInvited{UserID: 8, ByUserID: 7, ToName: "Bruno", FromName: "Ana Lúcia", At: goldenAt},
		TicketInviteAccepted{UserID: 8, ByUserID: 7, Name: "Bruno", At: goldenAt},
		TicketInviteDeclined{UserID: 8, ByUserID: 7, Name: "Bruno", At: goldenAt},
	}
}

func TestTicketEventRegistryCoversSamples(t *testing.T) {
	var types []string
	for _, ev := range sampleTicketEvents() {
		types = append(types, ev.Type())
	}
	slices.Sort(types)
	if !slices.Equal(types, TicketEventTypes()) {
		t.Errorf("samples %v\nregistry %v", types, TicketEventTypes())
	}
	for _, typ := range TicketEventTypes() {
		if !strings.HasPrefix(typ, "ticket.") {
			t.Errorf("type %q lacks the ticket. prefix", typ)
		}
	}
}

// TestTicketEventGolden pins each event's journal payload: a change to a stored
// event's JSON shows up here (and must stay readable by DecodeTicketEvent).
func TestTicketEventGolden(t *testing.T) {
	for _, ev := range sampleTicketEvents() {
		t.Run(ev.Type(), func(t *testing.T) {
			typ, data, err := EncodeTicketEvent(ev)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if typ != ev.Type() {
				t.Errorf("type %q, want %q", typ, ev.Type())
			}
			path := filepath.Join("testdata", "ticket_events", strings.TrimPrefix(typ, "ticket.")+".json")
			checkGolden(t, path, append(data, '\n'))

			got, err := DecodeTicketEvent(typ, data)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !reflect.DeepEqual(got, ev) {
				t.Errorf("round trip:\n got %#v\nwant %#v", got, ev)
			}
			if !got.OccurredAt().Equal(goldenAt) {
				t.Errorf("OccurredAt = %v", got.OccurredAt())
			}
		})
	}
}

func TestDecodeTicketEventErrors(t *testing.T) {
	tests := []struct {
		name    string
		typ     string
		data    string
		unknown bool
	}{
		{"unknown type", "ticket.exploded", `{}`, true},
		{"empty type", "", `{}`, true},
		{"broken json", EvTicketAccepted, `{"userId":`, false},
		{"wrong field type", EvTicketAccepted, `{"userId":"seven"}`, false},
		{"not an object", EvTicketRead, `[1,2]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := DecodeTicketEvent(tt.typ, []byte(tt.data))
			if err == nil {
				t.Fatalf("decoded %#v, want an error", ev)
			}
			if got := errors.Is(err, ErrUnknownEventType); got != tt.unknown {
				t.Errorf("errors.Is(ErrUnknownEventType) = %v, want %v (%v)", got, tt.unknown, err)
			}
			if !strings.Contains(err.Error(), "decode ticket event") {
				t.Errorf("error lacks context: %v", err)
			}
		})
	}
}

func TestDecodeTicketEventTolerance(t *testing.T) {
	// A newer writer's extra field is ignored; a missing optional field is zero.
	ev, err := DecodeTicketEvent(EvTicketMessageReceived,
		[]byte(`{"messageId":5,"body":"oi","at":"2026-11-22T13:45:06.123456Z","futureField":{"x":1}}`))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	want := TicketMessageReceived{MessageID: 5, Body: "oi", At: goldenAt}
	if !reflect.DeepEqual(ev, want) {
		t.Errorf("got %#v, want %#v", ev, want)
	}
}

func TestEncodeTicketEventNil(t *testing.T) {
	if _, _, err := EncodeTicketEvent(nil); err == nil {
		t.Error("encoding a nil event succeeded")
	}
}
