package journal

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
)

// Reader is what a Tail reads: the journal's ReadAll and its commit notifications
// (a *Store).
type Reader interface {
	ReadAll(ctx context.Context, afterPosition int64, limit int) ([]engine.RecordedEvent, error)
	Notify() <-chan struct{}
}

// hearer is a Reader that tells whether its Notify hears every commit (a *Store).
type hearer interface{ HearsEveryCommit() bool }

// Defaults of TailConfig's zero fields.
const (
	DefaultTailEvents = 16_384
	DefaultTailBytes  = 32 << 20
	DefaultTailBatch  = 1000
	DefaultTailPoll   = 100 * time.Millisecond
	DefaultTailCalm   = time.Second
)

// TailConfig tunes a Tail. The zero value is ready for production.
type TailConfig struct {
	// Events and Bytes bound what the tail keeps (events; their data and metadata
	// bytes): a reader further behind reads the journal itself (0: 16,384 and 32 MiB).
	Events, Bytes int
	// Batch is the most events one read of the journal takes (0: 1,000).
	Batch int
	// Poll is how often the tail reads without a commit notification while its
	// source may miss some: other nodes' commits reach Notify through PostgreSQL's
	// LISTEN, which misses those made while it reconnects (0: 100 ms).
	Poll time.Duration
	// Calm is how often it reads while the source hears every commit
	// (HearsEveryCommit): a safety net only, so that an idle node does not query
	// the database ten times a second for nothing (0: 1 s).
	Calm   time.Duration
	Logger zerolog.Logger
}

// Tail shares one reader of the journal among a node's tailing readers — the
// projections and the realtime publisher. Without it each of them runs its own
// ReadAll of every batch: on PostgreSQL each read proves its high-water mark, so the
// same events were queried, proven and decoded once per reader. The tail reads the
// journal once, keeps the newest events it read in memory, and answers ReadAll from
// them; a reader asking for events older than what it keeps reads the journal itself.
//
// Its answers are the journal's: the tail is one ReadAll reader, so what it keeps is a
// run of the journal's read order with no event missing (see "Positions and
// ordering" in doc.go), and a reader that switches between the journal and the tail
// sees the same order, since both are prefixes of it. The tail starts at the first
// position asked of it; Notify is closed when it has read more.
//
// Events handed out share their Data and Metadata with the tail and the other
// readers: readers must not modify them.
type Tail struct {
	src    Reader
	cfg    TailConfig
	log    zerolog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	tasks  routines

	mu      sync.Mutex
	started bool
	// kept holds the events read after position from, in position order; head is
	// the position read up to (the last kept event's, or from when none is kept).
	kept       []engine.RecordedEvent
	keptBytes  int
	from, head int64
	changed    chan struct{} // closed and replaced when head moves
	// asked is the highest position a reader asked after; ask wakes a tail that
	// stopped reading ahead of every reader (ahead).
	asked int64
	ask   chan struct{}
}

// NewTail returns a tail of src. It reads nothing until a reader asks; Close stops it.
func NewTail(src Reader, cfg TailConfig) *Tail {
	if cfg.Events <= 0 {
		cfg.Events = DefaultTailEvents
	}
	if cfg.Bytes <= 0 {
		cfg.Bytes = DefaultTailBytes
	}
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultTailBatch
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultTailPoll
	}
	if cfg.Calm <= 0 {
		cfg.Calm = DefaultTailCalm
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Tail{src: src, cfg: cfg, log: cfg.Logger.With().Str("component", "journal_tail").Logger(),
		ctx: ctx, cancel: cancel, changed: make(chan struct{}), ask: make(chan struct{}, 1)}
}

// Close stops the tail's reads and waits for them. Readers fall back to the journal.
func (t *Tail) Close() {
	t.cancel()
	t.tasks.Close()
}

// Notify returns a channel closed once the tail has read past what it held when
// Notify was called; take it before ReadAll, as with Store.Notify.
func (t *Tail) Notify() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changed
}

// Head is the position the tail has read up to (0 before any reader asked).
func (t *Tail) Head() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.head
}

