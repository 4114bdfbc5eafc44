package actors

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/readmodel"
)

// crashRig is a live rig with the outbox and the send attempt log, whose channels
// "accept" the first Send of message blockID (the customer got it) and then hang
// until the test ends: the ack of that send is never recorded, as when the node dies
// between the provider's answer and the ack.
type crashRig struct {
	*liveRig
	mu        sync.Mutex
	accepted  []engine.ID // every message that reached the provider, in order
	unordered []engine.ID // messages whose Send ran without their attempt row
	blocked   chan struct{}
}

const blockID engine.ID = 880001

func newCrashRig(t *testing.T, d *db.DB, idempotent bool) (*crashRig, engine.Connection, *recChannel, engine.ID) {
	t.Helper()
	var ob journalOutbox
	attempts := readmodel.NewSendAttempts(d)
	r := newLiveRig(t, d, func(c *ConnectionConfig) { c.Outbox, c.Attempts, c.SendAttempts = &ob, attempts, 2 })
	ob.r = r
	cr := &crashRig{liveRig: r, blocked: make(chan struct{})}
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // before the rig's cleanup waits for goroutines
	var once sync.Once
	var connID atomic.Int64
	r.factory.mu.Lock()
	r.factory.idempotent = idempotent
	r.factory.onSend = func(ctx context.Context, m engine.OutboundMessage) error {
		got, err := attempts.Attempted(ctx, engine.ID(connID.Load()), []engine.ID{m.MessageID})
		if err != nil {
			return err
		}
		cr.mu.Lock()
		cr.accepted = append(cr.accepted, m.MessageID)
		if !got[m.MessageID] {
			cr.unordered = append(cr.unordered, m.MessageID)
		}
		cr.mu.Unlock()
		first := false
		if m.MessageID == blockID {
			once.Do(func() { first = true })
		}
		if !first {
			return nil
		}
		close(cr.blocked)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return engine.E(engine.ErrValidation) // too late: nobody hears it
	}
	r.factory.mu.Unlock()
	conn, ch := r.startConnection(t, engine.ConnectionInput{Name: "Loja", Channel: engine.ChannelSocket})
	connID.Store(conn.ID)
	ctx := context.Background()
	if err := ch.sink.Inbound(ctx, inbound("webchat:crash", "c1", "Oi")); err != nil {
		t.Fatal(err)
	}
	tid := r.onlyTicket(t).ID
	r.do(t, tid, engine.Accept{UserID: 1})
	return cr, conn, ch, tid
}

func (cr *crashRig) count(id engine.ID) int {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	n := 0
	for _, a := range cr.accepted {
		if a == id {
			n++
		}
	}
	return n
}

// sendThenCrash has the attendant send blockID, waits until the provider accepted it
// (the channel hangs before answering), then sends 880002 while the channel is
// stopped (so that one is never handed to any channel), and restarts the actor.
func (cr *crashRig) sendThenCrash(t *testing.T, conn engine.Connection, tid engine.ID) *recChannel {
	t.Helper()
	ctx := context.Background()
	cr.do(t, tid, engine.SendMessage{MessageID: blockID, SenderID: 1, Body: "aceita"})
	select {
	case <-cr.blocked:
	case <-time.After(10 * time.Second):
		t.Fatal("the message never reached the channel")
	}
	if err := (Connections{Node: cr.node}).Stop(ctx, conn.ID); err != nil {
		t.Fatal(err)
	}
	cr.do(t, tid, engine.SendMessage{MessageID: 880002, SenderID: 1, Body: "nunca tentada"})
	time.Sleep(100 * time.Millisecond) // the two retries without a channel give up
	return cr.restartActor(t, conn)
}

func failReasonOf(t *testing.T, r *liveRig, tid, mid engine.ID) (string, bool) {
	for _, ev := range r.events(t, tid) {
		if f, ok := ev.(engine.TicketMessageFailed); ok && f.MessageID == mid {
			return f.Reason, true
		}
	}
	return "", false
}

