package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// TestWebChatShedsLoadPastSaturation is issue 20's stall on a whole node with a
// real PostgreSQL: web chat visitors keep writing while the journal cannot take
// appends (a transaction holds a lock on the events table, as a checkpoint on a
// saturated box held the disk), with the node's admission control set small. The
// node refuses what it cannot take with ERR_UNAVAILABLE and a retryAfter — never
// anything else, nor a closed socket — and each visitor, resending as the widget
// does, has every message acknowledged once the lock is gone. The messages stored
// are exactly the ones sent, none lost, none twice; and after the stall the node
// takes a new message at once, with no place left held.
func TestWebChatShedsLoadPastSaturation(t *testing.T) {
	if testing.Short() {
		t.Skip("a stalled database for several seconds")
	}
	url := dbtest.URL(t, db.Postgres)
	cfg := testConfig(t, url)
	cfg.Limits.InboundMaxInFlight = 4
	cfg.Limits.InboundMaxPerConnection = 4
	cfg.Limits.InboundWait = 200 * time.Millisecond
	cfg.Limits.InboundRetryAfter = time.Second
	ta := startApp(t, cfg)
	connID := ta.webChatID(t)
	waitFor(t, "the web chat connection to start", func() bool { return ta.app.WebchatStats().Connections > 0 })

	const visitors, perVisitor = 12, 8
	vs := make([]*visitor, visitors)
	for i := range vs {
		vs[i] = &visitor{c: dialCustomer(t, ta.base, connID, "")}
		vs[i].number = "webchat:" + vs[i].c.token[:22]
	}
	// Each visitor's conversation (contact, pending ticket) exists before the stall.
	for i, v := range vs {
		v.c.say(fmt.Sprintf("v%02d-hello", i), fmt.Sprintf("visitor %02d says hello", i))
	}

	// The stall: a transaction holds EXCLUSIVE on the journal's table, which lets
	// readers through and blocks every append until it ends.
	ctx := context.Background()
	lock, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close(ctx)
	tx, err := lock.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE events IN EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	stalled, locked := true, time.Now()
	defer func() {
		if stalled {
			_ = tx.Rollback(ctx)
		}
	}()

	var wg sync.WaitGroup
	for i, v := range vs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range perVisitor {
				v.deliver(fmt.Sprintf("v%02d-m%d", i, n), fmt.Sprintf("visitor %02d message %d", i, n))
			}
		}()
	}

	// Past saturation: places are refused for want of room, and admitted messages
	// stall on the locked journal until the actor's call times out (5 s) — twice
	// over, so the places of stalled calls are seen to come back and stall again.
	waitForLong(t, "refusals for want of a place and two rounds of stalls inside", func() bool {
		s := ta.app.AdmissionStats()
		return s.RefusedBusy+s.RefusedWait > 0 && s.Stalled >= 2*4
	})
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	stalled = false
	released := time.Now()
	lockedFor := released.Sub(locked)
	atStall := ta.app.AdmissionStats()

	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("after 2 minutes not every message was acknowledged")
	}
	recovered := time.Since(released)
	for _, v := range vs {
		if v.err != nil {
			t.Fatal(v.err)
		}
	}

	// Recovery: nothing held, and a new message is taken on its first try.
	waitFor(t, "every place given back", func() bool { s := ta.app.AdmissionStats(); return s.InFlight == 0 && s.Queued == 0 })
	fresh := time.Now()
	vs[0].c.send(map[string]string{"type": "message", "id": "v00-after", "body": "visitor 00 after the stall"})
	if f := vs[0].answer("v00-after", 0); f["type"] != "ack" {
		t.Fatalf("a message after the stall: %v", f)
	}
	firstTry := time.Since(fresh)

	// Stored exactly as sent: every visitor's messages, once each.
	for i, v := range vs {
		want := []string{fmt.Sprintf("visitor %02d says hello", i)}
		for n := range perVisitor {
			want = append(want, fmt.Sprintf("visitor %02d message %d", i, n))
		}
		if i == 0 {
			want = append(want, "visitor 00 after the stall")
		}
		sort.Strings(want)
		var got []string
		waitForLong(t, "the messages of "+v.number+" recorded", func() bool {
			got = recordedBodies(t, ta, v.number)
			return len(got) >= len(want)
		})
		sort.Strings(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%s recorded %d messages:\n%q\nwant exactly the %d sent:\n%q", v.number, len(got), got, len(want), want)
		}
	}

	end := ta.app.AdmissionStats()
	refusals := 0
	for _, v := range vs {
		refusals += v.refusals
	}
	if refusals == 0 || refusals != int(end.RefusedBusy+end.RefusedWait+end.Stalled) {
		t.Fatalf("visitors saw %d refusals, the limiter counted %+v", refusals, end)
	}
	t.Logf("%d visitors × %d messages past saturation (4 in flight), journal locked %s: %d refusals (busy %d, wait %d, stalled %d), "+
		"%d of them during the stall; every message acknowledged %s after the stall ended; a new message acknowledged on its first try in %s",
		visitors, perVisitor, lockedFor.Round(time.Millisecond), refusals, end.RefusedBusy, end.RefusedWait, end.Stalled,
		atStall.RefusedBusy+atStall.RefusedWait+atStall.Stalled, recovered.Round(time.Millisecond), firstTry.Round(time.Millisecond))
}

