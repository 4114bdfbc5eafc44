package realtime

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/goroutine"
	"atende/transport/socket"
)

// Source is the journal as the publisher reads it.
type Source interface {
	ReadAll(ctx context.Context, afterPosition int64, limit int) ([]engine.RecordedEvent, error)
	// Notify returns a channel closed at the next commit; take it before reading.
	Notify() <-chan struct{}
}

// Waiter reports when the read models have applied a position (the projection runner).
type Waiter interface {
	WaitFor(ctx context.Context, position int64) error
	// Applied is the position up to which every read model waited for has applied
	// the journal.
	Applied() int64
}

// Config configures a Publisher. Zero values are documented per field.
type Config struct {
	Source  Source                  // required
	Hub     *socket.Hub             // required; built on Backlog
	Backlog *socket.PositionBacklog // required; its start is Start
	Queries engine.TicketQueries    // required: tickets are published as the read model shows them
	Waiter  Waiter                  // nil: do not wait (tests); production passes the runner
	// Chats reads the chats read model for the "chat" events; nil publishes them with
	// the journal event's own fields only.
	Chats engine.ChatQueries
	// Start is the position to publish after: the backlog's start.
	Start int64
	// SignMedia turns a stored media path into a URL the browser can load; nil
	// publishes the path as it is.
	SignMedia func(companyID engine.ID, path string) string
	// Batch is how many events one read takes; 0: 500.
	Batch int
	// Poll is how long the loop sleeps without a notification; 0: 250 ms (commits on
	// other nodes arrive through Notify on PostgreSQL, so this is a safety net).
	Poll time.Duration
	// WaitTimeout bounds the wait for the read models per batch; 0: 5 s. After it the
	// batch is published with whatever the read model holds, and a warning logged.
	// The publisher waits for the batch's first event only, and publishes the part
	// of the batch the read models have applied then (smaller steps while they are
	// behind, rather than a wait for the end of the batch).
	WaitTimeout time.Duration
	Logger      zerolog.Logger
}

// Publisher tails the journal and publishes socket events; see the package doc.
type Publisher struct {
	cfg Config
	log zerolog.Logger

	// owned by the loop goroutine
	pos    int64
	quotes *quoteCache

	cancel context.CancelFunc
	done   chan struct{}

	mu        sync.Mutex // guards published
	published int64
}

// New validates cfg and returns a Publisher; Start runs it.
func New(cfg Config) (*Publisher, error) {
	if cfg.Source == nil || cfg.Hub == nil || cfg.Backlog == nil || cfg.Queries == nil {
		return nil, errors.New("realtime: Source, Hub, Backlog and Queries are required")
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 500
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 250 * time.Millisecond
	}
	if cfg.WaitTimeout <= 0 {
		cfg.WaitTimeout = 5 * time.Second
	}
	return &Publisher{cfg: cfg, log: cfg.Logger.With().Str("component", "realtime").Logger(),
		pos: cfg.Start, quotes: newQuoteCache(20_000)}, nil
}

// Start runs the publishing loop until Close.
func (p *Publisher) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel, p.done = cancel, make(chan struct{})
	goroutine.Go(func() { p.loop(ctx) })
}

// Close stops the loop and waits for it.
func (p *Publisher) Close() {
	if p.cancel == nil {
		return
	}
	p.cancel()
	<-p.done
}

// Position is the last journal position published.
func (p *Publisher) Position() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.published
}

func (p *Publisher) loop(ctx context.Context) {
	defer close(p.done)
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		notify := p.cfg.Source.Notify()
		n, err := p.step(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			p.log.Error().Err(err).Int64("position", p.pos).Dur("retry_in", backoff).Msg("publish")
			sleep(ctx, backoff)
			backoff = min(2*backoff, 10*time.Second)
			continue
		}
		backoff = 100 * time.Millisecond
		if n > 0 {
			continue
		}
		t := time.NewTimer(p.cfg.Poll)
		select {
		case <-ctx.Done():
		case <-notify:
		case <-t.C:
		}
		t.Stop()
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// step publishes one batch and returns how many events it read.
func (p *Publisher) step(ctx context.Context) (int, error) {
	evs, err := p.cfg.Source.ReadAll(ctx, p.pos, p.cfg.Batch)
	if err != nil || len(evs) == 0 {
		return 0, err
	}
	if p.cfg.Waiter != nil {
		first := evs[0].Position
		wctx, cancel := context.WithTimeout(ctx, p.cfg.WaitTimeout)
		err := p.cfg.Waiter.WaitFor(wctx, first)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			p.log.Warn().Err(err).Int64("position", first).Msg("read models behind: publishing what they hold")
		} else if applied := p.cfg.Waiter.Applied(); applied < evs[len(evs)-1].Position {
			// The read models have applied the batch's head (a projection's batch
			// ended inside it): publish that now; the rest comes with the next step.
			evs = evs[:sort.Search(len(evs), func(i int) bool { return evs[i].Position > applied })]
		}
	}
	last := evs[len(evs)-1].Position
	tickets := newTicketCache(p.cfg.Queries)
	tickets.prefetch(ctx, evs)
	messages := newMessageCache(ctx, p.cfg.Queries, evs, p.log)
	for _, ev := range evs {
		if err := p.publish(ctx, ev, tickets, messages); err != nil {
			// One event that cannot be published must not stop the others: clients
			// that miss it resync when they notice.
			p.log.Error().Err(err).Int64("position", ev.Position).Str("type", ev.Type).Str("stream", ev.StreamID).Msg("publish event")
		}
	}
	p.pos = last
	p.cfg.Backlog.Advance(last)
	p.mu.Lock()
	p.published = last
	p.mu.Unlock()
	return len(evs), nil
}

// publish maps one journal event to at most one socket event (which may carry a
// lead frame: see socket.Event.Lead).
func (p *Publisher) publish(ctx context.Context, ev engine.RecordedEvent, tickets *ticketCache, messages *messageCache) error {
	kind, _, _ := strings.Cut(ev.StreamID, "/")
	var out *socket.Event
	var err error
	switch kind {
	case "ticket":
		out, err = p.ticketEvent(ctx, ev, tickets, messages)
	case "connection":
		out, err = connectionEvent(ev)
	case "chat":
		out, err = p.chatEvent(ctx, ev)
	case "realtime":
		out, err = noticeEvent(ev)
	default:
		return nil
	}
	if err != nil || out == nil {
		return err
	}
	out.Tenant, out.Seq = ev.CompanyID, ev.Position
	if _, err := p.cfg.Hub.Publish(*out); err != nil {
		return fmt.Errorf("hub: %w", err)
	}
	return nil
}
