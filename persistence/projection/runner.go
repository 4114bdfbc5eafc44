package projection

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/db"
)

// Projection is a read model fed from the journal.
type Projection interface {
	// Name identifies the projection's checkpoint; it must be stable across releases.
	Name() string
	// Apply writes the effect of events (in position order, never empty) through tx.
	// An error rolls the batch back; it is retried from the same position.
	Apply(ctx context.Context, tx *sql.Tx, d *db.DB, events []engine.RecordedEvent) error
}

// Resetter is implemented by projections whose read model must be emptied before a
// replay; Reset runs in the transaction that moves the checkpoint back to 0.
type Resetter interface {
	Reset(ctx context.Context, tx *sql.Tx, d *db.DB) error
}

// Source is the journal as the Runner reads it (journal.Store implements it).
type Source interface {
	ReadAll(ctx context.Context, afterPosition int64, limit int) ([]engine.RecordedEvent, error)
	// Notify returns a channel closed after the next commit (see journal.Store.Notify).
	Notify() <-chan struct{}
}

// Runner errors callers act on.
var (
	ErrClosed            = errors.New("projection: runner closed")
	ErrUnknownProjection = errors.New("projection: unknown projection")
)

// errCheckpointMoved: the stored checkpoint is not where the batch was read from
// (another node applied it, or a Reset ran); the worker adopts the stored one.
var errCheckpointMoved = errors.New("projection: checkpoint moved")

// Defaults of Config's zero fields.
const (
	DefaultBatchSize    = 500
	DefaultPollPostgres = 100 * time.Millisecond
	DefaultPollSQLite   = time.Second
	DefaultMinBackoff   = 100 * time.Millisecond
	DefaultMaxBackoff   = 30 * time.Second
)

// Config tunes a Runner. The zero value is ready for production.
type Config struct {
	// BatchSize is the most events one Apply receives (0: 500).
	BatchSize int
	// PollInterval is how often a caught-up projection looks for events the local
	// Notify did not announce, i.e. other nodes' (0: 100 ms on PostgreSQL, 1 s on
	// SQLite, where every writer is local).
	PollInterval time.Duration
	// MinBackoff and MaxBackoff bound the wait before retrying a failed batch; it
	// doubles per consecutive failure (0: 100 ms and 30 s).
	MinBackoff, MaxBackoff time.Duration
	// Logger receives failures. The zero value logs nothing.
	Logger zerolog.Logger
}

// Status is a projection's progress.
type Status struct {
	Name     string
	Position int64 // last applied position
	Failures int   // consecutive failed attempts at the current batch
	LastErr  string
}

// Runner tails the journal into its projections.
type Runner struct {
	// static after New
	d       *db.DB
	src     Source
	cfg     Config
	log     zerolog.Logger
	workers []*worker
	byName  map[string]*worker
	ctx     context.Context
	cancel  context.CancelFunc
	tracked routines

	mu      sync.Mutex    // guards the fields below and every worker's progress
	changed chan struct{} // closed and replaced whenever a position moves
	started bool
	closed  bool
}

// worker runs one projection.
type worker struct {
	// static after New
	p    Projection
	log  zerolog.Logger
	kick chan struct{} // capacity 1: wakes the worker after a Reset

	// held across a batch's transaction and its publication, and by Reset
	applyMu sync.Mutex

	// guarded by Runner.mu
	position int64
	failures int
	lastErr  error
}

// New builds a Runner for ps over d. Names must be unique and non-empty. Call Start.
func New(d *db.DB, src Source, cfg Config, ps ...Projection) (*Runner, error) {
	if cfg.BatchSize < 0 || cfg.PollInterval < 0 || cfg.MinBackoff < 0 || cfg.MaxBackoff < 0 {
		return nil, fmt.Errorf("projection config: negative value in %+v", cfg)
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = DefaultPollSQLite
		if d.Dialect == db.Postgres {
			cfg.PollInterval = DefaultPollPostgres
		}
	}
	if cfg.MinBackoff == 0 {
		cfg.MinBackoff = DefaultMinBackoff
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	cfg.MaxBackoff = max(cfg.MaxBackoff, cfg.MinBackoff)
	ctx, cancel := context.WithCancel(context.Background())
	r := &Runner{
		d: d, src: src, cfg: cfg,
		log:     cfg.Logger.With().Str("component", "projection").Logger(),
		byName:  map[string]*worker{},
		ctx:     ctx,
		cancel:  cancel,
		changed: make(chan struct{}),
	}
	for _, p := range ps {
		name := p.Name()
		if name == "" || r.byName[name] != nil {
			cancel()
			return nil, fmt.Errorf("projection: name %q is empty or used twice", name)
		}
		w := &worker{p: p, log: r.log.With().Str("projection", name).Logger(), kick: make(chan struct{}, 1)}
		r.workers = append(r.workers, w)
		r.byName[name] = w
	}
	return r, nil
}

// Start creates missing checkpoints, loads them, and starts one goroutine per
// projection. It fails if the runner was started or closed before.
func (r *Runner) Start(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	if r.started {
		return errors.New("projection: runner already started")
	}
	for _, w := range r.workers {
		name := w.p.Name()
		if _, err := r.d.SQL.ExecContext(ctx,
			`INSERT INTO projection_checkpoints (name, position) VALUES ($1, 0) ON CONFLICT (name) DO NOTHING`, name); err != nil {
			return fmt.Errorf("projection %s: create checkpoint: %w", name, err)
		}
		if err := r.d.SQL.QueryRowContext(ctx, `SELECT position FROM projection_checkpoints WHERE name = $1`, name).
			Scan(&w.position); err != nil {
			return fmt.Errorf("projection %s: load checkpoint: %w", name, err)
		}
	}
	r.started = true
	for _, w := range r.workers {
		r.tracked.Go(func() { r.run(w) })
	}
	return nil
}

// Close stops the projections (a batch being applied is rolled back) and wakes
// every WaitFor with ErrClosed. It does not close the database.
func (r *Runner) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
	r.cancel()
	r.tracked.Close()
	return nil
}

