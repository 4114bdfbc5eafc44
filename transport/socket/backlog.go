package socket

import (
	"errors"
	"time"
)

// Record is one published event as a Backlog keeps it for replay.
type Record struct {
	Seq    int64  // the tenant's sequence number, also in the payload as "seq"
	Rooms  []Room // rooms it was published to
	Name   string // event name
	Frame  []byte // the complete websocket frame the hub enqueues; shared, never modified
	Filter Filter // nil: every member may see it
	Exempt []Room // rooms whose members see it whatever Filter says
	// LeadRooms and LeadFrame are the event's lead frame (Event.Lead), queued before
	// Frame; nil without one.
	LeadRooms []Room
	LeadFrame []byte
	At        time.Time // when it was stored
}

// ErrBacklogGap means the backlog no longer holds (or never held) every event after
// the sequence number asked for: the client must refetch (the hub emits "resync").
var ErrBacklogGap = errors.New("socket: backlog does not cover the requested sequence")

// Backlog numbers a tenant's events and keeps a bounded window of recent ones so
// reconnecting sockets can be replayed what they missed. The hub calls it under the
// tenant's lock, so one tenant's calls never overlap on one node; implementations
// must still be safe for concurrent use across tenants. The memory implementation is
// MemoryBacklog; a cluster shares one through Redis (INCR for the number, a capped
// sorted set for the window), where Filter has to be rebuilt from data.
type Backlog interface {
	// Append gives build the tenant's next sequence number and stores the record it
	// returns. If build fails, nothing is stored and the number is not used.
	Append(tenant int64, build func(seq int64) (*Record, error)) (*Record, error)
	// Replay calls fn in order for every held record of tenant with Seq > after,
	// until fn returns false. It returns ErrBacklogGap, without calling fn, when
	// some event after `after` is no longer held, or when after is beyond Last.
	Replay(tenant int64, after int64, fn func(*Record) bool) error
	// Last is the tenant's last assigned sequence number.
	Last(tenant int64) (int64, error)
}

// NumberedBacklog is a Backlog that also keeps events numbered elsewhere: journal
// positions, which every node of a cluster shares, so that a client can carry its
// last number from one node to another. Numbers of one tenant grow but need not be
// contiguous (other tenants' positions fall between).
type NumberedBacklog interface {
	Backlog
	// AppendNumbered stores the record build returns under seq, which must be above
	// every number stored before (ErrInvalidEvent otherwise).
	AppendNumbered(tenant, seq int64, build func(seq int64) (*Record, error)) (*Record, error)
}
