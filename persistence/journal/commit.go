package journal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/db"
)

// request is one Append waiting for the committer.
type request struct {
	// set by Append, read-only afterwards
	ctx       context.Context
	companyID int64
	stream    string
	expected  int64
	events    []engine.EventData
	size      int // bytes of data and metadata

	// written by the committer before it closes done
	res  engine.AppendResult
	err  error
	done chan struct{}
}

// row is one event to insert, with its position and version decided.
type row struct {
	position  int64
	stream    string
	version   int64
	typ       string
	data      []byte
	metadata  []byte
	companyID int64
}

// planFunc decides a batch inside its transaction: given a source of positions (each
// call returns the next one, increasing) and the current versions of the batch's
// streams (0 for a new stream), it checks every append's expected version and returns
// the rows of the appends that pass.
type planFunc func(next func() int64, versions map[string]int64) []row

// backend is one dialect's SQL. appendTx runs a single group-commit transaction:
// take positions for up to events events, read the versions of streams, call plan,
// insert its rows, commit. An error wrapped in *txAborted guarantees that nothing was
// written.
type backend interface {
	appendTx(ctx context.Context, streams []string, events int, plan planFunc) error
	streamVersion(ctx context.Context, stream string) (int64, error)
	readStream(ctx context.Context, stream string, fromVersion, limit int64) ([]engine.RecordedEvent, error)
	readAll(ctx context.Context, after, limit int64) ([]engine.RecordedEvent, error)
	readCompany(ctx context.Context, companyID engine.ID, after, limit int64) ([]engine.RecordedEvent, error)
	head(ctx context.Context) (int64, error)
	// saveSnapshot reports false when the stream has no event at snap.Version.
	saveSnapshot(ctx context.Context, snap engine.Snapshot) (bool, error)
	loadSnapshot(ctx context.Context, stream string) (engine.Snapshot, bool, error)
	close()
}

// listener is implemented by backends that hear other nodes' commits. listen calls
// hearing(true) once it listens and hearing(false) when it stops, each followed by
// signal.
type listener interface {
	listen(ctx context.Context, log zerolog.Logger, signal func(), hearing func(bool))
}

// txAborted marks a transaction error after which the database certainly holds
// nothing of the batch (it was rolled back or never committed), so the batch may be
// retried.
type txAborted struct{ err error }

func (e *txAborted) Error() string { return e.err.Error() }
func (e *txAborted) Unwrap() error { return e.err }

func aborted(err error) error {
	if err == nil {
		return nil
	}
	return &txAborted{err: err}
}

// commitLoop is the committer: it takes appends off the queue in batches and commits
// each batch in one transaction, until Close closes the queue and it is drained.
func (s *Store) commitLoop() {
	for {
		first := s.carry
		s.carry = nil
		if first == nil {
			r, ok := <-s.queue
			if !ok {
				return
			}
			first = r
		}
		s.commitBatch(s.collect(first))
	}
}

// collect adds queued appends to first until the batch is full or nothing more is
// queued. Under load it lingers (see Config.MaxWait): if the previous batch held more
// appends than this one so far, the appenders it answered are likely on their way
// back, so it waits for them up to MaxWait or until the batch is as large as the
// previous one. When idle (the previous batch was a single append) it never waits.
func (s *Store) collect(first *request) []*request {
	batch := []*request{first}
	n, bytes := len(first.events), first.size
	var linger *time.Timer
	defer func() {
		if linger != nil {
			linger.Stop()
		}
		s.lastBatch = len(batch)
	}()
	for n < s.cfg.MaxBatch && bytes < maxBatchBytes {
		var r *request
		var ok bool
		select {
		case r, ok = <-s.queue:
		default:
			if s.cfg.MaxWait <= 0 || len(batch) >= s.lastBatch {
				return batch
			}
			if linger == nil {
				linger = time.NewTimer(s.cfg.MaxWait)
			}
			select {
			case r, ok = <-s.queue:
			case <-linger.C:
				return batch
			}
		}
		if !ok {
			return batch
		}
		if n+len(r.events) > s.cfg.MaxBatch {
			s.carry = r
			return batch
		}
		batch = append(batch, r)
		n += len(r.events)
		bytes += r.size
	}
	return batch
}

// maxBatchBytes stops a batch from growing once its payloads reach this size.
const maxBatchBytes = 8 << 20

