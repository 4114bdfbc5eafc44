package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/db"
)

// Defaults of Config's zero fields.
const (
	DefaultMaxBatch        = 512
	DefaultMaxWait         = time.Millisecond
	DefaultMaxEventSize    = 1 << 20
	DefaultMaxSnapshotSize = 16 << 20
	DefaultCommitTimeout   = 30 * time.Second
	DefaultReadWait        = 5 * time.Second
	// DefaultReadLimit is ReadAll's limit when the caller passes ≤ 0.
	DefaultReadLimit = 1000
)

// ErrClosed is returned by Append after Close began.
var ErrClosed = errors.New("journal: closed")

// Config tunes a Store. The zero value is ready for production.
type Config struct {
	// MaxBatch is the most events one group-commit transaction carries (0: 512). An
	// append with more events than that is committed alone, whole.
	MaxBatch int
	// MaxWait bounds how long the committer lingers for more appends under load: when
	// the previous batch held more appends than the one being collected, the
	// appenders it answered are probably about to append again, so it waits for them
	// until the batch is as large as the previous one or MaxWait has passed. An idle
	// journal (previous batch a single append) never waits. 0: 1 ms; negative: never
	// linger (batches then alternate between a lone early append and everyone else).
	MaxWait time.Duration
	// MaxEventSize bounds len(Data)+len(Metadata) of one event in bytes (0: 1 MiB).
	MaxEventSize int
	// MaxSnapshotSize bounds a snapshot's Data in bytes (0: 16 MiB).
	MaxSnapshotSize int
	// CommitTimeout bounds one group-commit transaction, lock wait included (0: 30 s).
	CommitTimeout time.Duration
	// ReadWait bounds how long ReadAll waits on PostgreSQL when events are committed
	// past its position but a transaction older than them is still open (one that
	// could still commit below them, see doc.go); it then returns nothing and the
	// caller polls again (0: 5 s).
	ReadWait time.Duration
	// Logger receives commit failures and listener reconnects. The zero value logs
	// nothing.
	Logger zerolog.Logger
}

func (c *Config) fill() error {
	if c.MaxBatch < 0 || c.MaxEventSize < 0 || c.MaxSnapshotSize < 0 || c.CommitTimeout < 0 || c.ReadWait < 0 {
		return fmt.Errorf("journal config: negative limit in %+v", *c)
	}
	if c.MaxBatch == 0 {
		c.MaxBatch = DefaultMaxBatch
	}
	if c.MaxWait == 0 {
		c.MaxWait = DefaultMaxWait
	}
	if c.MaxEventSize == 0 {
		c.MaxEventSize = DefaultMaxEventSize
	}
	if c.MaxSnapshotSize == 0 {
		c.MaxSnapshotSize = DefaultMaxSnapshotSize
	}
	if c.CommitTimeout == 0 {
		c.CommitTimeout = DefaultCommitTimeout
	}
	if c.ReadWait == 0 {
		c.ReadWait = DefaultReadWait
	}
	return nil
}

// Stats counts what a Store did since New. Counters only grow.
type Stats struct {
	Appends      uint64 // appends committed
	Events       uint64 // events committed
	Transactions uint64 // group-commit transactions committed
	Conflicts    uint64 // appends refused with ErrConflict
	Retries      uint64 // batches re-run one append per transaction after the database refused them
	Failures     uint64 // appends failed by an infrastructure error
}

type stats struct {
	appends, events, transactions, conflicts, retries, failures atomic.Uint64
}

// Store is the journal on one database. It implements engine.Journal.
type Store struct {
	// static after New
	cfg     Config
	log     zerolog.Logger
	be      backend
	queue   chan *request
	ctx     context.Context // cancelled by Close once the committer has drained
	cancel  context.CancelFunc
	done    chan struct{} // closed when the committer returns
	workers routines

	closeMu sync.RWMutex // guards closed against Append's send on queue
	closed  bool

	notifyMu sync.Mutex    // guards notifyCh
	notifyCh chan struct{} // closed and replaced on every commit seen
	// hears: notifyCh hears every commit in the database (HearsEveryCommit)
	hears atomic.Bool

	stats stats

	// owned by the committer goroutine
	carry     *request // an append that did not fit the previous batch
	lastBatch int      // appends in the previous batch

	fenced     chan struct{} // closed on the first ErrFenced (fence.go)
	fencedOnce sync.Once

	// hookRows, set by tests before the first Append, rewrites a batch's rows just
	// before they are inserted.
	hookRows func([]row) []row
}

