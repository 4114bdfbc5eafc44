package store

import (
	"context"
	"sync"
	"time"

	"atende/engine"
)

// TenantCache keeps for a short while what the reception bot reads for every
// customer message: the tenant's bot levels, its queues and its settings (the time
// zone). Without it each message costs three to four queries that nearly always
// answer the same (B9's profiles: 13 % of a node's CPU at 300 messages/s).
//
// It hands out two views of each store. The plain views (Bots, Queues, Settings)
// read through to the store and, after every write, forget what is cached of the
// tenant: give them to everything that writes. The cached views (CachedBots,
// CachedQueues, CachedSettings) answer Bots.List, Queues.Get and List, and
// Settings.Get from memory for at most ttl: give them to the hot readers only.
//
// A write through this node's views is seen at once by its cached views. A write
// on another node, or by another process (an import), is seen here within ttl:
// that is the staleness an edit of the menu, a queue or the time zone may have
// across a cluster. A read that raced with a write is not kept (a generation per
// tenant), so a forgotten value never comes back.
type TenantCache struct {
	bots     engine.BotStore
	queues   engine.QueueStore
	settings engine.SettingStore
	ttl      time.Duration
	now      func() time.Time

	mu      sync.Mutex
	tenants map[engine.ID]*tenantEntry
}

// tenantEntry is what is cached of one tenant.
type tenantEntry struct {
	gen      uint64 // bumped by every forget
	levels   cached[[]engine.BotLevel]
	queues   cached[[]engine.Queue]
	settings map[string]*cached[engine.Setting]
}

// cached is a value read at at; the zero value is nothing.
type cached[T any] struct {
	v  T
	at time.Time
	ok bool
}

// DefaultTenantCacheTTL is how long a cached view keeps what it read.
const DefaultTenantCacheTTL = time.Second

// NewTenantCache caches reads of the three stores for ttl (DefaultTenantCacheTTL
// when ≤ 0); now is the clock (time.Now when nil).
func NewTenantCache(bots engine.BotStore, queues engine.QueueStore, settings engine.SettingStore, ttl time.Duration, now func() time.Time) *TenantCache {
	if ttl <= 0 {
		ttl = DefaultTenantCacheTTL
	}
	if now == nil {
		now = time.Now
	}
	return &TenantCache{bots: bots, queues: queues, settings: settings, ttl: ttl, now: now, tenants: map[engine.ID]*tenantEntry{}}
}

// Forget drops what is cached of companyID; reads in flight are not kept.
func (c *TenantCache) Forget(companyID engine.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.tenants[companyID]; e != nil {
		*e = tenantEntry{gen: e.gen + 1}
	}
}

// entry is companyID's entry, made on first use. Called with c.mu held.
func (c *TenantCache) entry(companyID engine.ID) *tenantEntry {
	e := c.tenants[companyID]
	if e == nil {
		e = &tenantEntry{}
		c.tenants[companyID] = e
	}
	return e
}

// through answers the cached value that slot picks out of companyID's entry while
// it is fresh, else reads it and keeps it unless the tenant was forgotten meanwhile.
func through[T any](c *TenantCache, companyID engine.ID, slot func(*tenantEntry) *cached[T], read func() (T, error)) (T, error) {
	c.mu.Lock()
	e := c.entry(companyID)
	if s := slot(e); s.ok && c.now().Sub(s.at) < c.ttl {
		v := s.v
		c.mu.Unlock()
		return v, nil
	}
	gen := e.gen
	c.mu.Unlock()
	at := c.now()
	v, err := read()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	if e.gen == gen {
		*slot(e) = cached[T]{v: v, at: at, ok: true}
	}
	c.mu.Unlock()
	return v, nil
}

// Bots is the bot store whose writes forget the tenant.
func (c *TenantCache) Bots() engine.BotStore { return cacheBots{c: c} }

// CachedBots is the bot store whose List answers from the cache.
func (c *TenantCache) CachedBots() engine.BotStore { return cacheBots{c: c, hot: true} }

// Queues is the queue store whose writes forget the tenant.
func (c *TenantCache) Queues() engine.QueueStore { return cacheQueues{c: c} }

// CachedQueues is the queue store whose List and Get answer from the cache.
func (c *TenantCache) CachedQueues() engine.QueueStore { return cacheQueues{c: c, hot: true} }

// Settings is the setting store whose writes forget the tenant.
func (c *TenantCache) Settings() engine.SettingStore { return cacheSettings{c: c} }

// CachedSettings is the setting store whose Get answers from the cache.
func (c *TenantCache) CachedSettings() engine.SettingStore { return cacheSettings{c: c, hot: true} }

type cacheBots struct {
	c   *TenantCache
	hot bool
}