// commitBatch commits reqs in one transaction and answers each of them.
func (s *Store) commitBatch(reqs []*request) {
	live := reqs[:0:0]
	for _, r := range reqs {
		if err := r.ctx.Err(); err != nil {
			s.answer(r, fmt.Errorf("append %s: not written: %w", r.stream, err))
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	err := s.tryTx(live)
	if len(live) == 1 && db.IsUniqueViolation(err) {
		err = s.tryAlone(live[0])
	}
	var ab *txAborted
	switch {
	case err == nil:
		s.committed(live)
	case errors.Is(err, ErrFenced):
		// Every append of this process is refused alike: no point in retrying alone.
		s.noteFenced(err)
		for _, r := range live {
			s.fail(r, err)
		}
	case len(live) > 1 && errors.As(err, &ab):
		// The database refused the batch as a whole (a unique violation means
		// someone wrote around the version check; a data error means one payload
		// it would not take). Run the appends one by one so only the offender fails.
		s.stats.retries.Add(1)
		s.log.Warn().Err(err).Int("appends", len(live)).Msg("group commit refused; retrying one append per transaction")
		for _, r := range live {
			if err := s.tryAlone(r); err != nil {
				s.fail(r, err)
				continue
			}
			s.committed([]*request{r})
		}
	default:
		for _, r := range live {
			s.fail(r, err)
		}
	}
}

// maxAloneTries bounds how often one append is re-run after a unique violation.
const maxAloneTries = 5

// tryAlone commits r in a transaction of its own. On PostgreSQL committers run in
// parallel, so another node may take the same stream version between this one's
// version read and its insert: the unique index refuses the loser, and a re-run reads
// the new version — then an exact expected version fails as a conflict in plan, and
// AnyVersion takes the next version. A stream written from two nodes at once keeps
// colliding only while both keep writing; after maxAloneTries the append fails as a
// conflict.
func (s *Store) tryAlone(r *request) error {
	var err error
	for range maxAloneTries {
		if err = s.tryTx([]*request{r}); err == nil || !db.IsUniqueViolation(err) {
			return err
		}
	}
	return err
}

// tryTx runs one transaction for reqs, leaving each request's res or conflict in it.
func (s *Store) tryTx(reqs []*request) error {
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.CommitTimeout)
	defer cancel()
	seen := make(map[string]bool, len(reqs))
	streams := make([]string, 0, len(reqs))
	events := 0
	for _, r := range reqs {
		events += len(r.events)
		if !seen[r.stream] {
			seen[r.stream] = true
			streams = append(streams, r.stream)
		}
	}
	return s.be.appendTx(ctx, streams, events, func(next func() int64, versions map[string]int64) []row {
		rows := plan(reqs, next, versions)
		if s.hookRows != nil {
			rows = s.hookRows(rows)
		}
		return rows
	})
}

// plan checks each request's expected version in arrival order against versions,
// which it advances, and numbers the events of those that pass with positions from
// next.
func plan(reqs []*request, next func() int64, versions map[string]int64) []row {
	var rows []row
	for _, r := range reqs {
		r.res, r.err = engine.AppendResult{}, nil
		cur := versions[r.stream]
		if r.expected != engine.AnyVersion && r.expected != cur {
			r.err = &engine.ConflictError{Stream: r.stream, Expected: r.expected, Actual: cur}
			continue
		}
		positions := make([]int64, len(r.events))
		for i, e := range r.events {
			pos := next()
			cur++
			positions[i] = pos
			rows = append(rows, row{
				position: pos, stream: r.stream, version: cur, typ: e.Type,
				data: e.Data, metadata: e.Metadata, companyID: r.companyID,
			})
		}
		versions[r.stream] = cur
		r.res = engine.AppendResult{Version: cur, Positions: positions}
	}
	return rows
}

// committed answers the requests of a committed transaction.
func (s *Store) committed(reqs []*request) {
	s.stats.transactions.Add(1)
	wrote := false
	for _, r := range reqs {
		if r.err != nil {
			s.stats.conflicts.Add(1)
		} else {
			wrote = true
			s.stats.appends.Add(1)
			s.stats.events.Add(uint64(len(r.events)))
		}
	}
	if wrote {
		s.signal()
	}
	for _, r := range reqs {
		close(r.done)
	}
}

// fail answers r with a transaction error; a unique violation is a conflict.
func (s *Store) fail(r *request, err error) {
	if db.IsUniqueViolation(err) {
		actual, verr := s.be.streamVersion(s.ctx, r.stream)
		if verr != nil {
			actual = -1
		}
		s.stats.conflicts.Add(1)
		s.answer(r, &engine.ConflictError{Stream: r.stream, Expected: r.expected, Actual: actual})
		return
	}
	s.stats.failures.Add(1)
	s.log.Error().Err(err).Str("stream", r.stream).Msg("append failed")
	s.answer(r, fmt.Errorf("append %s: %w", r.stream, err))
}

func (s *Store) answer(r *request, err error) {
	r.res, r.err = engine.AppendResult{}, err
	close(r.done)
}
