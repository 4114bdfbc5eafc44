package webchat

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"atende/engine"
)

// TestOrderDecide runs a visitor's order state through sequences of numbered
// messages, each step the verdict decide gives and, for a take, the record.
func TestOrderDecide(t *testing.T) {
	const wait = 5 * time.Second
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	type step struct {
		seq   int64
		id    string
		after time.Duration // since t0
		want  seqVerdict
	}
	take := func(seq int64, id string) step { return step{seq: seq, id: id, want: seqTake} }
	cases := []struct {
		name  string
		steps []step
		next  int64 // after the steps
	}{
		{name: "in order from any base", steps: []step{take(41, "a"), take(42, "b"), take(43, "c")}, next: 44},
		{name: "a resend of a taken number is a duplicate", steps: []step{
			take(1, "a"), take(2, "b"), {seq: 1, id: "a", want: seqDuplicate}, {seq: 2, id: "b", want: seqDuplicate}}, next: 3},
		{name: "a taken number under another id is another message", steps: []step{
			take(1, "a"), take(2, "b"), take(1, "z"), {seq: 1, id: "z", want: seqDuplicate}}, next: 3},
		{name: "a gap is refused until it fills", steps: []step{
			take(1, "a"), {seq: 3, id: "c", want: seqGap}, {seq: 3, id: "c", after: time.Second, want: seqGap},
			{seq: 2, id: "b", after: 2 * time.Second, want: seqTake}, {seq: 3, id: "c", after: 2 * time.Second, want: seqTake}}, next: 4},
		{name: "a gap is taken after the wait, the skipped still come late", steps: []step{
			take(1, "a"), {seq: 4, id: "d", want: seqGap}, {seq: 4, id: "d", after: wait - time.Millisecond, want: seqGap},
			{seq: 4, id: "d", after: wait, want: seqTake}, {seq: 3, id: "c", after: wait, want: seqTake},
			{seq: 2, id: "b", after: wait, want: seqTake}, {seq: 2, id: "b", after: wait, want: seqDuplicate},
			{seq: 5, id: "e", after: wait, want: seqTake}}, next: 6},
		{name: "the wait starts at the first refusal of the gap", steps: []step{
			take(1, "a"), {seq: 3, id: "c", after: time.Hour, want: seqGap},
			{seq: 3, id: "c", after: time.Hour + wait - time.Second, want: seqGap}, {seq: 3, id: "c", after: time.Hour + wait, want: seqTake}}, next: 4},
		{name: "progress restarts the wait", steps: []step{
			take(1, "a"), {seq: 4, id: "d", want: seqGap}, {seq: 2, id: "b", after: 4 * time.Second, want: seqTake},
			{seq: 4, id: "d", after: 5 * time.Second, want: seqGap}, {seq: 4, id: "d", after: 9 * time.Second, want: seqGap}, {seq: 4, id: "d", after: 10 * time.Second, want: seqTake}}, next: 5},
		{name: "far ahead: taken after the wait, no number below it is lost or overflows", steps: []step{
			take(1, "a"), {seq: MaxSeq, id: "far", want: seqGap}, {seq: MaxSeq, id: "far", after: wait, want: seqTake},
			{seq: MaxSeq - 1, id: "late", after: wait, want: seqTake}, {seq: 2, id: "b", after: wait, want: seqTake},
			{seq: 2, id: "b", after: wait, want: seqDuplicate}, {seq: MaxSeq, id: "far", after: wait, want: seqDuplicate}}, next: MaxSeq + 1},
		{name: "a number below the base is taken late", steps: []step{take(10, "j"), take(9, "i"), take(11, "k")}, next: 12},
		{name: "a resend older than the remembered ids goes to the sink", steps: func() []step {
			var st []step
			for i := int64(1); i <= recentIDs+2; i++ { // the ring keeps 3 and above
				st = append(st, take(i, fmt.Sprint("m", i)))
			}
			return append(st, step{seq: 2, id: "m2", want: seqTake}, step{seq: 4, id: "m4", want: seqDuplicate}) // (2 took 3's place)
		}(), next: recentIDs + 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var o order
			for i, s := range tc.steps {
				got, left := o.decide(s.seq, s.id, t0.Add(s.after), wait)
				if got != s.want {
					t.Fatalf("step %d (seq %d, id %s, +%s): verdict %d, want %d", i, s.seq, s.id, s.after, got, s.want)
				}
				if (got == seqGap) != (left > 0) || left > wait {
					t.Fatalf("step %d: retry after %s with verdict %d", i, left, got)
				}
				if got == seqTake {
					o.taken(s.seq, s.id)
				}
			}
			if o.next != tc.next {
				t.Fatalf("next %d, want %d", o.next, tc.next)
			}
		})
	}
}