var _ engine.Journal = (*Store)(nil)

// New returns the journal on d, choosing the implementation by d's dialect, and starts
// its committer (and, on PostgreSQL, its listener for other nodes' commits). d must be
// migrated. Call Close to stop them.
func New(d *db.DB, cfg Config) (*Store, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Store{
		cfg:      cfg,
		log:      cfg.Logger.With().Str("component", "journal").Logger(),
		queue:    make(chan *request, 4*cfg.MaxBatch),
		ctx:      ctx,
		cancel:   cancel,
		done:     make(chan struct{}),
		notifyCh: make(chan struct{}),
		fenced:   make(chan struct{}),
	}
	switch d.Dialect {
	case db.SQLite:
		be, err := newSQLite(ctx, d)
		if err != nil {
			cancel()
			return nil, err
		}
		s.be = be
	case db.Postgres:
		if d.Pool == nil {
			cancel()
			return nil, errors.New("journal: postgres database without a pgx pool")
		}
		s.be = newPostgres(d, cfg.ReadWait)
	default:
		cancel()
		return nil, fmt.Errorf("journal: unsupported dialect %q", d.Dialect)
	}
	s.workers.Go(func() {
		defer close(s.done)
		s.commitLoop()
	})
	if l, ok := s.be.(listener); ok {
		s.workers.Go(func() { l.listen(s.ctx, s.log, s.signal, s.hears.Store) })
	} else {
		s.hears.Store(true) // every writer is this process, and its commits signal
	}
	return s, nil
}

// Close stops taking appends, commits the ones already queued, and stops the
// committer and listener. It does not close the database. The Store must not be used
// afterwards (Append answers ErrClosed).
func (s *Store) Close() error {
	s.closeMu.Lock()
	if s.closed {
		s.closeMu.Unlock()
		return nil
	}
	s.closed = true
	close(s.queue)
	s.closeMu.Unlock()
	<-s.done
	s.cancel()
	s.workers.Close()
	s.be.close()
	return nil
}

// Append implements engine.Journal.
func (s *Store) Append(ctx context.Context, companyID engine.ID, stream string, expectedVersion int64, events ...engine.EventData) (engine.AppendResult, error) {
	size, err := s.validateAppend(companyID, stream, expectedVersion, events)
	if err != nil {
		return engine.AppendResult{}, err
	}
	r := &request{
		ctx:       ctx,
		companyID: companyID,
		stream:    stream,
		expected:  expectedVersion,
		events:    events,
		size:      size,
		done:      make(chan struct{}),
	}
	s.closeMu.RLock()
	if s.closed {
		s.closeMu.RUnlock()
		return engine.AppendResult{}, fmt.Errorf("append %s: %w", stream, ErrClosed)
	}
	select {
	case s.queue <- r:
		s.closeMu.RUnlock()
	case <-ctx.Done():
		s.closeMu.RUnlock()
		return engine.AppendResult{}, fmt.Errorf("append %s: %w", stream, ctx.Err())
	}
	select {
	case <-r.done:
		return r.res, r.err
	case <-ctx.Done():
		return engine.AppendResult{}, fmt.Errorf("append %s: outcome unknown: %w", stream, ctx.Err())
	}
}

// ReadStream implements engine.Journal.
func (s *Store) ReadStream(ctx context.Context, stream string, fromVersion int64, limit int) ([]engine.RecordedEvent, error) {
	lim := int64(limit)
	if limit <= 0 {
		lim = math.MaxInt64
	}
	evs, err := s.be.readStream(ctx, stream, max(fromVersion, 1), lim)
	if err != nil {
		return nil, fmt.Errorf("read stream %s from %d: %w", stream, fromVersion, err)
	}
	return evs, nil
}

// ReadAll implements engine.Journal.
func (s *Store) ReadAll(ctx context.Context, afterPosition int64, limit int) ([]engine.RecordedEvent, error) {
	if limit <= 0 {
		limit = DefaultReadLimit
	}
	evs, err := s.be.readAll(ctx, max(afterPosition, 0), int64(limit))
	if err != nil {
		return nil, fmt.Errorf("read all after %d: %w", afterPosition, err)
	}
	return evs, nil
}