// visitor is a web chat visitor that sends like the widget: one message at a time,
// the next once the previous was acknowledged, and a refused one again after the
// retryAfter it was told.
type visitor struct {
	c        *customer
	number   string
	read     int // frames already looked at
	refusals int
	err      error // the first answer that was neither an ack nor a retryable refusal
}

// deliver sends message id until it is acknowledged.
func (v *visitor) deliver(id, body string) {
	for v.err == nil {
		v.c.send(map[string]string{"type": "message", "id": id, "body": body})
		f := v.answer(id, time.Minute)
		switch {
		case f["type"] == "ack":
			return
		case f["type"] == "error" && f["code"] == "ERR_UNAVAILABLE":
			after, _ := f["retryAfter"].(float64)
			if after < 1 {
				v.err = fmt.Errorf("%s refused without retryAfter: %v", id, f)
				return
			}
			v.refusals++
			time.Sleep(time.Duration(after) * time.Second) // as told: the widget's hold
		default:
			v.err = fmt.Errorf("answer to %s: %v", id, f)
		}
	}
}

// answer waits up to limit (0: a minute) for the next frame about id: its ack or
// error. A frame of type "closed" stands for a socket that ended meanwhile.
func (v *visitor) answer(id string, limit time.Duration) map[string]any {
	if limit == 0 {
		limit = time.Minute
	}
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		v.c.mu.Lock()
		frames := v.c.frames[v.read:]
		for i, f := range frames {
			if f["id"] == id && (f["type"] == "ack" || f["type"] == "error") {
				v.read += i + 1
				v.c.mu.Unlock()
				return f
			}
		}
		v.c.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	return map[string]any{"type": "none", "id": id, "after": limit.String()}
}

// recordedBodies are the messages contact number sent (not the business's), in
// the order the read model holds them.
func recordedBodies(t *testing.T, ta *testApp, number string) []string {
	t.Helper()
	// number is the test's own "webchat:<token>": no quote to escape, and one text
	// for both dialects' placeholders.
	rows, err := ta.app.DB().SQL.Query(fmt.Sprintf(`SELECT m.body FROM messages m
		JOIN tickets tk ON tk.id = m.ticket_id JOIN contacts ct ON ct.id = tk.contact_id
		WHERE ct.number = '%s' AND NOT m.from_me ORDER BY m.seq, m.id`, number))
	if err != nil {
		t.Fatalf("messages of %s: %v", number, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var b string
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitForLong is waitFor with a deadline of a minute, for conditions a loaded
// machine reaches slowly.
func waitForLong(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