// WaitFor returns once every projection has applied position (normally an
// AppendResult.LastPosition), so a read model read afterwards reflects that write. It
// fails when ctx ends (naming the projections still behind) or the runner closes. Call
// it after Start.
func (r *Runner) WaitFor(ctx context.Context, position int64) error {
	return r.waitFor(ctx, position, r.workers)
}

// Some is a subset of a Runner's projections to wait for (Runner.Only).
type Some struct {
	r       *Runner
	workers []*worker
}

// Only returns a waiter for the named projections alone: a reader of some read models
// need not wait for the others (the realtime publisher does not wait for the
// dashboard's). It fails on a name the runner does not run.
func (r *Runner) Only(names ...string) (*Some, error) {
	s := &Some{r: r}
	for _, name := range names {
		w := r.byName[name]
		if w == nil {
			return nil, fmt.Errorf("wait for %q: %w", name, ErrUnknownProjection)
		}
		s.workers = append(s.workers, w)
	}
	return s, nil
}

// WaitFor is Runner.WaitFor for these projections only.
func (s *Some) WaitFor(ctx context.Context, position int64) error {
	return s.r.waitFor(ctx, position, s.workers)
}

// Applied is the lowest position the runner's projections have applied.
func (r *Runner) Applied() int64 { return r.applied(r.workers) }

// Applied is Runner.Applied for these projections only.
func (s *Some) Applied() int64 { return s.r.applied(s.workers) }

// applied is the lowest position workers have applied; with no workers, every
// position counts as applied (as WaitFor returns at once).
func (r *Runner) applied(workers []*worker) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	low := int64(math.MaxInt64)
	for _, w := range workers {
		low = min(low, w.position)
	}
	return low
}

func (r *Runner) waitFor(ctx context.Context, position int64, workers []*worker) error {
	for {
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return fmt.Errorf("wait for position %d: %w", position, ErrClosed)
		}
		var behind []string
		for _, w := range workers {
			if w.position < position {
				behind = append(behind, fmt.Sprintf("%s at %d", w.p.Name(), w.position))
			}
		}
		ch := r.changed
		r.mu.Unlock()
		if len(behind) == 0 {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("wait for position %d (%s): %w", position, strings.Join(behind, ", "), ctx.Err())
		}
	}
}

// Reset rebuilds the named projection: in one transaction it empties the read model
// (if the projection is a Resetter) and moves the checkpoint to 0; the projection then
// replays the journal from the start.
func (r *Runner) Reset(ctx context.Context, name string) error {
	w := r.byName[name]
	if w == nil {
		return fmt.Errorf("reset %q: %w", name, ErrUnknownProjection)
	}
	w.applyMu.Lock()
	defer w.applyMu.Unlock()
	err := r.d.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := r.lockCheckpoint(ctx, tx, name); err != nil {
			return err
		}
		if rs, ok := w.p.(Resetter); ok {
			if err := rs.Reset(ctx, tx, r.d); err != nil {
				return fmt.Errorf("reset read model: %w", err)
			}
		}
		return r.saveCheckpoint(ctx, tx, name, 0)
	})
	if err != nil {
		return fmt.Errorf("reset %s: %w", name, err)
	}
	r.publish(w, 0, nil)
	select {
	case w.kick <- struct{}{}:
	default:
	}
	w.log.Info().Msg("projection reset; replaying from position 0")
	return nil
}

// Checkpoint is the named projection's last applied position as this runner knows it.
func (r *Runner) Checkpoint(name string) (int64, bool) {
	w := r.byName[name]
	if w == nil {
		return 0, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return w.position, true
}

// Status reports every projection's progress, by name.
func (r *Runner) Status() []Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Status, 0, len(r.workers))
	for _, w := range r.workers {
		s := Status{Name: w.p.Name(), Position: w.position, Failures: w.failures}
		if w.lastErr != nil {
			s.LastErr = w.lastErr.Error()
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// publish records a worker's progress (or failure, when err is set) and wakes
// WaitFor callers.
func (r *Runner) publish(w *worker, position int64, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		w.failures++
		w.lastErr = err
		return
	}
	w.failures, w.lastErr = 0, nil
	if w.position != position {
		w.position = position
		close(r.changed)
		r.changed = make(chan struct{})
	}
}

func (r *Runner) lockCheckpoint(ctx context.Context, tx *sql.Tx, name string) (int64, error) {
	q := `SELECT position FROM projection_checkpoints WHERE name = $1`
	if r.d.Dialect == db.Postgres {
		q += ` FOR UPDATE`
	}
	var pos int64
	if err := tx.QueryRowContext(ctx, q, name).Scan(&pos); err != nil {
		return 0, fmt.Errorf("lock checkpoint: %w", err)
	}
	return pos, nil
}

func (r *Runner) saveCheckpoint(ctx context.Context, tx *sql.Tx, name string, pos int64) error {
	now := `now()`
	if r.d.Dialect == db.SQLite {
		now = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`
	}
	if _, err := tx.ExecContext(ctx, `UPDATE projection_checkpoints SET position = $2, updated_at = `+now+` WHERE name = $1`,
		name, pos); err != nil {
		return fmt.Errorf("save checkpoint %d: %w", pos, err)
	}
	return nil
}