// TestOrderResume: the widget's resume sets the expected number when none is
// known or it is beyond it, and never moves it back.
func TestOrderResume(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	var o order
	o.resume(5, t0)
	if v, _ := o.decide(6, "f", t0, time.Second); v != seqGap {
		t.Fatalf("6 after resume 5: verdict %d, want a gap", v)
	}
	if v, _ := o.decide(5, "e", t0, time.Second); v != seqTake {
		t.Fatalf("5 after resume 5: verdict %d", v)
	}
	o.taken(5, "e")
	o.resume(3, t0) // an older tab's queue: changes nothing
	if o.next != 6 {
		t.Fatalf("next %d after resume 3, want 6", o.next)
	}
	o.resume(9, t0) // 6 to 8 done elsewhere: 9 is next, without a gap wait
	if v, _ := o.decide(9, "i", t0, time.Second); v != seqTake || o.next != 9 || !o.gapSince.IsZero() {
		t.Fatalf("9 after resume 9: verdict %d, next %d", v, o.next)
	}
}

// settable is a clock the test moves.
type settable struct {
	mu sync.Mutex
	t  time.Time
}

func newSettable() *settable {
	return &settable{t: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)}
}

func (c *settable) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *settable) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// msg is a numbered message frame.
func msg(id string, seq int64, body string) map[string]any {
	return map[string]any{"type": "message", "id": id, "seq": seq, "body": body}
}

// answer reads frames until the answer to message id (an ack or an error).
func (c *client) answer(id string) serverFrame {
	c.t.Helper()
	for {
		f := c.next()
		if (f.Type == "ack" || f.Type == "error") && f.ID == id {
			return f
		}
	}
}

// recorded lists the bodies the sink recorded, in order.
func (e *env) recorded() []string {
	in, _, _ := e.j.snapshot()
	var out []string
	for _, m := range in {
		out = append(out, m.Body)
	}
	return out
}

// TestSeqOrdersAVisitorsMessages: over a real socket, numbered messages are
// recorded in their numbers' order whatever order they come in, a resend is
// acknowledged without reaching the sink again, a refusal for good spends its
// number, and frames without seq are taken as they come.
func TestSeqOrdersAVisitorsMessages(t *testing.T) {
	clk := newSettable()
	e := newEnv(t, func(c *Config) { c.Now = clk.now; c.SeqGapWait = 5 * time.Second })
	a, w := e.connect("")
	pid := func(id string) string { return inboundID(vidOf(w.Visitor), id) }
	expectAck := func(c *client, id string) {
		t.Helper()
		if f := c.answer(id); f.Type != "ack" {
			t.Fatalf("%s: %+v, want an ack", id, f)
		}
	}
	expectGap := func(c *client, id string, next int64) serverFrame {
		t.Helper()
		f := c.answer(id)
		if f.Type != "error" || f.Code != string(engine.ErrOutOfOrder) || f.Expected != next || f.Retry < 1 || f.Retry > 5 {
			t.Fatalf("%s: %+v, want ERR_OUT_OF_ORDER expecting %d with a retryAfter of 1-5 s", id, f, next)
		}
		return f
	}

	a.write(msg("m1", 1, "one"))
	expectAck(a, "m1")
	a.write(msg("m3", 3, "three")) // ahead: 2 is missing
	expectGap(a, "m3", 2)
	a.write(msg("m2", 2, "two"))
	expectAck(a, "m2")
	a.write(msg("m3", 3, "three"))
	expectAck(a, "m3")

	// A resend of a recorded number (its ack was lost) is acknowledged, not recorded.
	a.write(msg("m2", 2, "two"))
	expectAck(a, "m2")
	if n := e.j.callsFor(pid("m2")); n != 1 {
		t.Fatalf("the resent m2 reached the sink %d times in all, want 1", n)
	}

	// Refused for good (an empty body), named by its id: its number is spent, so
	// the next one is not a gap.
	a.write(msg("m4", 4, "   "))
	if f := a.answer("m4"); f.Code != string(engine.ErrValidation) || f.Fields["body"] == "" {
		t.Fatalf("m4: %+v, want ERR_VALIDATION on body", f)
	}
	a.write(msg("m5", 5, "five"))
	expectAck(a, "m5")

	// Without seq, as an older widget: taken as it comes.
	a.write(map[string]string{"type": "message", "id": "old", "body": "no number"})
	expectAck(a, "old")

	// A gap nobody fills: refused until the wait is over, then taken; the missing
	// number, should it come after all, is recorded late rather than lost.
	a.write(msg("m7", 7, "seven"))
	expectGap(a, "m7", 6)
	clk.add(4 * time.Second)
	a.write(msg("m7", 7, "seven"))
	if f := expectGap(a, "m7", 6); f.Retry != 1 {
		t.Fatalf("retryAfter %d s with 1 s of the wait left", f.Retry)
	}
	clk.add(time.Second)
	a.write(msg("m7", 7, "seven"))
	expectAck(a, "m7")
	a.write(msg("m6", 6, "six, late"))
	expectAck(a, "m6")
	a.write(msg("m6", 6, "six, late"))
	expectAck(a, "m6")

	// Another tab of the same visitor shares the order.
	b, _ := e.connect(w.Visitor)
	b.write(msg("m9", 9, "nine"))
	expectGap(b, "m9", 8)
	a.write(msg("m8", 8, "eight"))
	expectAck(a, "m8")
	b.write(msg("m9", 9, "nine"))
	expectAck(b, "m9")

	want := []string{"one", "two", "three", "five", "no number", "seven", "six, late", "eight", "nine"}
	if got := e.recorded(); !slices.Equal(got, want) {
		t.Fatalf("recorded %q\nwant     %q", got, want)
	}
	for _, id := range []string{"m1", "m2", "m3", "m5", "m6", "m7", "m8", "m9"} {
		if n := e.j.callsFor(pid(id)); n != 1 {
			t.Fatalf("%s reached the sink %d times, want 1", id, n)
		}
	}

	// The order outlives the visitor's sockets: a reload that resends m9 finds it
	// recorded.
	_ = a.conn.Close()
	_ = b.conn.Close()
	eventually(t, "the visitor's sockets to close", func() bool { return e.srv.Stats().Sockets == 0 })
	c, _ := e.connect(w.Visitor)
	c.write(msg("m9", 9, "nine"))
	expectAck(c, "m9")
	if n := e.j.callsFor(pid("m9")); n != 1 {
		t.Fatalf("m9 resent after a reconnect reached the sink %d times, want 1", n)
	}
}

