package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
)

// TestNodeDefaults: a node built without settings (as cmd/atende builds it) looks for
// due jobs every second, River's default, in queues without an interval of their own
// (a timer falling due notifies nobody, so the poll interval bounds a quiet queue's
// lateness; the schedules' queue has its own); a test's short interval is
// kept with the cooldown following it (River rejects a poll shorter than the
// cooldown); every kind gets its queue with at least one worker; an insert-only
// client works no queue.
func TestNodeDefaults(t *testing.T) {
	add := func(*river.Workers) error { return nil }
	rc, err := riverConfig(Config{Kinds: []Kinds{{Queue: "schedules", Workers: 200, Register: add}, {Queue: "dashboard", Register: add}}})
	if err != nil {
		t.Fatal(err)
	}
	if rc.FetchPollInterval != DefaultPollInterval || DefaultPollInterval > time.Second {
		t.Errorf("FetchPollInterval %s: a due job can wait that long, want %s (≤ 1 s)", rc.FetchPollInterval, DefaultPollInterval)
	}
	if rc.JobTimeout >= 0 {
		t.Errorf("JobTimeout %s: each worker bounds its own run", rc.JobTimeout)
	}
	if rc.Queues["schedules"].MaxWorkers != 200 || rc.Queues["dashboard"].MaxWorkers != 1 || rc.Workers == nil {
		t.Errorf("queues %+v", rc.Queues)
	}
	short, err := riverConfig(Config{PollInterval: 20 * time.Millisecond, Kinds: []Kinds{{Queue: "q", Register: add}}})
	if err != nil || short.FetchPollInterval != 20*time.Millisecond || short.FetchCooldown != 20*time.Millisecond {
		t.Errorf("short config: %v, poll %s cooldown %s", err, short.FetchPollInterval, short.FetchCooldown)
	}
	io, err := riverConfig(Config{})
	if err != nil || len(io.Queues) != 0 || io.Workers != nil {
		t.Errorf("an insert-only client: %v, queues %v", err, io.Queues)
	}
}

// TestKindsRefused: a kind without a queue or a worker, and a queue registered twice,
// are refused.
func TestKindsRefused(t *testing.T) {
	add := func(*river.Workers) error { return nil }
	for name, kinds := range map[string][]Kinds{
		"no queue":    {{Register: add}},
		"no worker":   {{Queue: "q"}},
		"queue twice": {{Queue: "q", Register: add}, {Queue: "q", Register: add}},
	} {
		if _, err := riverConfig(Config{Kinds: kinds}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestQueuePollsOnItsOwn: a kind with its own poll interval (the schedules') polls its
// queue that often, with a cooldown River accepts, while the other queues keep the
// node's interval.
func TestQueuePollsOnItsOwn(t *testing.T) {
	add := func(*river.Workers) error { return nil }
	rc, err := riverConfig(Config{Kinds: []Kinds{
		{Queue: "schedules", Register: add, PollInterval: 50 * time.Millisecond},
		{Queue: "dashboard", Register: add},
	}})
	if err != nil {
		t.Fatal(err)
	}
	q := rc.Queues["schedules"]
	if q.FetchPollInterval != 50*time.Millisecond || q.FetchCooldown <= 0 || q.FetchCooldown > q.FetchPollInterval {
		t.Errorf("schedules queue: poll %s cooldown %s", q.FetchPollInterval, q.FetchCooldown)
	}
	if d := rc.Queues["dashboard"]; d.FetchPollInterval != 0 || d.FetchCooldown != 0 {
		t.Errorf("dashboard queue: poll %s cooldown %s, want the node's", d.FetchPollInterval, d.FetchCooldown)
	}
	// A pool that never connects: NewClient validates without a round trip.
	pool, err := pgxpool.New(context.Background(), "postgres://127.0.0.1:1/none")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := river.NewClient(riverpgxv5.New(pool), rc); err != nil {
		t.Errorf("River refuses the configuration: %v", err)
	}
}
