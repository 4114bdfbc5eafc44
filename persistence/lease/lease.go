// Package lease hands out exclusive per-key leases across the nodes of a cluster,
// so that a connection's channel session (a WhatsApp login, a Telegram poller) runs
// on one node at a time even when the actor placement briefly disagrees: during a
// membership split, or while a connection's new activation races its old one's stop.
//
// On PostgreSQL a lease is a session-level advisory lock,
// pg_try_advisory_lock(namespace, key), taken on one dedicated database connection
// per node (outside the pool). PostgreSQL frees every lock of a session when its
// connection ends, so the leases of a node that crashed (kill -9, power loss) are
// released without anyone's help: at once when its TCP connection closes, within
// the session's TCP keepalive (about 25 s, set on the connection) when the host
// vanished. The node checks its session every CheckInterval; when the connection
// broke (database restart, network loss, pg_terminate_backend) every lease it held
// reports Lost, since another node may take it from then on.
//
// On SQLite — one node by definition — Local keeps the leases in the process.
package lease

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rs/zerolog"

	"atende/goroutine"
	"atende/persistence/db"
)

// ErrHeld is answered by TryAcquire when another holder has the key.
var ErrHeld = errors.New("lease: held by another node")

// Locker hands out leases. Implementations are safe for concurrent use.
type Locker interface {
	// TryAcquire takes the lease of key, or answers ErrHeld at once when another
	// holder (another node, or another holder in this process) has it.
	TryAcquire(ctx context.Context, key int64) (*Lease, error)
	// Close releases every lease and ends the locker.
	Close() error
}

// Lease is one held key. Release it when done; Lost reports when it was taken away.
type Lease struct {
	key     int64
	lost    chan struct{}
	once    sync.Once
	release func(ctx context.Context) error
	relOnce sync.Once
	relErr  error
}

// Lost is closed when the lease is no longer held without Release having been
// called: the holder's database session ended, so another node may hold it now.
// Stop using what the lease protects at once.
func (l *Lease) Lost() <-chan struct{} { return l.lost }

func (l *Lease) markLost() { l.once.Do(func() { close(l.lost) }) }

// Release gives the lease back; later calls do nothing. Releasing a lost lease is
// harmless.
func (l *Lease) Release(ctx context.Context) error {
	l.relOnce.Do(func() { l.relErr = l.release(ctx) })
	return l.relErr
}

// New returns the locker for d: advisory locks on PostgreSQL, Local on SQLite.
func New(ctx context.Context, d *db.DB, cfg Config) (Locker, error) {
	if d.Dialect != db.Postgres {
		return NewLocal(), nil
	}
	return NewPostgres(ctx, d, cfg)
}

// Config tunes the PostgreSQL locker. Zero fields take their defaults.
type Config struct {
	// Namespace is the first key of every advisory lock. 0: a hash of the database
	// and schema names, so clusters (and tests) sharing one server but not one
	// schema never collide.
	Namespace int32
	// CheckInterval is how often the session is checked; DefaultCheckInterval when 0.
	// It bounds how long a node keeps using a lease after its session broke.
	CheckInterval time.Duration
	Logger        zerolog.Logger
}

// DefaultCheckInterval is how often a PostgreSQL locker checks that its session
// (and so its leases) is alive.
const DefaultCheckInterval = time.Second

// Postgres holds leases as advisory locks on one dedicated connection.
type Postgres struct {
	d     *db.DB
	ns    int32
	every time.Duration
	log   zerolog.Logger
	stop  chan struct{}
	done  chan struct{}

	mu     sync.Mutex // guards the fields below and serialises use of conn
	conn   *pgx.Conn  // nil until needed, and after the session broke
	held   map[int64]*Lease
	closed bool
}

// NewPostgres returns a locker on d (PostgreSQL); its session opens on first use.
func NewPostgres(ctx context.Context, d *db.DB, cfg Config) (*Postgres, error) {
	if d.Pool == nil {
		return nil, errors.New("lease: PostgreSQL locker needs a PostgreSQL database")
	}
	ns := cfg.Namespace
	if ns == 0 {
		var name string
		if err := d.SQL.QueryRowContext(ctx, `SELECT current_database() || '/' || current_schema()`).Scan(&name); err != nil {
			return nil, fmt.Errorf("lease: read schema name: %w", err)
		}
		h := fnv.New32a()
		h.Write([]byte("atende-lease:" + name))
		ns = int32(h.Sum32() & math.MaxInt32)
	}
	p := &Postgres{d: d, ns: ns, every: cfg.CheckInterval, log: cfg.Logger, stop: make(chan struct{}), done: make(chan struct{}),
		held: map[int64]*Lease{}}
	if p.every <= 0 {
		p.every = DefaultCheckInterval
	}
	goroutine.Go(p.watch)
	return p, nil
}

// Backend is the process id of the session holding the leases (0 when none is
// open): pg_terminate_backend(Backend()) simulates a lost session in tests.
func (p *Postgres) Backend() uint32 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn == nil {
		return 0
	}
	return p.conn.PgConn().PID()
}

func checkKey(key int64) error {
	if key <= 0 || key > math.MaxInt32 {
		return fmt.Errorf("lease: key %d out of range 1–%d", key, math.MaxInt32)
	}
	return nil
}

