package actors

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// Staff opens run outside the connection actor, beside each other and beside the
// customers' messages. For every contact, two attendants open a ticket while the
// customer writes three messages: the contact ends with exactly one ticket, holding
// every message; each open either made that ticket or was refused with
// ERR_OTHER_OPEN_TICKET, and at most one open per contact succeeded. Each open holds
// the moment between its guard claim and its opening 100 ms long: a customer message
// routed in that moment would find the claimed ticket not opened yet and open
// another beside it.
func TestPersonOpensBesideInboundMakeOneTicketPerContact(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r := newLiveRig(t, d, func(c *ConnectionConfig) {
			c.afterClaim = func(engine.ID) { time.Sleep(100 * time.Millisecond) }
		})
		conn, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
		ctx := context.Background()
		const customers, opens, messages = 30, 2, 3
		ids := make([]engine.ID, customers)
		for c := range customers {
			contact, _, err := r.contacts.FindOrCreateByNumber(ctx, 1, fmt.Sprintf("webchat:p%03d", c), "Cliente")
			if err != nil {
				t.Fatal(err)
			}
			ids[c] = contact.ID
		}
		var (
			wg     sync.WaitGroup
			mu     sync.Mutex
			opened = map[engine.ID][]engine.ID{} // contact → tickets its successful opens answered
		)
		for c := range customers {
			num := fmt.Sprintf("webchat:p%03d", c)
			for range opens {
				wg.Go(func() {
					res, err := (Connections{Node: r.node}).OpenTicket(ctx, conn.ID, OpenTicketRequest{Principal: *adminP,
						ContactID: ids[c], UserID: 1, Status: engine.StatusOpen})
					switch {
					case err == nil:
						mu.Lock()
						opened[ids[c]] = append(opened[ids[c]], res.Ticket.ID)
						mu.Unlock()
					case engine.CodeOf(err) != engine.ErrOtherOpenTicket:
						t.Errorf("open for contact %d: %v", ids[c], err)
					}
				})
			}
			wg.Go(func() {
				for m := range messages {
					if err := ch.sink.Inbound(ctx, inbound(num, fmt.Sprintf("%s-%d", num, m), "oi")); err != nil {
						t.Errorf("inbound %s: %v", num, err)
					}
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		byContact := map[engine.ID]engine.TicketState{}
		for id, st := range r.ticketStates(t) {
			if prev, dup := byContact[st.ContactID]; dup {
				t.Fatalf("contact %d has tickets %d and %d", st.ContactID, prev.ID, id)
			}
			byContact[st.ContactID] = st
		}
		for _, id := range ids {
			st, ok := byContact[id]
			if !ok {
				t.Fatalf("contact %d has no ticket", id)
			}
			if len(st.ProviderIDs) != messages {
				t.Errorf("ticket %d of contact %d holds %d messages, want %d", st.ID, id, len(st.ProviderIDs), messages)
			}
			if got := opened[id]; len(got) > 1 || (len(got) == 1 && got[0] != st.ID) {
				t.Errorf("contact %d: opens answered tickets %v, its ticket is %d", id, got, st.ID)
			}
		}
	})
}

// countingReads counts the contact and guard reads a connection actor makes.
type countingReads struct {
	engine.ContactStore
	engine.TicketGuard
	mu       sync.Mutex // guards the counts
	contacts int
	currents int
}

func (c *countingReads) Get(ctx context.Context, companyID, id engine.ID) (engine.Contact, error) {
	c.mu.Lock()
	c.contacts++
	c.mu.Unlock()
	return c.ContactStore.Get(ctx, companyID, id)
}

func (c *countingReads) Current(ctx context.Context, connectionID, contactID engine.ID) (engine.ID, error) {
	c.mu.Lock()
	c.currents++
	c.mu.Unlock()
	return c.TicketGuard.Current(ctx, connectionID, contactID)
}

func (c *countingReads) counts() (contacts, currents int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.contacts, c.currents
}

// An open that carries the contact's number and the guard's current ticket as its
// caller just read them (a due schedule's) reads neither again. When the caller's
// read is stale — the guard moved on since — the claim is lost and the open answers
// the ticket the guard holds: still one ticket for the contact.
func TestOpenWithTheCallersReadsReadsNeitherAgain(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		reads := &countingReads{}
		r := newLiveRig(t, d, func(c *ConnectionConfig) {
			reads.ContactStore, reads.TicketGuard = c.Contacts, c.Guard
			c.Contacts, c.Guard = reads, reads
		})
		conn, _ := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
		ctx := context.Background()
		contact, _, err := r.contacts.FindOrCreateByNumber(ctx, 1, "webchat:hint", "Cliente")
		if err != nil {
			t.Fatal(err)
		}
		open := func(cur engine.ID) (TicketReply, error) {
			return (Connections{Node: r.node}).OpenTicket(ctx, conn.ID, OpenTicketRequest{Principal: *adminP,
				ContactID: contact.ID, Status: engine.StatusPending, Number: contact.Number, Current: cur, CurrentRead: true})
		}
		c0, g0 := reads.counts()
		first, err := open(0)
		if err != nil {
			t.Fatal(err)
		}
		if c, g := reads.counts(); c != c0 || g != g0 {
			t.Fatalf("the open read the contact %d times and the guard %d times, want 0 and 0", c-c0, g-g0)
		}
		if first.Ticket.ID == 0 || first.Ticket.Status != engine.StatusPending || first.Ticket.ContactID != contact.ID {
			t.Fatalf("opened %+v", first.Ticket)
		}
		// A fresh actor knows nothing; the caller's read (no ticket) is stale.
		r.restart(t)
		if _, err := (Connections{Node: r.node}).Start(ctx, conn.ID); err != nil {
			t.Fatal(err)
		}
		again, err := open(0)
		if err != nil {
			t.Fatal(err)
		}
		if again.Ticket.ID != first.Ticket.ID {
			t.Fatalf("a stale read opened ticket %d beside %d", again.Ticket.ID, first.Ticket.ID)
		}
		if cur, err := r.guard.Current(ctx, conn.ID, contact.ID); err != nil || cur != first.Ticket.ID {
			t.Fatalf("guard holds %d (%v), want %d", cur, err, first.Ticket.ID)
		}
		var n int
		if err := d.SQL.QueryRowContext(ctx, `SELECT count(*) FROM events WHERE type = 'ticket.opened'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("%d tickets opened, want 1", n)
		}
	})
}
