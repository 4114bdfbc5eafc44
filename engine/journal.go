package engine

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// AnyVersion as an expected version appends whatever the stream's current version is.
// Use it only for streams with no invariant to protect (audit trails); aggregates pass
// the version they decided on.
const AnyVersion int64 = -1

// EventData is one event to append: a stable type name (see the Ev… constants) and
// its JSON payload. Metadata is optional JSON (correlation ids, the acting user…).
type EventData struct {
	Type     string
	Data     []byte
	Metadata []byte
}

// RecordedEvent is an event as the journal stored it.
type RecordedEvent struct {
	// Position is the event's place in the whole journal: increasing, gapless, and
	// assigned in commit order, so a reader that saw position p never later finds an
	// event below p.
	Position int64
	StreamID string
	// Version is the event's place in its stream, starting at 1.
	Version    int64
	Type       string
	Data       []byte
	Metadata   []byte // nil when none was given
	CompanyID  ID
	RecordedAt time.Time // UTC, microseconds
}

// AppendResult describes a successful append.
type AppendResult struct {
	// Version is the stream's version after the append (the last event's version).
	Version int64
	// Positions are the global positions of the appended events, in order.
	Positions []int64
}

// LastPosition is the position of the last appended event, the one to wait for when
// a caller needs its own write visible in the read models.
func (r AppendResult) LastPosition() int64 {
	if len(r.Positions) == 0 {
		return 0
	}
	return r.Positions[len(r.Positions)-1]
}

// Snapshot is a stream's folded state at Version. Type names the state's encoding so a
// loader can refuse a snapshot written by an incompatible version of the code; Data is
// opaque to the journal.
type Snapshot struct {
	StreamID   string
	Version    int64
	Type       string
	Data       []byte
	RecordedAt time.Time // set by the journal when saved
}

// Journal is the append-only event store every aggregate is persisted in.
//
// Implementations are safe for concurrent use. Errors other than the sentinels below
// are infrastructure failures; an Append that fails with one (or whose ctx ends while
// it is committing) may or may not have been written.
type Journal interface {
	// Append writes events at the end of stream for companyID, all or none, if the
	// stream's current version equals expectedVersion: 0 means the stream must not
	// exist yet, AnyVersion skips the check. A stale expectation fails with a
	// *ConflictError (errors.Is(err, ErrConflict)); malformed events fail with
	// ErrInvalidEvent or ErrEventTooLarge and nothing is written.
	Append(ctx context.Context, companyID ID, stream string, expectedVersion int64, events ...EventData) (AppendResult, error)
	// ReadStream returns the stream's events with version ≥ fromVersion in version
	// order, at most limit of them (limit ≤ 0: all). A missing stream reads empty.
	ReadStream(ctx context.Context, stream string, fromVersion int64, limit int) ([]RecordedEvent, error)
	// ReadAll returns events with position > afterPosition in position order, at most
	// limit of them (limit ≤ 0: 1000). It never returns an event while an earlier
	// position can still appear.
	ReadAll(ctx context.Context, afterPosition int64, limit int) ([]RecordedEvent, error)
	// Head is the last committed position (0 for an empty journal).
	Head(ctx context.Context) (int64, error)
	// SaveSnapshot stores s as the stream's latest snapshot unless a newer one is
	// already stored. s.Version must be an existing version of the stream.
	SaveSnapshot(ctx context.Context, s Snapshot) error
	// LoadSnapshot returns the stream's latest snapshot; ok is false when there is none.
	LoadSnapshot(ctx context.Context, stream string) (s Snapshot, ok bool, err error)
}

// Journal failures callers act on.
var (
	// ErrConflict: the stream's version was not the expected one. The concrete error
	// is a *ConflictError.
	ErrConflict = errors.New("journal: stream version conflict")
	// ErrInvalidEvent: empty or malformed stream id or type, data or metadata that
	// is not UTF-8 JSON, no events at all, or a snapshot of a version the stream
	// does not have.
	ErrInvalidEvent = errors.New("journal: invalid event")
	// ErrEventTooLarge: an event (data plus metadata) or snapshot is above the
	// journal's size limit.
	ErrEventTooLarge = errors.New("journal: event too large")
)

// ConflictError is the ErrConflict of one append.
type ConflictError struct {
	Stream   string
	Expected int64
	// Actual is the stream's version when the append was checked (-1 if unknown).
	Actual int64
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("append %s: expected version %d, stream is at %d: %v", e.Stream, e.Expected, e.Actual, ErrConflict)
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }
