package lease

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"atende/engine"
	"atende/goroutine"
)

// Channels wraps a ChannelFactory so that each connection's channel runs only while
// this node holds the connection's lease (key: the connection id):
//
//   - Start waits for the lease before starting the channel. Another node holding it
//     (a split, or the old activation still stopping) makes it retry every Retry,
//     for at most Wait (0: until Stop), then fail wrapping engine.ErrChannelTemporary.
//   - A lease lost while running (the database session broke) stops the channel at
//     once; it starts again, with the same sink, once the lease is back.
//   - Stop stops the channel and releases the lease.
//   - Send fails with engine.ErrChannelTemporary while the channel does not run, so
//     the connection actor retries it.
type Channels struct {
	Next   engine.ChannelFactory
	Locker Locker
	// Wait bounds how long Start waits for a lease held elsewhere; 0 waits until
	// Stop. The connection actor does not retry a failed Start by itself, so
	// waiting is what brings the channel up once the other holder lets go.
	Wait time.Duration
	// Retry is the pause between attempts; 250 ms when 0.
	Retry  time.Duration
	Logger zerolog.Logger
	// Metrics, when set, count conflicts and lost leases.
	Metrics *Metrics
}

// Metrics counts lease events of channels.
type Metrics struct {
	Conflicts prometheus.Counter // a Start found the lease held elsewhere
	Lost      prometheus.Counter // a running channel lost its lease
}

// NewMetrics returns the counters atende_channel_lease_conflicts_total and
// atende_channel_leases_lost_total.
func NewMetrics() *Metrics {
	return &Metrics{
		Conflicts: prometheus.NewCounter(prometheus.CounterOpts{Name: "atende_channel_lease_conflicts_total",
			Help: "Channel starts that found the connection's lease held by another node (and waited for it)."}),
		Lost: prometheus.NewCounter(prometheus.CounterOpts{Name: "atende_channel_leases_lost_total",
			Help: "Running channels stopped because their lease was lost (the node's lease session broke)."}),
	}
}

// Collectors lists the counters for a registry.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.Conflicts, m.Lost}
}

// NewChannel implements engine.ChannelFactory.
func (f *Channels) NewChannel(conn engine.Connection) (engine.Channel, error) {
	ch, err := f.Next.NewChannel(conn)
	if err != nil {
		return nil, err
	}
	return &channel{f: f, id: conn.ID, next: ch,
		log: f.Logger.With().Str("component", "lease").Int64("conn_id", conn.ID).Logger()}, nil
}

// errNotRunning is what Send answers while the channel waits for its lease.
var errNotRunning = fmt.Errorf("channel waits for its lease: %w", engine.ErrChannelTemporary)

type channel struct {
	f    *Channels
	id   engine.ID
	next engine.Channel
	log  zerolog.Logger

	op sync.Mutex // serialises starting and stopping next

	mu      sync.Mutex // guards the fields below
	stop    chan struct{}
	done    chan struct{} // closed when the watcher ends
	lease   *Lease
	running bool
	tried   bool // next.Start was called since the last Stop
}

func (c *channel) retry() time.Duration {
	if c.f.Retry > 0 {
		return c.f.Retry
	}
	return 250 * time.Millisecond
}

// acquire tries for the lease until it gets it, stop closes, ctx ends or wait runs out.
func (c *channel) acquire(ctx context.Context, stop <-chan struct{}, wait time.Duration) (*Lease, error) {
	var deadline <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		deadline = t.C
	}
	counted := false
	for {
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		l, err := c.f.Locker.TryAcquire(actx, c.id)
		cancel()
		if err == nil {
			if counted {
				c.log.Info().Msg("connection lease acquired after waiting")
			}
			return l, nil
		}
		if errors.Is(err, ErrHeld) {
			if !counted {
				counted = true
				if c.f.Metrics != nil {
					c.f.Metrics.Conflicts.Inc()
				}
				c.log.Warn().Msg("connection lease held by another node: waiting before starting the channel")
			}
		} else {
			c.log.Warn().Err(err).Msg("connection lease not acquired")
		}
		t := time.NewTimer(c.retry())
		select {
		case <-t.C:
			continue
		case <-stop:
			err = errors.New("stopped")
		case <-ctx.Done():
			err = ctx.Err()
		case <-deadline:
		}
		t.Stop()
		return nil, fmt.Errorf("connection %d: lease not acquired: %v: %w", c.id, err, engine.ErrChannelTemporary)
	}
}

