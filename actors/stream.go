package actors

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
)

// aggregateStream is an aggregate's journal stream as its actor reads it back and
// snapshots it: the part the ticket and chat actors share. S is the folded state;
// version reads its stream version and fold applies one recorded event. Owned by
// one actor: not safe for concurrent use.
type aggregateStream[S any] struct {
	// static after construction
	journal      engine.Journal
	stream       string
	snapshotType string // snapshots of another type (older code) are ignored
	every        int64  // snapshot once this many events were appended since the last
	timeout      time.Duration
	log          zerolog.Logger
	version      func(S) int64
	fold         func(S, engine.RecordedEvent) (S, error)

	snapshotAt int64 // version of the last snapshot saved or loaded
}

// load rebuilds the state from the latest snapshot and the events after it.
func (s *aggregateStream[S]) load() (S, error) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	var state, zero S
	from := int64(1)
	s.snapshotAt = 0
	snap, ok, err := s.journal.LoadSnapshot(ctx, s.stream)
	if err != nil {
		return zero, fmt.Errorf("load snapshot %s: %w", s.stream, err)
	}
	if ok && snap.Type == s.snapshotType {
		if err := json.Unmarshal(snap.Data, &state); err != nil {
			s.log.Warn().Err(err).Msg("unreadable snapshot: folding from the first event")
			state = zero
		} else {
			from = s.version(state) + 1
			s.snapshotAt = s.version(state)
		}
	}
	recs, err := s.journal.ReadStream(ctx, s.stream, from, 0)
	if err != nil {
		return zero, fmt.Errorf("read %s: %w", s.stream, err)
	}
	for _, r := range recs {
		if state, err = s.fold(state, r); err != nil {
			return zero, fmt.Errorf("decode %s v%d: %w", s.stream, r.Version, err)
		}
	}
	return state, nil
}

// maybeSnapshot saves state when enough events were appended since the last
// snapshot. A failure is logged only: a missing snapshot makes the next activation
// slower, nothing else.
func (s *aggregateStream[S]) maybeSnapshot(state S) {
	v := s.version(state)
	if v-s.snapshotAt < s.every {
		return
	}
	body, err := json.Marshal(state)
	if err != nil {
		s.log.Error().Err(err).Msg("encode snapshot")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	if err := s.journal.SaveSnapshot(ctx, engine.Snapshot{StreamID: s.stream, Version: v, Type: s.snapshotType, Data: body}); err != nil {
		s.log.Warn().Err(err).Msg("save snapshot")
		return
	}
	s.snapshotAt = v
}