// listThrough is a list read by a view: from the cache when the view is hot, as a
// copy (callers own what they are given, so none changes the cache).
func listThrough[T any](c *TenantCache, hot bool, companyID engine.ID, slot func(*tenantEntry) *cached[[]T], read func() ([]T, error)) ([]T, error) {
	if !hot {
		return read()
	}
	list, err := through(c, companyID, slot, read)
	return append([]T(nil), list...), err
}

func levelsSlot(e *tenantEntry) *cached[[]engine.BotLevel] { return &e.levels }
func queuesSlot(e *tenantEntry) *cached[[]engine.Queue]    { return &e.queues }

func (b cacheBots) List(ctx context.Context, companyID engine.ID) ([]engine.BotLevel, error) {
	return listThrough(b.c, b.hot, companyID, levelsSlot, func() ([]engine.BotLevel, error) { return b.c.bots.List(ctx, companyID) })
}

func (b cacheBots) Get(ctx context.Context, companyID, id engine.ID) (engine.BotLevel, error) {
	return b.c.bots.Get(ctx, companyID, id)
}

func (b cacheBots) Create(ctx context.Context, companyID engine.ID, in engine.BotLevelInput) (engine.BotLevel, error) {
	defer b.c.Forget(companyID)
	return b.c.bots.Create(ctx, companyID, in)
}

func (b cacheBots) Update(ctx context.Context, companyID, id engine.ID, in engine.BotLevelInput) (engine.BotLevel, error) {
	defer b.c.Forget(companyID)
	return b.c.bots.Update(ctx, companyID, id, in)
}

func (b cacheBots) Delete(ctx context.Context, companyID, id engine.ID) error {
	defer b.c.Forget(companyID)
	return b.c.bots.Delete(ctx, companyID, id)
}

func (b cacheBots) Reorder(ctx context.Context, companyID, parentID engine.ID, ids []engine.ID) ([]engine.BotLevel, error) {
	defer b.c.Forget(companyID)
	return b.c.bots.Reorder(ctx, companyID, parentID, ids)
}

type cacheQueues struct {
	c   *TenantCache
	hot bool
}

func (q cacheQueues) List(ctx context.Context, companyID engine.ID) ([]engine.Queue, error) {
	return listThrough(q.c, q.hot, companyID, queuesSlot, func() ([]engine.Queue, error) { return q.c.queues.List(ctx, companyID) })
}

// Get answers from the tenant's cached list (a tenant has a handful of queues);
// ErrNoQueueFound when id is not in it.
func (q cacheQueues) Get(ctx context.Context, companyID, id engine.ID) (engine.Queue, error) {
	if !q.hot {
		return q.c.queues.Get(ctx, companyID, id)
	}
	queues, err := through(q.c, companyID, queuesSlot, func() ([]engine.Queue, error) { return q.c.queues.List(ctx, companyID) })
	if err != nil {
		return engine.Queue{}, err
	}
	for _, qu := range queues {
		if qu.ID == id {
			return qu, nil
		}
	}
	return engine.Queue{}, engine.E(engine.ErrNoQueueFound)
}

func (q cacheQueues) Create(ctx context.Context, companyID engine.ID, in engine.QueueInput) (engine.Queue, error) {
	defer q.c.Forget(companyID)
	return q.c.queues.Create(ctx, companyID, in)
}

func (q cacheQueues) Update(ctx context.Context, companyID, id engine.ID, in engine.QueueInput) (engine.Queue, error) {
	defer q.c.Forget(companyID)
	return q.c.queues.Update(ctx, companyID, id, in)
}

func (q cacheQueues) Delete(ctx context.Context, companyID, id engine.ID) error {
	defer q.c.Forget(companyID)
	return q.c.queues.Delete(ctx, companyID, id)
}

type cacheSettings struct {
	c   *TenantCache
	hot bool
}

func (s cacheSettings) Get(ctx context.Context, companyID engine.ID, key string) (engine.Setting, error) {
	read := func() (engine.Setting, error) { return s.c.settings.Get(ctx, companyID, key) }
	if !s.hot {
		return read()
	}
	return through(s.c, companyID, func(e *tenantEntry) *cached[engine.Setting] {
		if e.settings == nil {
			e.settings = map[string]*cached[engine.Setting]{}
		}
		slot := e.settings[key]
		if slot == nil {
			slot = &cached[engine.Setting]{}
			e.settings[key] = slot
		}
		return slot
	}, read)
}

func (s cacheSettings) List(ctx context.Context, companyID engine.ID) ([]engine.Setting, error) {
	return s.c.settings.List(ctx, companyID)
}

func (s cacheSettings) Set(ctx context.Context, companyID engine.ID, key, value string) (engine.Setting, error) {
	defer s.c.Forget(companyID)
	return s.c.settings.Set(ctx, companyID, key, value)
}

func (s cacheSettings) EnsureDefaults(ctx context.Context, companyID engine.ID) error {
	defer s.c.Forget(companyID)
	return s.c.settings.EnsureDefaults(ctx, companyID)
}
