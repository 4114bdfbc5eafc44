package realtime

import (
	"encoding/json"
	"testing"

	"atende/engine"
	"atende/transport/socket"
)

// A notice held to a permission reaches only the sockets whose profile has it; one
// without reaches the whole tenant.
func TestNoticePermissionFilter(t *testing.T) {
	event := func(n Notice) *socket.Event {
		t.Helper()
		data, _ := json.Marshal(n)
		ev, err := noticeEvent(engine.RecordedEvent{Type: EvRealtime, Data: data})
		if err != nil || ev == nil {
			t.Fatalf("notice event: %v %v", ev, err)
		}
		return ev
	}
	held := event(Notice{Event: "tenant", Payload: json.RawMessage(`{"action":"create"}`), Permission: engine.ActManageTenants})
	if held.Filter == nil {
		t.Fatal("no filter on a notice held to a permission")
	}
	for _, profile := range engine.Profiles() {
		want := profile == engine.ProfileSuper
		if got := held.Filter.Visible(socket.Principal{UserID: 1, CompanyID: 1, Profile: profile}); got != want {
			t.Errorf("%s sees the tenant notice: %v, want %v", profile, got, want)
		}
	}
	if open := event(Notice{Event: "tags", Payload: json.RawMessage(`{"action":"create"}`)}); open.Filter != nil {
		t.Fatal("a notice without permission got a filter")
	}
}