func (c *channel) Start(ctx context.Context, sink engine.ChannelSink) error {
	stop, done := make(chan struct{}), make(chan struct{})
	c.mu.Lock()
	c.stop, c.done = stop, done
	c.mu.Unlock()
	l, err := c.acquire(ctx, stop, c.f.Wait)
	if err != nil {
		close(done)
		return err
	}
	c.op.Lock()
	if isClosed(stop) {
		c.op.Unlock()
		_ = l.Release(context.Background())
		close(done)
		return fmt.Errorf("connection %d: stopped while starting: %w", c.id, engine.ErrChannelTemporary)
	}
	c.mu.Lock()
	c.tried = true
	c.mu.Unlock()
	if err := c.next.Start(ctx, sink); err != nil {
		c.op.Unlock()
		_ = l.Release(context.Background())
		close(done)
		return err
	}
	c.mu.Lock()
	c.lease, c.running = l, true
	c.mu.Unlock()
	c.op.Unlock()
	goroutine.Go(func() { c.watch(l, sink, stop, done) })
	return nil
}

// watch stops the channel when its lease is lost, and starts it again once the
// lease is back, until Stop.
func (c *channel) watch(l *Lease, sink engine.ChannelSink, stop, done chan struct{}) {
	defer close(done)
	for {
		select {
		case <-stop:
			return
		case <-l.Lost():
		}
		c.op.Lock()
		if isClosed(stop) {
			c.op.Unlock()
			return
		}
		c.log.Error().Msg("connection lease lost: stopping the channel (another node may run it now)")
		if c.f.Metrics != nil {
			c.f.Metrics.Lost.Inc()
		}
		c.mu.Lock()
		c.lease, c.running = nil, false
		c.mu.Unlock()
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := c.next.Stop(sctx); err != nil {
			c.log.Warn().Err(err).Msg("stop channel after losing its lease")
		}
		cancel()
		c.op.Unlock()

		for {
			nl, err := c.acquire(context.Background(), stop, 0)
			if err != nil {
				return // stopped
			}
			c.op.Lock()
			if isClosed(stop) {
				c.op.Unlock()
				_ = nl.Release(context.Background())
				return
			}
			sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			err = c.next.Start(sctx, sink)
			cancel()
			if err != nil {
				c.op.Unlock()
				_ = nl.Release(context.Background())
				c.log.Warn().Err(err).Msg("channel did not start again after its lease came back")
				t := time.NewTimer(5 * time.Second)
				select {
				case <-stop:
					t.Stop()
					return
				case <-t.C:
				}
				continue
			}
			c.mu.Lock()
			c.lease, c.running = nl, true
			c.mu.Unlock()
			c.op.Unlock()
			c.log.Info().Msg("connection lease back: channel started again")
			l = nl
			break
		}
	}
}

func (c *channel) Send(ctx context.Context, m engine.OutboundMessage) (string, error) {
	c.mu.Lock()
	running := c.running
	c.mu.Unlock()
	if !running {
		return "", errNotRunning
	}
	return c.next.Send(ctx, m)
}

// End stops the channel and releases its lease like Stop, then ends the sessions
// that reach past this node (engine.ChannelEnder) when the channel has any.
func (c *channel) End(ctx context.Context) error {
	if err := c.Stop(ctx); err != nil {
		return err
	}
	if e, ok := c.next.(engine.ChannelEnder); ok {
		return e.End(ctx)
	}
	return nil
}

func (c *channel) Stop(ctx context.Context) error {
	c.mu.Lock()
	stop, done := c.stop, c.done
	if stop != nil && !isClosed(stop) {
		close(stop)
	}
	c.mu.Unlock()
	c.op.Lock()
	c.mu.Lock()
	l, tried := c.lease, c.tried
	c.lease, c.running, c.tried = nil, false, false
	c.mu.Unlock()
	var err error
	if tried {
		err = c.next.Stop(ctx)
	}
	if l != nil {
		// Released after the channel stopped: the next holder never overlaps it.
		if rerr := l.Release(ctx); rerr != nil {
			c.log.Warn().Err(rerr).Msg("release connection lease")
		}
	}
	c.op.Unlock()
	if done != nil {
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
	return err
}

// WipeCredentials passes DELETE /whatsappcreds through to channels that keep
// credentials; the others have nothing to wipe.
func (c *channel) WipeCredentials(ctx context.Context) error {
	if w, ok := c.next.(engine.CredentialWiper); ok {
		return w.WipeCredentials(ctx)
	}
	return nil
}

// ResendIsIdempotent passes engine.IdempotentSender through: the lease changes
// nothing about how the provider treats a re-send.
func (c *channel) ResendIsIdempotent() bool { return engine.ResendIsIdempotent(c.next) }

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
