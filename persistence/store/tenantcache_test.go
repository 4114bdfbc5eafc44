package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"atende/engine"
)

// countingStores are in-memory bot, queue and setting stores that count their reads.
// A read may be held at gate (when set) until the test lets it go.
type countingStores struct {
	mu       sync.Mutex
	reads    map[string]int
	levels   []engine.BotLevel
	queues   []engine.Queue
	settings map[string]string
	fail     error
	entered  chan struct{} // told when a read is at the gate
	gate     chan struct{} // a read waits here when set
}

func newCountingStores() *countingStores {
	return &countingStores{reads: map[string]int{},
		levels:   []engine.BotLevel{{ID: 1, CommandBot: "1", DescriptionBot: "Vendas"}},
		queues:   []engine.Queue{{ID: 10, Name: "Vendas"}, {ID: 11, Name: "Suporte"}},
		settings: map[string]string{engine.SettingTimeZone: "America/Sao_Paulo"}}
}

// read counts a read of what and returns the store's failure, after the gate.
func (s *countingStores) read(what string) error {
	s.mu.Lock()
	s.reads[what]++
	entered, gate, fail := s.entered, s.gate, s.fail
	s.mu.Unlock()
	if gate != nil {
		entered <- struct{}{}
		<-gate
	}
	return fail
}

func (s *countingStores) count(what string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads[what]
}

func (s *countingStores) List(ctx context.Context, companyID engine.ID) ([]engine.BotLevel, error) {
	if err := s.read("bots"); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]engine.BotLevel(nil), s.levels...), nil
}

func (s *countingStores) Get(ctx context.Context, companyID, id engine.ID) (engine.BotLevel, error) {
	return engine.BotLevel{}, engine.E(engine.ErrNoBotFound)
}

func (s *countingStores) Create(ctx context.Context, companyID engine.ID, in engine.BotLevelInput) (engine.BotLevel, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := engine.BotLevel{ID: engine.ID(len(s.levels) + 1), CommandBot: in.CommandBot}
	s.levels = append(s.levels, l)
	return l, nil
}

func (s *countingStores) Update(ctx context.Context, companyID, id engine.ID, in engine.BotLevelInput) (engine.BotLevel, error) {
	return engine.BotLevel{}, nil
}

func (s *countingStores) Delete(ctx context.Context, companyID, id engine.ID) error { return nil }

func (s *countingStores) Reorder(ctx context.Context, companyID, parentID engine.ID, ids []engine.ID) ([]engine.BotLevel, error) {
	return nil, nil
}

// queueStore and settingStore are countingStores seen as the other two stores.
type queueStore struct{ *countingStores }

func (q queueStore) List(ctx context.Context, companyID engine.ID) ([]engine.Queue, error) {
	if err := q.read("queues"); err != nil {
		return nil, err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]engine.Queue(nil), q.queues...), nil
}

func (q queueStore) Get(ctx context.Context, companyID, id engine.ID) (engine.Queue, error) {
	q.read("queue")
	return engine.Queue{}, errors.New("the cached view reads the list")
}

func (q queueStore) Create(ctx context.Context, companyID engine.ID, in engine.QueueInput) (engine.Queue, error) {
	return engine.Queue{}, nil
}

func (q queueStore) Update(ctx context.Context, companyID, id engine.ID, in engine.QueueInput) (engine.Queue, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := range q.queues {
		if q.queues[i].ID == id {
			q.queues[i].Name = in.Name
			return q.queues[i], nil
		}
	}
	return engine.Queue{}, engine.E(engine.ErrNoQueueFound)
}

func (q queueStore) Delete(ctx context.Context, companyID, id engine.ID) error { return nil }

type settingStore struct{ *countingStores }