// A channel that cannot de-duplicate: a message whose send was attempted before the
// crash, its outcome never recorded, is failed with ERR_CHANNEL_OUTCOME_UNKNOWN after
// the restart, not sent again; a message never attempted is sent. The attempt row
// exists whenever Send is called.
func TestCrashAfterAttemptIsNotResentOnNonIdempotentChannel(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		cr, conn, _, tid := newCrashRig(t, d, false)
		ch := cr.sendThenCrash(t, conn, tid)
		eventually(t, "the never-attempted reply sent and acked", func() bool {
			return cr.count(880002) == 1 && ackOf(cr.liveRig, t, tid, 880002) == engine.AckSent
		})
		eventually(t, "the attempted message failed", func() bool {
			_, ok := failReasonOf(t, cr.liveRig, tid, blockID)
			return ok
		})
		if reason, _ := failReasonOf(t, cr.liveRig, tid, blockID); reason != string(engine.ErrChannelOutcomeUnknown) {
			t.Fatalf("failed with %q, want %s", reason, engine.ErrChannelOutcomeUnknown)
		}
		time.Sleep(100 * time.Millisecond)
		if n := cr.count(blockID); n != 1 {
			t.Fatalf("the attempted message reached the provider %d times, want 1", n)
		}
		for _, m := range ch.sentTo("webchat:crash") {
			if m.MessageID == blockID {
				t.Fatal("the attempted message was sent again after the restart")
			}
		}
		cr.mu.Lock()
		defer cr.mu.Unlock()
		if len(cr.unordered) != 0 {
			t.Fatalf("Send ran before the attempt was recorded for %v", cr.unordered)
		}
	})
}

// A channel that de-duplicates re-sends keeps at-least-once: the same crash re-sends
// the message (once), and no attempt is recorded.
func TestCrashAfterAttemptIsResentOnIdempotentChannel(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		cr, conn, _, tid := newCrashRig(t, d, true)
		ch := cr.sendThenCrash(t, conn, tid)
		eventually(t, "both re-sent and acked", func() bool {
			return ackOf(cr.liveRig, t, tid, blockID) == engine.AckSent && ackOf(cr.liveRig, t, tid, 880002) == engine.AckSent
		})
		time.Sleep(100 * time.Millisecond)
		if n := cr.count(blockID); n != 2 {
			t.Fatalf("the message reached the provider %d times, want 2 (once before the crash, once after)", n)
		}
		if n := len(ch.sentTo("webchat:crash")); n != 2 {
			t.Fatalf("the new activation sent %d messages, want 2", n)
		}
		if _, failed := failReasonOf(t, cr.liveRig, tid, blockID); failed {
			t.Fatal("an idempotent channel's message was failed")
		}
		var rows int
		if err := d.SQL.QueryRow(`SELECT COUNT(*) FROM send_attempts`).Scan(&rows); err != nil || rows != 0 {
			t.Fatalf("%d attempt rows (%v), want none on an idempotent channel", rows, err)
		}
	})
}

// countingAttempts is a SendAttemptLog that counts its Prune calls.
type countingAttempts struct {
	engine.SendAttemptLog
	prunes atomic.Int64
}

func (c *countingAttempts) Prune(ctx context.Context, conn engine.ID, before time.Time) (int64, error) {
	c.prunes.Add(1)
	return c.SendAttemptLog.Prune(ctx, conn, before)
}

// Attempts are pruned when the channel starts, unless the channel de-duplicates
// re-sends and so records none.
func TestConnectionPrunesAttemptsOnlyWhenRecorded(t *testing.T) {
	for _, idempotent := range []bool{false, true} {
		t.Run(map[bool]string{false: "recording", true: "idempotent"}[idempotent], func(t *testing.T) {
			dbtest.Each(t, func(t *testing.T, d *db.DB) {
				attempts := &countingAttempts{SendAttemptLog: readmodel.NewSendAttempts(d)}
				r := newLiveRig(t, d, func(c *ConnectionConfig) { c.Attempts = attempts })
				r.factory.mu.Lock()
				r.factory.idempotent = idempotent
				r.factory.mu.Unlock()
				r.startConnection(t, engine.ConnectionInput{Name: "Loja", Channel: engine.ChannelSocket})
				if !idempotent {
					eventually(t, "pruned at start", func() bool { return attempts.prunes.Load() == 1 })
					return
				}
				time.Sleep(100 * time.Millisecond)
				if n := attempts.prunes.Load(); n != 0 {
					t.Fatalf("idempotent channel: %d prunes, want none", n)
				}
			})
		})
	}
}
