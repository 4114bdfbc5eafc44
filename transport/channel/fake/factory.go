package fake

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"atende/engine"
)

// Factory hands out one fake per connection and remembers it. It implements
// engine.ChannelFactory for every channel name.
type Factory struct {
	// static after construction
	defaults Options

	mu      sync.Mutex // guards the fields below
	opts    map[engine.ID]Options
	chans   map[engine.ID]*Channel
	changed chan struct{} // closed and replaced when a fake is created
}

var _ engine.ChannelFactory = (*Factory)(nil)

// NewFactory builds a Factory whose fakes use defaults unless Set says otherwise.
func NewFactory(defaults Options) *Factory {
	return &Factory{
		defaults: defaults,
		opts:     make(map[engine.ID]Options),
		chans:    make(map[engine.ID]*Channel),
		changed:  make(chan struct{}),
	}
}

// Set gives connection id its own options. It only affects a fake not yet created.
func (f *Factory) Set(id engine.ID, opts Options) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opts[id] = opts
}

// NewChannel returns the fake of conn.ID, creating it on first use.
func (f *Factory) NewChannel(conn engine.Connection) (engine.Channel, error) {
	if conn.ID <= 0 {
		return nil, fmt.Errorf("fake factory: connection without id")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.chans[conn.ID]; ok {
		return c, nil
	}
	opts, ok := f.opts[conn.ID]
	if !ok {
		opts = f.defaults
	}
	c := New(opts)
	f.chans[conn.ID] = c
	close(f.changed)
	f.changed = make(chan struct{})
	return c, nil
}

// Get is the fake of connection id, or nil if none was created yet.
func (f *Factory) Get(id engine.ID) *Channel {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.chans[id]
}

// Wait blocks until the fake of connection id exists and is started, and returns it.
func (f *Factory) Wait(ctx context.Context, id engine.ID) (*Channel, error) {
	for {
		f.mu.Lock()
		c, changed := f.chans[id], f.changed
		f.mu.Unlock()
		if c != nil {
			if err := c.WaitStarted(ctx); err != nil {
				return nil, fmt.Errorf("fake factory: connection %d: %w", id, err)
			}
			return c, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("fake factory: no channel for connection %d: %w", id, ctx.Err())
		}
	}
}

// Connections lists the ids of the connections that have a fake, in order.
func (f *Factory) Connections() []engine.ID {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := make([]engine.ID, 0, len(f.chans))
	for id := range f.chans {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