// TestSeqHostileValues: every malformed seq is refused (naming the message when
// its id was valid), records nothing and leaves the socket usable; numbers far
// ahead wait like any gap.
func TestSeqHostileValues(t *testing.T) {
	cases := []struct {
		name    string
		payload string
		code    engine.Code
		named   bool
	}{
		{name: "negative", payload: `{"type":"message","id":"h","body":"x","seq":-5}`, code: engine.ErrValidation, named: true},
		{name: "zero", payload: `{"type":"message","id":"h","body":"x","seq":0}`, code: engine.ErrValidation, named: true},
		{name: "above 2^53-1", payload: `{"type":"message","id":"h","body":"x","seq":9007199254740992}`, code: engine.ErrValidation, named: true},
		{name: "above int64", payload: `{"type":"message","id":"h","body":"x","seq":18446744073709551616}`, code: engine.ErrValidation, named: true},
		{name: "fraction", payload: `{"type":"message","id":"h","body":"x","seq":2.5}`, code: engine.ErrValidation, named: true},
		{name: "exponent", payload: `{"type":"message","id":"h","body":"x","seq":2e1}`, code: engine.ErrValidation, named: true},
		{name: "long digits", payload: `{"type":"message","id":"h","body":"x","seq":` + strings.Repeat("9", 5000) + `}`, code: engine.ErrValidation, named: true},
		{name: "numeric string", payload: `{"type":"message","id":"h","body":"x","seq":"2"}`, code: engine.ErrInvalidJSON},
		{name: "not numeric", payload: `{"type":"message","id":"h","body":"x","seq":"two"}`, code: engine.ErrInvalidJSON},
		{name: "null", payload: `{"type":"message","id":"h","body":"x","seq":null}`, code: engine.ErrInvalidJSON},
		{name: "repeated key", payload: `{"type":"message","id":"h","seq":2,"seq":3}`, code: engine.ErrInvalidJSON},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			c, _ := e.connect("")
			c.write(msg("m1", 1, "first"))
			if f := c.answer("m1"); f.Type != "ack" {
				t.Fatalf("m1: %+v", f)
			}
			c.writeRaw(1, []byte(tc.payload)) // ws.OpText
			f := c.expect("error")
			if f.Code != string(tc.code) || (f.ID == "h") != tc.named {
				t.Fatalf("got %+v, want %s (named: %v)", f, tc.code, tc.named)
			}
			// Nothing recorded, nothing spent: the next number is taken at once.
			c.write(msg("m2", 2, "second"))
			if f := c.answer("m2"); f.Type != "ack" {
				t.Fatalf("m2 after the hostile frame: %+v", f)
			}
			if got := e.recorded(); !slices.Equal(got, []string{"first", "second"}) {
				t.Fatalf("recorded %q", got)
			}
		})
	}

	t.Run("far ahead", func(t *testing.T) {
		clk := newSettable()
		e := newEnv(t, func(c *Config) { c.Now = clk.now })
		c, _ := e.connect("")
		c.write(msg("m1", 1, "first"))
		c.answer("m1")
		c.write(msg("far", MaxSeq, "far"))
		if f := c.answer("far"); f.Code != string(engine.ErrOutOfOrder) || f.Expected != 2 {
			t.Fatalf("far ahead: %+v", f)
		}
		clk.add(e.srv.cfg.SeqGapWait)
		c.write(msg("far", MaxSeq, "far"))
		if f := c.answer("far"); f.Type != "ack" {
			t.Fatalf("far ahead after the wait: %+v", f)
		}
		// The visitor moved its own order to the end; lower numbers still come, late.
		c.write(msg("m2", 2, "second"))
		c.answer("m2")
		c.write(msg("near", MaxSeq-1, "near"))
		c.answer("near")
		c.write(msg("far", MaxSeq, "far"))
		c.answer("far")
		if got := e.recorded(); !slices.Equal(got, []string{"first", "far", "second", "near"}) {
			t.Fatalf("recorded %q", got)
		}
	})
}

