package actors

import (
	"context"
	"reflect"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// POST /contacts/import reaches the connection's running channel through its actor,
// wherever the cluster placed it, and gets the session's address book back.
func TestConnectionPhoneContactsThroughTheActor(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r := newLiveRig(t, d)
		c, ch := r.createConnection(t, engine.ConnectionInput{Name: "Zap", Channel: engine.ChannelSocket}, "", "")
		ch.mu.Lock()
		ch.book = []engine.PhoneContact{{Number: "5565988880002", Name: "Maria"}}
		ch.mu.Unlock()
		// The channel has started; the actor learns it by a message of its own, so
		// the first asks may still find it "not started".
		var got []engine.PhoneContact
		var err error
		eventually(t, "the actor to know its channel started", func() bool {
			got, err = (Connections{Node: r.node}).PhoneContacts(context.Background(), c.ID)
			return engine.CodeOf(err) != engine.ErrWappNotInitialized
		})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, []engine.PhoneContact{{Number: "5565988880002", Name: "Maria"}}) {
			t.Fatalf("phone contacts %+v", got)
		}
		// A connection that does not exist has no actor state to read.
		if _, err := (Connections{Node: r.node}).PhoneContacts(context.Background(), 424242); engine.CodeOf(err) != engine.ErrNoWappFound {
			t.Fatalf("unknown connection: %v", err)
		}
	})
}