// ReadAll answers like Store.ReadAll: the events after afterPosition in position order,
// at most limit (DefaultReadLimit when 0 or less). Positions the tail keeps come from
// memory; an empty answer at the tail's head means "nothing yet": wait for Notify.
func (t *Tail) ReadAll(ctx context.Context, afterPosition int64, limit int) ([]engine.RecordedEvent, error) {
	if limit <= 0 {
		limit = DefaultReadLimit
	}
	afterPosition = max(afterPosition, 0)
	t.mu.Lock()
	if !t.started && t.ctx.Err() == nil {
		t.started, t.from, t.head = true, afterPosition, afterPosition
		t.tasks.Go(t.run)
	}
	if !t.started || afterPosition < t.from || t.ctx.Err() != nil {
		t.mu.Unlock()
		return t.src.ReadAll(ctx, afterPosition, limit)
	}
	i := t.after(afterPosition)
	n := min(len(t.kept)-i, limit)
	out := make([]engine.RecordedEvent, n)
	copy(out, t.kept[i:i+n])
	if afterPosition > t.asked {
		t.asked = afterPosition
		if !t.farAhead() {
			select {
			case t.ask <- struct{}{}:
			default:
			}
		}
	}
	t.mu.Unlock()
	return out, nil
}

// after is the index in kept of the first event after position p.
func (t *Tail) after(p int64) int {
	return sort.Search(len(t.kept), func(i int) bool { return t.kept[i].Position > p })
}

// farAhead reports whether the tail should stop reading until a reader catches up: it
// reads on while the most advanced reader is in the newer half of what it keeps, so a
// rebuild from position 0 (every reader far behind the journal's head) does not have
// the tail read the whole journal ahead of them only to drop it. t.mu is held.
func (t *Tail) farAhead() bool {
	return len(t.kept)-t.after(t.asked) > t.cfg.Events/2
}

// run reads the journal after head until Close, keeping what it reads.
func (t *Tail) run() {
	poll := time.NewTimer(t.cfg.Poll)
	defer poll.Stop()
	notified := false // the last wait ended with a notification
	backoff := 100 * time.Millisecond
	for t.ctx.Err() == nil {
		t.mu.Lock()
		far, head := t.farAhead(), t.head
		t.mu.Unlock()
		if far {
			select {
			case <-t.ask:
			case <-t.ctx.Done():
				return
			}
			continue
		}
		wake := t.src.Notify()
		evs, err := t.src.ReadAll(t.ctx, head, t.cfg.Batch)
		if err != nil {
			if t.ctx.Err() != nil {
				return
			}
			t.log.Warn().Err(err).Dur("retry_in", backoff).Msg("tail the journal")
			if !t.sleep(backoff) {
				return
			}
			backoff = min(2*backoff, 5*time.Second)
			continue
		}
		backoff = 100 * time.Millisecond
		if len(evs) > 0 {
			t.keep(evs)
			continue
		}
		poll.Reset(t.pollEvery(notified))
		notified = false
		select {
		case <-wake:
			notified = true
		case <-poll.C:
		case <-t.ctx.Done():
			return
		}
	}
}

// pollEvery is how long the tail waits for a notification before it reads anyway,
// after a read that found nothing: Calm while its source hears every commit, else
// Poll (a source that stops hearing signals Notify, so a tail waiting Calm learns of
// it at once). After a notification that found nothing it is Poll too: the commit
// announced may not be readable yet — an older transaction still open elsewhere
// holds the journal's high-water mark below it (package doc), and when that one ends
// without appending, nothing announces it.
func (t *Tail) pollEvery(notified bool) time.Duration {
	if h, ok := t.src.(hearer); ok && h.HearsEveryCommit() && !notified {
		return t.cfg.Calm
	}
	return t.cfg.Poll
}

func (t *Tail) sleep(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-t.ctx.Done():
		return false
	}
}

// keep adds evs (read after head) and drops the oldest events beyond the bounds.
func (t *Tail) keep(evs []engine.RecordedEvent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.kept = append(t.kept, evs...)
	for _, ev := range evs {
		t.keptBytes += eventBytes(ev)
	}
	t.head = evs[len(evs)-1].Position
	drop := 0
	for len(t.kept)-drop > t.cfg.Events || (t.keptBytes > t.cfg.Bytes && len(t.kept)-drop > len(evs)) {
		t.keptBytes -= eventBytes(t.kept[drop])
		t.from = t.kept[drop].Position
		drop++
	}
	if drop > 0 {
		clear(t.kept[:drop]) // let the dropped events' data go
		t.kept = t.kept[drop:]
	}
	close(t.changed)
	t.changed = make(chan struct{})
}

func eventBytes(ev engine.RecordedEvent) int { return len(ev.Data) + len(ev.Metadata) }