func (s settingStore) Get(ctx context.Context, companyID engine.ID, key string) (engine.Setting, error) {
	if err := s.read("setting " + key); err != nil {
		return engine.Setting{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return engine.Setting{Key: key, Value: s.settings[key]}, nil
}

func (s settingStore) List(ctx context.Context, companyID engine.ID) ([]engine.Setting, error) {
	return nil, nil
}

func (s settingStore) Set(ctx context.Context, companyID engine.ID, key, value string) (engine.Setting, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settings[key] = value
	return engine.Setting{Key: key, Value: value}, nil
}

func (s settingStore) EnsureDefaults(ctx context.Context, companyID engine.ID) error { return nil }

// cacheRig is a TenantCache over countingStores with a clock the test moves.
type cacheRig struct {
	s   *countingStores
	c   *TenantCache
	mu  sync.Mutex
	now time.Time
}

func newCacheRig() *cacheRig {
	r := &cacheRig{s: newCountingStores(), now: time.Unix(1_800_000_000, 0)}
	r.c = NewTenantCache(r.s, queueStore{r.s}, settingStore{r.s}, time.Second, func() time.Time {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.now
	})
	return r
}

func (r *cacheRig) advance(d time.Duration) {
	r.mu.Lock()
	r.now = r.now.Add(d)
	r.mu.Unlock()
}

func TestTenantCacheKeepsReadsForItsTTL(t *testing.T) {
	r := newCacheRig()
	ctx := context.Background()
	bots := r.c.CachedBots()
	for range 3 {
		levels, err := bots.List(ctx, 1)
		if err != nil || len(levels) != 1 || levels[0].DescriptionBot != "Vendas" {
			t.Fatalf("levels %+v, %v", levels, err)
		}
	}
	if n := r.s.count("bots"); n != 1 {
		t.Fatalf("%d reads of the levels within the ttl, want 1", n)
	}
	if _, err := bots.List(ctx, 2); err != nil || r.s.count("bots") != 2 {
		t.Fatalf("another tenant: %d reads, %v; want its own read", r.s.count("bots"), err)
	}
	r.advance(999 * time.Millisecond)
	bots.List(ctx, 1)
	if n := r.s.count("bots"); n != 2 {
		t.Fatalf("%d reads just before the ttl, want 2", n)
	}
	r.advance(time.Millisecond)
	bots.List(ctx, 1)
	if n := r.s.count("bots"); n != 3 {
		t.Fatalf("%d reads at the ttl, want 3", n)
	}

	// The plain view never caches.
	plain := r.c.Bots()
	plain.List(ctx, 1)
	plain.List(ctx, 1)
	if n := r.s.count("bots"); n != 5 {
		t.Fatalf("%d reads after two plain lists, want 5", n)
	}

	// A caller changing what it was given changes nothing cached.
	levels, _ := bots.List(ctx, 1)
	levels[0].DescriptionBot = "mudado"
	if again, _ := bots.List(ctx, 1); again[0].DescriptionBot != "Vendas" {
		t.Fatalf("the cache kept a caller's change: %+v", again)
	}
}

func TestTenantCacheForgetsOnWrite(t *testing.T) {
	r := newCacheRig()
	ctx := context.Background()

	r.c.CachedBots().List(ctx, 1)
	if _, err := r.c.Bots().Create(ctx, 1, engine.BotLevelInput{CommandBot: "2"}); err != nil {
		t.Fatal(err)
	}
	if levels, _ := r.c.CachedBots().List(ctx, 1); len(levels) != 2 {
		t.Fatalf("%d levels right after a create through the plain view, want 2", len(levels))
	}

	queues := r.c.CachedQueues()
	if q, err := queues.Get(ctx, 1, 11); err != nil || q.Name != "Suporte" {
		t.Fatalf("queue 11: %+v, %v", q, err)
	}
	if _, err := queues.Get(ctx, 1, 99); engine.CodeOf(err) != engine.ErrNoQueueFound {
		t.Fatalf("queue 99: %v, want %s", err, engine.ErrNoQueueFound)
	}
	if r.s.count("queues") != 1 || r.s.count("queue") != 0 {
		t.Fatalf("queue reads: list %d, get %d; want one list", r.s.count("queues"), r.s.count("queue"))
	}
	if _, err := r.c.Queues().Update(ctx, 1, 11, engine.QueueInput{Name: "Pós-venda"}); err != nil {
		t.Fatal(err)
	}
	if q, _ := queues.Get(ctx, 1, 11); q.Name != "Pós-venda" {
		t.Fatalf("queue 11 after the update: %+v", q)
	}

	settings := r.c.CachedSettings()
	zone := func() string {
		st, err := settings.Get(ctx, 1, engine.SettingTimeZone)
		if err != nil {
			t.Fatal(err)
		}
		return st.Value
	}
	if z := zone(); z != "America/Sao_Paulo" {
		t.Fatalf("zone %q", z)
	}
	if _, err := r.c.Settings().Set(ctx, 1, engine.SettingTimeZone, "America/Manaus"); err != nil {
		t.Fatal(err)
	}
	if z := zone(); z != "America/Manaus" {
		t.Fatalf("zone %q after the write, want America/Manaus", z)
	}
	zone()
	if n := r.s.count("setting " + engine.SettingTimeZone); n != 2 {
		t.Fatalf("%d reads of the zone, want 2 (one before the write, one after)", n)
	}
}

func TestTenantCacheDoesNotKeepFailures(t *testing.T) {
	r := newCacheRig()
	ctx := context.Background()
	r.s.fail = errors.New("database down")
	if _, err := r.c.CachedBots().List(ctx, 1); err == nil {
		t.Fatal("a failed read answered no error")
	}
	r.s.fail = nil
	if levels, err := r.c.CachedBots().List(ctx, 1); err != nil || len(levels) != 1 {
		t.Fatalf("after the failure: %+v, %v", levels, err)
	}
	if n := r.s.count("bots"); n != 2 {
		t.Fatalf("%d reads, want 2: the failure was not kept", n)
	}
}

// A read that began before a write and ended after it is not kept: the next read
// goes to the store again.
func TestTenantCacheDropsAReadThatRacedAWrite(t *testing.T) {
	r := newCacheRig()
	ctx := context.Background()
	gate := make(chan struct{})
	r.s.entered, r.s.gate = make(chan struct{}), gate
	done := make(chan []engine.BotLevel)
	go func() {
		levels, _ := r.c.CachedBots().List(ctx, 1)
		done <- levels
	}()
	r.s.mu.Lock()
	entered := r.s.entered
	r.s.mu.Unlock()
	<-entered // the read is in the store, before the write
	r.s.mu.Lock()
	r.s.entered, r.s.gate = nil, nil
	r.s.mu.Unlock()
	if _, err := r.c.Bots().Create(ctx, 1, engine.BotLevelInput{CommandBot: "2"}); err != nil {
		t.Fatal(err)
	}
	close(gate)
	<-done
	if levels, _ := r.c.CachedBots().List(ctx, 1); len(levels) != 2 {
		t.Fatalf("%d levels after the write, want 2: the raced read was kept", len(levels))
	}
	if n := r.s.count("bots"); n != 2 {
		t.Fatalf("%d reads, want 2", n)
	}
}