// session returns the open connection, opening one when needed. Call with mu held.
func (p *Postgres) session(ctx context.Context) (*pgx.Conn, error) {
	if p.conn != nil && !p.conn.IsClosed() {
		return p.conn, nil
	}
	p.dropLocked(errors.New("session closed"))
	c, err := pgx.ConnectConfig(ctx, p.d.Pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, fmt.Errorf("lease: open session: %w", err)
	}
	// A host that vanished (power loss) would keep its locks until the server's TCP
	// keepalive gives up, two hours by default: ask for ~25 s on this session.
	for _, q := range []string{`SET tcp_keepalives_idle = 10`, `SET tcp_keepalives_interval = 5`,
		`SET tcp_keepalives_count = 3`, `SET tcp_user_timeout = 25000`} {
		_, _ = c.Exec(ctx, q) // not settable over a Unix socket or on old servers: keep going
	}
	p.conn = c
	return c, nil
}

// dropLocked forgets a broken session: every lease it held is lost.
func (p *Postgres) dropLocked(why error) {
	if p.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = p.conn.Close(ctx)
		cancel()
		p.conn = nil
	}
	if len(p.held) > 0 {
		p.log.Error().Err(why).Int("leases", len(p.held)).Msg("lease session lost: every lease it held is lost")
	}
	for k, l := range p.held {
		l.markLost()
		delete(p.held, k)
	}
}

// TryAcquire implements Locker.
func (p *Postgres) TryAcquire(ctx context.Context, key int64) (*Lease, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("lease: locker closed")
	}
	if _, ok := p.held[key]; ok {
		// Advisory locks nest within a session: refuse a second holder here.
		return nil, ErrHeld
	}
	c, err := p.session(ctx)
	if err != nil {
		return nil, err
	}
	var ok bool
	if err := c.QueryRow(ctx, `SELECT pg_try_advisory_lock($1::int4, $2::int4)`, p.ns, int32(key)).Scan(&ok); err != nil {
		if c.IsClosed() {
			p.dropLocked(err)
		}
		return nil, fmt.Errorf("lease: acquire %d: %w", key, err)
	}
	if !ok {
		return nil, ErrHeld
	}
	l := &Lease{key: key, lost: make(chan struct{})}
	l.release = func(ctx context.Context) error { return p.release(ctx, l) }
	p.held[key] = l
	return l, nil
}

func (p *Postgres) release(ctx context.Context, l *Lease) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held[l.key] != l || p.conn == nil {
		return nil // lost, or the locker closed
	}
	delete(p.held, l.key)
	var ok bool
	err := p.conn.QueryRow(ctx, `SELECT pg_advisory_unlock($1::int4, $2::int4)`, p.ns, int32(l.key)).Scan(&ok)
	if err != nil {
		// The lock may still be held by the session: end the session to be sure.
		p.dropLocked(err)
		return fmt.Errorf("lease: release %d: %w", l.key, err)
	}
	return nil
}

// watch checks the session every interval: a broken one loses every lease, and a
// lock missing from it (never expected) loses its lease.
func (p *Postgres) watch() {
	defer close(p.done)
	t := time.NewTicker(p.every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		p.check()
	}
}

func (p *Postgres) check() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn == nil || len(p.held) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), max(p.every, 2*time.Second))
	defer cancel()
	rows, err := p.conn.Query(ctx, `SELECT objid::int8 FROM pg_locks
		WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND classid::int8 = $1 AND objsubid = 2 AND granted`, int64(p.ns))
	if err != nil {
		p.dropLocked(err)
		return
	}
	have := map[int64]bool{}
	for rows.Next() {
		var k int64
		if err := rows.Scan(&k); err != nil {
			rows.Close()
			p.dropLocked(err)
			return
		}
		have[k] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		p.dropLocked(err)
		return
	}
	for k, l := range p.held {
		if !have[k] {
			p.log.Error().Int64("key", k).Msg("advisory lock missing from the lease session: lease lost")
			l.markLost()
			delete(p.held, k)
		}
	}
}

// Close implements Locker: it ends the session, which releases every lock.
func (p *Postgres) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.stop)
	var err error
	if p.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err = p.conn.Close(ctx)
		cancel()
		p.conn = nil
	}
	for k, l := range p.held {
		l.markLost()
		delete(p.held, k)
	}
	p.mu.Unlock()
	<-p.done
	return err
}

// Local keeps leases in this process: the single-node (SQLite) Locker.
type Local struct {
	mu   sync.Mutex
	held map[int64]*Lease
}

// NewLocal returns an in-process locker.
func NewLocal() *Local { return &Local{held: map[int64]*Lease{}} }

// TryAcquire implements Locker.
func (m *Local) TryAcquire(_ context.Context, key int64) (*Lease, error) {
	if err := checkKey(key); err != nil { // the same keys as on PostgreSQL
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.held[key]; ok {
		return nil, ErrHeld
	}
	l := &Lease{key: key, lost: make(chan struct{})}
	l.release = func(context.Context) error {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.held[key] == l {
			delete(m.held, key)
		}
		return nil
	}
	m.held[key] = l
	return l, nil
}

// Close implements Locker.
func (m *Local) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, l := range m.held {
		l.markLost()
		delete(m.held, k)
	}
	return nil
}