// ReadCompany reads one tenant's events after afterPosition in position order, at most
// limit (DefaultReadLimit when 0 or less), through the events_company index
// (migration 0921): a rebuild of one tenant's read model reads its events only, not
// the whole journal. Like ReadAll, it sees a prefix of the journal.
func (s *Store) ReadCompany(ctx context.Context, companyID engine.ID, afterPosition int64, limit int) ([]engine.RecordedEvent, error) {
	if limit <= 0 {
		limit = DefaultReadLimit
	}
	evs, err := s.be.readCompany(ctx, companyID, max(afterPosition, 0), int64(limit))
	if err != nil {
		return nil, fmt.Errorf("read tenant %d after %d: %w", companyID, afterPosition, err)
	}
	return evs, nil
}

// ReadCompanyWithin is ReadCompany for a caller that holds tx, a transaction on the
// journal's database. On SQLite it reads in tx: that transaction holds the single
// write lock, and every other connection of the pool may be held by writers waiting
// for it. On PostgreSQL it is ReadCompany (the high-water mark needs its own reads).
func (s *Store) ReadCompanyWithin(ctx context.Context, tx *sql.Tx, companyID engine.ID, afterPosition int64, limit int) ([]engine.RecordedEvent, error) {
	in, ok := s.be.(interface {
		readCompanyIn(ctx context.Context, tx *sql.Tx, companyID engine.ID, after, limit int64) ([]engine.RecordedEvent, error)
	})
	if !ok {
		return s.ReadCompany(ctx, companyID, afterPosition, limit)
	}
	if limit <= 0 {
		limit = DefaultReadLimit
	}
	evs, err := in.readCompanyIn(ctx, tx, companyID, max(afterPosition, 0), int64(limit))
	if err != nil {
		return nil, fmt.Errorf("read tenant %d after %d: %w", companyID, afterPosition, err)
	}
	return evs, nil
}

// Head implements engine.Journal.
func (s *Store) Head(ctx context.Context) (int64, error) {
	h, err := s.be.head(ctx)
	if err != nil {
		return 0, fmt.Errorf("journal head: %w", err)
	}
	return h, nil
}

// SaveSnapshot implements engine.Journal.
func (s *Store) SaveSnapshot(ctx context.Context, snap engine.Snapshot) error {
	if err := s.validateSnapshot(snap); err != nil {
		return err
	}
	exists, err := s.be.saveSnapshot(ctx, snap)
	if err != nil {
		return fmt.Errorf("save snapshot %s@%d: %w", snap.StreamID, snap.Version, err)
	}
	if !exists {
		return fmt.Errorf("save snapshot %s@%d: the stream has no such version: %w", snap.StreamID, snap.Version, engine.ErrInvalidEvent)
	}
	return nil
}

// LoadSnapshot implements engine.Journal.
func (s *Store) LoadSnapshot(ctx context.Context, stream string) (engine.Snapshot, bool, error) {
	snap, ok, err := s.be.loadSnapshot(ctx, stream)
	if err != nil {
		return engine.Snapshot{}, false, fmt.Errorf("load snapshot %s: %w", stream, err)
	}
	return snap, ok, nil
}

// Notify returns a channel that is closed once the journal has moved past the point
// at which Notify was called: a local commit, or on PostgreSQL another node's commit
// announced by NOTIFY. Take the channel before reading, then wait on it:
//
//	ch := s.Notify()
//	evs, _ := s.ReadAll(ctx, after, n)
//	if len(evs) == 0 { <-ch }
//
// Notifications from other nodes are best effort; tail with a poll as well.
func (s *Store) Notify() <-chan struct{} {
	s.notifyMu.Lock()
	defer s.notifyMu.Unlock()
	return s.notifyCh
}

// HearsEveryCommit reports whether Notify is closed for every commit in the
// database, other nodes' included: always on SQLite, where every writer is this
// process, and on PostgreSQL while the listener is connected (it signals Notify when
// it connects and when it is lost). A reader waiting on Notify need poll often only
// while this is false.
func (s *Store) HearsEveryCommit() bool { return s.hears.Load() }

func (s *Store) signal() {
	s.notifyMu.Lock()
	close(s.notifyCh)
	s.notifyCh = make(chan struct{})
	s.notifyMu.Unlock()
}

// Stats returns the counters so far.
func (s *Store) Stats() Stats {
	return Stats{
		Appends:      s.stats.appends.Load(),
		Events:       s.stats.events.Load(),
		Transactions: s.stats.transactions.Load(),
		Conflicts:    s.stats.conflicts.Load(),
		Retries:      s.stats.retries.Load(),
		Failures:     s.stats.failures.Load(),
	}
}
