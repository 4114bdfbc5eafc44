package actors

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

func TestRecentForgetsWhatWasNotUsed(t *testing.T) {
	r := newRecent[string, int](2)
	r.set("a", 1)
	r.set("b", 2)
	r.set("c", 3) // the young generation was full: a and b are old now
	if v, ok := r.get("a"); !ok || v != 1 {
		t.Fatalf("a = %d %v: an old entry is still known", v, ok)
	}
	// a moved back to the young generation (now c, a); d fills it again, so b — not
	// used since — goes with the old generation.
	r.set("d", 4)
	if r.has("b") {
		t.Fatal("b was not used for two generations and is still known")
	}
	for k, want := range map[string]int{"a": 1, "c": 3, "d": 4} {
		if v, ok := r.get(k); !ok || v != want {
			t.Fatalf("%s = %d %v, want %d", k, v, ok, want)
		}
	}
	if r.at("b") != 0 || r.len() > 4 {
		t.Fatalf("at(b) = %d, len %d", r.at("b"), r.len())
	}
	r.set("a", 10) // an update keeps one entry
	if v := r.at("a"); v != 10 {
		t.Fatalf("a = %d after an update", v)
	}
	for i := range 100 {
		r.set(string(rune('A'+i)), i)
		if r.len() > 4 {
			t.Fatalf("%d entries with max 2: at most twice max", r.len())
		}
	}
}

// A connection that remembers only a few customers still routes every customer's
// messages to that customer's one ticket: those it forgot are learned again (the
// contact, the guard's ticket, the durable record) on their next message.
func TestConnectionThatForgetsCustomersKeepsTheirTickets(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		lookups := &countingContacts{}
		r := newLiveRig(t, d, func(c *ConnectionConfig) {
			c.CustomersKept = 2
			lookups.ContactStore = c.Contacts
			c.Contacts = lookups
		})
		_, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket,
			GreetingMessage: "Olá!"})
		ctx := context.Background()
		const customers = 7
		for round := range 3 {
			for i := range customers {
				num := fmt.Sprintf("webchat:c%d", i)
				if err := ch.sink.Inbound(ctx, inbound(num, fmt.Sprintf("m%d-%d", i, round), "oi")); err != nil {
					t.Fatalf("round %d, customer %d: %v", round, i, err)
				}
			}
		}
		// It did forget: customers it had seen were looked up again.
		if n := lookups.n.Load(); n <= customers {
			t.Fatalf("%d contact lookups for %d customers writing 3 times each: nothing was forgotten", n, customers)
		}
		states := r.ticketStates(t)
		if len(states) != customers {
			t.Fatalf("%d tickets for %d customers", len(states), customers)
		}
		for id, st := range states {
			var theirs []string
			for pid := range st.ProviderIDs {
				if strings.HasPrefix(pid, "m") { // the customers' own, not the greeting's
					theirs = append(theirs, pid)
				}
			}
			if len(theirs) != 3 || !sameCustomer(theirs) {
				t.Errorf("ticket %d holds %v, want one customer's 3 messages", id, theirs)
			}
		}
		for i := range customers {
			num := fmt.Sprintf("webchat:c%d", i)
			eventually(t, "one greeting for "+num, func() bool { return len(ch.sentTo(num)) == 1 })
		}
	})
}

// sameCustomer reports whether provider ids "m<customer>-<round>" are all one
// customer's.
func sameCustomer(pids []string) bool {
	for _, p := range pids {
		if who, _, _ := strings.Cut(p, "-"); who != strings.SplitN(pids[0], "-", 2)[0] {
			return false
		}
	}
	return true
}

// countingContacts counts the contact store's FindOrCreateByNumber calls.
type countingContacts struct {
	engine.ContactStore
	n atomic.Int64
}

func (c *countingContacts) FindOrCreateByNumber(ctx context.Context, companyID engine.ID, number, name string) (engine.Contact, bool, error) {
	c.n.Add(1)
	return c.ContactStore.FindOrCreateByNumber(ctx, companyID, number, name)
}
