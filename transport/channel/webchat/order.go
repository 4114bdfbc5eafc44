package webchat

import (
	"sync"
	"sync/atomic"
	"time"
)

// A visitor's messages may carry "seq": the widget numbers them 1, 2, 3… in the
// order the visitor typed them, and keeps the number with the message until it
// is acknowledged. The server takes a visitor's numbered messages in that order:
//
//   - the first numbered message the server sees from a visitor (on this node,
//     since the visitor was last forgotten) is taken whatever its number, which
//     becomes the base: the widget resends its pending messages oldest first;
//   - the next number is taken;
//   - a number already taken is a duplicate: acknowledged, not recorded again,
//     unless the number was taken with another client id (then it is another
//     message, recorded late rather than lost);
//   - a number ahead of the next is refused with ERR_OUT_OF_ORDER and a
//     retryAfter, for at most Config.SeqGapWait from the first such refusal;
//     after that it is taken, and the numbers it skipped (up to maxLate of them)
//     are still recorded should they come, late;
//   - a message refused for good (ERR_VALIDATION, ERR_BODY_TOO_LARGE) spends its
//     number, as the widget drops it and goes on with the next.
//
// Frames without seq are taken as they come, as before seq existed. The state is
// the node's memory of the visitor (kept seqMemory after its last numbered
// message even with no socket open), so a widget that reconnects to another node,
// or after a restart, sets a new base with its oldest pending message; the sink's
// de-duplication on ProviderID catches a resend whose acknowledgement was lost.

// MaxSeq is the largest seq a message may carry: the largest integer a
// JavaScript number holds exactly (2^53 - 1).
const MaxSeq = 1<<53 - 1

const (
	// maxLate bounds the skipped numbers a visitor's order keeps to record late.
	maxLate = 64
	// recentIDs is how many taken numbers keep their client id, to tell a resend
	// (same id) from another message that reused the number.
	recentIDs = 32
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
	next     int64               // the number expected next; 0: none seen yet
	gapSince time.Time           // first refusal of a number ahead of next; zero: none
	late     map[int64]struct{}  // numbers skipped after a gap wait, recorded should they come
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
// gap wait (it is the first refusal of this gap).
func (o *order) decide(seq int64, id string, now time.Time, gapWait time.Duration) (seqVerdict, time.Duration) {
	o.lastUsed.Store(now.UnixNano())
	switch {
	case o.next == 0 || seq == o.next:
		return seqTake, 0
	case seq < o.next:
		if _, ok := o.late[seq]; ok {
			return seqTake, 0
		}
		if known, same := o.seen(seq, id); known && !same {
			return seqTake, 0 // another message that reused the number: late, not lost
		}
		return seqDuplicate, 0
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
// id ""): a number at or beyond next moves next past it, keeping the numbers it
// skipped (the nearest maxLate) to record late; a late one is no longer awaited.
// The caller holds o.mu.
func (o *order) taken(seq int64, id string) {
	if id != "" {
		o.ids[o.idsAt] = seqEntry{seq: seq, id: id}
		o.idsAt = (o.idsAt + 1) % recentIDs
	}
	if o.next != 0 && seq < o.next {
		delete(o.late, seq)
		return
	}
	if o.next != 0 && seq > o.next {
		if o.late == nil {
			o.late = make(map[int64]struct{})
		}
		for s := max(o.next, seq-maxLate); s < seq; s++ {
			o.late[s] = struct{}{}
		}
		for len(o.late) > maxLate { // drop the oldest skipped numbers
			oldest := seq
			for s := range o.late {
				oldest = min(oldest, s)
			}
			delete(o.late, oldest)
		}
	}
	o.next = seq + 1
	o.gapSince = time.Time{}
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
