package redisstate

import (
	"context"
	"sync"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/goroutine"
)

// memorySubQueue bounds the user ids waiting for one slow subscriber; beyond it new
// ones are dropped (and logged), as a Redis subscriber that falls behind loses them.
const memorySubQueue = 1024

// MemoryRevocations implements engine.Revocations in process, for a single node:
// Publish hands the id to every subscription's queue and returns; each subscription's
// goroutine calls its fn in publish order.
type MemoryRevocations struct {
	log zerolog.Logger // static after NewMemoryRevocations

	routines goroutine.Group

	mu     sync.Mutex              // guards subs, closed
	subs   map[*memorySub]struct{} // live subscriptions
	closed bool
}

// memorySub is one subscription: its queue and the goroutine draining it.
type memorySub struct {
	queue chan Revocation // closed by cancel or Close
	done  chan struct{}   // closed when the goroutine returned
}

var _ SessionRevocations = (*MemoryRevocations)(nil)

// NewMemoryRevocations returns a broadcaster with no subscribers; log receives
// warnings about dropped ids.
func NewMemoryRevocations(log zerolog.Logger) *MemoryRevocations {
	return &MemoryRevocations{log: log.With().Str("component", "revocations").Logger(), subs: map[*memorySub]struct{}{}}
}

// Publish implements engine.Revocations.
func (m *MemoryRevocations) Publish(_ context.Context, userID engine.ID) error {
	m.publish(Revocation{UserID: userID})
	return nil
}

// EndSession implements SessionRevocations.
func (m *MemoryRevocations) EndSession(_ context.Context, userID engine.ID, session string) error {
	if err := checkSession(session); err != nil {
		return err
	}
	m.publish(Revocation{UserID: userID, Session: session})
	return nil
}

func (m *MemoryRevocations) publish(r Revocation) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for s := range m.subs {
		select {
		case s.queue <- r:
		default:
			m.log.Warn().Int64("user_id", r.UserID).Msg("revocation subscriber is behind; dropping")
		}
	}
}

// Subscribe implements engine.Revocations. Do not call the returned cancel from fn.
func (m *MemoryRevocations) Subscribe(ctx context.Context, fn func(userID engine.ID)) (func(), error) {
	return m.SubscribeAll(ctx, onlyUsers(fn))
}

// SubscribeAll implements SessionRevocations. Do not call the returned cancel from fn.
func (m *MemoryRevocations) SubscribeAll(_ context.Context, fn func(Revocation)) (func(), error) {
	s := &memorySub{queue: make(chan Revocation, memorySubQueue), done: make(chan struct{})}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	if !m.routines.Go(func() {
		defer close(s.done)
		for r := range s.queue {
			fn(r)
		}
	}) {
		return nil, ErrClosed
	}
	m.subs[s] = struct{}{}
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			if _, ok := m.subs[s]; ok {
				delete(m.subs, s)
				close(s.queue)
			}
			m.mu.Unlock()
			<-s.done
		})
	}, nil
}

// Close ends every subscription (queued ids are still delivered) and waits for their
// goroutines.
func (m *MemoryRevocations) Close() {
	m.mu.Lock()
	m.closed = true
	for s := range m.subs {
		close(s.queue)
	}
	m.subs = map[*memorySub]struct{}{}
	m.mu.Unlock()
	m.routines.Close()
}
