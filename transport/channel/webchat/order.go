package webchat

import (
	"sync"
	"sync/atomic"
	"time"
)

// A visitor's messages may carry "seq": the widget numbers them 1, 2, 3… in the
// order the visitor typed them, and keeps the number with the message until it
// is acknowledged. After every welcome it sends {"type":"resume","seq":N}, N the
// number of its oldest pending message (or of the next it will give out). The
// server takes a visitor's numbered messages in order:
//
//   - resume N sets the number expected next to N when none is known yet, or when
//     N is beyond it (the visitor says the numbers below N are done: acknowledged
//     or given up); an N below it changes nothing;
//   - without a resume, the first numbered message the server sees from a visitor
//     (on this node, since the visitor was last forgotten) sets the base;
//   - the expected number is taken, and the next one is expected;
//   - a number ahead of the expected one is refused with ERR_OUT_OF_ORDER and
//     "retryAfter":1, for at most Config.SeqGapWait from the first refusal while
//     that number is expected (progress restarts the wait); after that it is
//     taken, and what it skipped is recorded late should it come;
//   - a number below the expected one that was taken with the same client id
//     (among the last recentIDs taken) is a resend: acknowledged, not recorded
//     again. Any other number below is taken, late rather than lost (a skipped
//     one, another tab's, one from before the base); the sink's de-duplication on
//     ProviderID still catches a resend this order no longer remembers;
//   - a message refused for good (ERR_VALIDATION, ERR_BODY_TOO_LARGE) spends its
//     number, as the widget drops it and goes on with the next.
//
// Frames without seq are taken as they come, as before seq existed. The state is
// the node's memory of the visitor, kept seqMemory after its last numbered
// message or resume even with no socket open; a widget that reconnects to another
// node, or after a restart, sets the base again with its resume.

// MaxSeq is the largest seq a message may carry: the largest integer a
// JavaScript number holds exactly (2^53 - 1).
const MaxSeq = 1<<53 - 1

const (
	// recentIDs is how many taken numbers keep their client id, to tell a resend
	// (same number, same id) from a message to record late.
	recentIDs = 64
	// seqMemory is how long a visitor without sockets keeps its order state after
	// its last numbered message.
	seqMemory = 10 * time.Minute
)

// seqVerdict is what order.decide answers for a numbered message.
type seqVerdict uint8

const (
	seqTake      seqVerdict = iota // record it, then order.taken
	seqDuplicate                   // already recorded: acknowledge only
	seqGap                         // ahead of the next: refuse, retry later
)

// order is a visitor's sequence state, shared by its sockets (tabs) on this node.
type order struct {
	// mu is held by a socket from decide to taken, across the sink call, so that
	// two tabs of one visitor record their numbered messages one at a time.
	mu sync.Mutex
	// guarded by mu
	next     int64               // the number expected next; 0: none known yet
	gapSince time.Time           // first refusal of a number ahead of next; zero: none
	ids      [recentIDs]seqEntry // client ids of the last numbers taken, a ring
	idsAt    int                 // where the ring writes next

	lastUsed atomic.Int64 // unix nanoseconds of the last numbered message; 0: never
}

type seqEntry struct {
	seq int64
	id  string
}

// decide says what to do with message id numbered seq at now; for seqGap, also
// how long until the number is taken anyway. The caller holds o.mu, and calls
// o.taken once a seqTake message was recorded. A number ahead of next starts the
// gap wait unless it runs already.
func (o *order) decide(seq int64, id string, now time.Time, gapWait time.Duration) (seqVerdict, time.Duration) {
	o.lastUsed.Store(now.UnixNano())
	switch {
	case o.next == 0 || seq == o.next:
		return seqTake, 0
	case seq < o.next:
		if _, same := o.seen(seq, id); same {
			return seqDuplicate, 0
		}
		return seqTake, 0 // late, not lost
	}
	if o.gapSince.IsZero() {
		o.gapSince = now
	}
	if left := o.gapSince.Add(gapWait).Sub(now); left > 0 {
		return seqGap, left
	}
	return seqTake, 0
}

// taken records that message id numbered seq was recorded (or refused for good,
// id ""): a number at or beyond next moves next past it and ends the gap wait.
// The caller holds o.mu.
func (o *order) taken(seq int64, id string) {
	if id != "" {
		o.ids[o.idsAt] = seqEntry{seq: seq, id: id}
		o.idsAt = (o.idsAt + 1) % recentIDs
	}
	if o.next == 0 || seq >= o.next {
		o.next = seq + 1
		o.gapSince = time.Time{}
	}
}

// resume applies the widget's resume: its oldest pending number is seq. The
// caller holds o.mu.
func (o *order) resume(seq int64, now time.Time) {
	o.lastUsed.Store(now.UnixNano())
	if o.next == 0 || seq > o.next {
		o.next = seq
		o.gapSince = time.Time{}
	}
}

// seen reports whether number seq is among the last recentIDs taken, and whether
// it was taken with client id id. The caller holds o.mu.
func (o *order) seen(seq int64, id string) (known, same bool) {
	for _, e := range o.ids {
		if e.id != "" && e.seq == seq {
			known = true
			same = same || e.id == id
		}
	}
	return known, same
}

// forgettable reports whether a visitor without sockets may be forgotten at now:
// its message rate has recovered and its order state is unused for seqMemory.
// Caller holds Server.mu (the order's own lock is not taken: a socket may hold it
// across a sink call).
func (v *visitor) forgettable(now time.Time) bool {
	last := v.order.lastUsed.Load()
	return v.limiter.full(now) && (last == 0 || now.Sub(time.Unix(0, last)) >= seqMemory)
}