// TestSeqResume: a widget's resume sets where a new visitor's order starts, so
// messages that arrive shuffled are still recorded in order; a malformed resume
// is refused and changes nothing.
func TestSeqResume(t *testing.T) {
	e := newEnv(t, nil)
	c, _ := e.connect("")
	for _, bad := range []string{`{"type":"resume"}`, `{"type":"resume","seq":"4"}`, `{"type":"resume","seq":-4}`,
		`{"type":"resume","seq":4,"id":"x"}`, `{"type":"resume","seq":9007199254740992}`} {
		c.writeRaw(1, []byte(bad))
		if f := c.expect("error"); f.Code != string(engine.ErrValidation) && f.Code != string(engine.ErrInvalidJSON) {
			t.Fatalf("%s: %+v", bad, f)
		}
	}
	c.write(map[string]any{"type": "resume", "seq": 4})
	for _, seq := range []int64{6, 5, 4} {
		c.write(msg(fmt.Sprint("m", seq), seq, fmt.Sprint("body ", seq)))
	}
	for range 2 { // 6 and 5 came early
		if f := c.expect("error"); f.Code != string(engine.ErrOutOfOrder) || f.Expected != 4 || f.Retry != 1 {
			t.Fatalf("early: %+v", f)
		}
	}
	if f := c.expect("ack"); f.ID != "m4" {
		t.Fatalf("%+v, want the ack of m4", f)
	}
	for _, seq := range []int64{5, 6} {
		c.write(msg(fmt.Sprint("m", seq), seq, fmt.Sprint("body ", seq)))
		if f := c.answer(fmt.Sprint("m", seq)); f.Type != "ack" {
			t.Fatalf("m%d: %+v", seq, f)
		}
	}
	if got := e.recorded(); !slices.Equal(got, []string{"body 4", "body 5", "body 6"}) {
		t.Fatalf("recorded %q", got)
	}
}

// TestRateRefusalSaysWhen: a visitor over its message rate is told the limit and
// when to try again, and a widget that waits that long is served, never closed.
func TestRateRefusalSaysWhen(t *testing.T) {
	clk := newSettable()
	e := newEnv(t, func(c *Config) { c.Now = clk.now; c.MessageRate, c.MessageBurst = 2, 3 })
	c, _ := e.connect("")
	for i := int64(1); i <= 3; i++ {
		c.write(msg(fmt.Sprint("m", i), i, "burst"))
		if f := c.answer(fmt.Sprint("m", i)); f.Type != "ack" {
			t.Fatalf("m%d: %+v", i, f)
		}
	}
	c.write(msg("m4", 4, "over"))
	f := c.answer("m4")
	if f.Code != string(engine.ErrTooManyAttempts) || f.Limit != "rate" || f.Retry != 1 {
		t.Fatalf("m4 over the rate: %+v, want ERR_TOO_MANY_ATTEMPTS limit rate retryAfter 1", f)
	}
	clk.add(time.Duration(f.Retry) * time.Second)
	c.write(msg("m4", 4, "over"))
	if f := c.answer("m4"); f.Type != "ack" {
		t.Fatalf("m4 after retryAfter: %+v", f)
	}
}

// TestVisitorForgettable: a visitor without sockets is forgotten once its rate has
// recovered and its order went unused for seqMemory.
func TestVisitorForgettable(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	v := &visitor{limiter: newBucket(10, 20, t0)}
	if !v.forgettable(t0) {
		t.Fatal("a visitor that never numbered a message is kept")
	}
	v.order.decide(1, "a", t0, time.Second)
	if v.forgettable(t0.Add(seqMemory - time.Second)) {
		t.Fatal("forgotten before seqMemory")
	}
	if !v.forgettable(t0.Add(seqMemory)) {
		t.Fatal("kept after seqMemory")
	}
}
