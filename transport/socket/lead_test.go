package socket

import (
	"encoding/json"
	"strings"
	"testing"
)

// whaticket's ticket move: "delete" to the rooms the ticket left, then "update" to
// the room it entered. The lead frame reaches the members of its rooms (filtered like
// the event, without "seq"), before the main frame; a socket in both gets both.
func TestPublishLeadFrameBeforeTheEvent(t *testing.T) {
	h, err := NewHub(HubConfig{})
	if err != nil {
		t.Fatal(err)
	}
	pending, open := TicketsRoom("pending"), TicketsRoom("open")
	onlyLeft := hubConn(Principal{UserID: 1, CompanyID: 1}, 16)
	onlyEntered := hubConn(Principal{UserID: 2, CompanyID: 1}, 16)
	both := hubConn(Principal{UserID: 3, CompanyID: 1}, 16)
	hidden := hubConn(Principal{UserID: 4, CompanyID: 1}, 16)
	for c, rooms := range map[*conn][]Room{onlyLeft: {pending}, onlyEntered: {open}, both: {pending, open}, hidden: {pending, open}} {
		if err := h.join(c, rooms, nil, nil, -1); err != nil {
			t.Fatal(err)
		}
	}
	ev := Event{Tenant: 1, Rooms: []Room{open}, Name: "ticket", Payload: json.RawMessage(`{"action":"update"}`),
		Filter: FilterFunc(func(p Principal) bool { return p.UserID != 4 }),
		Lead:   &Lead{Rooms: []Room{pending}, Payload: json.RawMessage(`{"action":"delete","ticketId":7}`)}}
	seq, err := h.Publish(ev)
	if err != nil {
		t.Fatal(err)
	}
	lead := `42["ticket",{"action":"delete","ticketId":7}]`
	main := `42["ticket",{"action":"update","seq":` + itoa(seq) + `}]`
	for name, tc := range map[string]struct {
		c    *conn
		want []string
	}{
		"left only":    {onlyLeft, []string{lead}},
		"entered only": {onlyEntered, []string{main}},
		"in both":      {both, []string{lead, main}},
		"filtered out": {hidden, nil},
	} {
		if got := queued(tc.c); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s: queued %q, want %q", name, got, tc.want)
		}
	}

	// A socket joining later is replayed the same frames, in the same order.
	late := hubConn(Principal{UserID: 5, CompanyID: 1}, 16)
	late.replay, late.lastSeq = true, seq-1
	if err := h.join(late, []Room{pending, open}, nil, nil, -1); err != nil {
		t.Fatal(err)
	}
	if got := queued(late); strings.Join(got, "\n") != lead+"\n"+main {
		t.Fatalf("replayed %q", got)
	}

	// A lead needs rooms and an object.
	for _, bad := range []*Lead{{Payload: json.RawMessage(`{}`)}, {Rooms: []Room{pending}, Payload: json.RawMessage(`[1]`)},
		{Rooms: []Room{TicketsRoom("archived")}, Payload: json.RawMessage(`{}`)}} {
		e := ev
		e.Lead = bad
		if _, err := h.Publish(e); err == nil {
			t.Fatalf("lead %+v accepted", bad)
		}
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }
