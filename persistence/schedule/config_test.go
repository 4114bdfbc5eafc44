package schedule

import (
	"testing"
	"time"

	"github.com/riverqueue/river"
)

// TestNodeDefaultsReachTheGoal: a node started without TimersConfig (as cmd/atende
// starts it) claims enough due jobs per fetch and looks for them often enough for
// B9's goal. River claims at most the free workers per fetch and fetches at most every
// FetchCooldown, so workers / cooldown bounds the fires per second; a timer falling
// due notifies nobody, so the poll interval bounds the lateness of a quiet queue.
func TestNodeDefaultsReachTheGoal(t *testing.T) {
	rc := riverConfig(TimersConfig{}, nil)
	q, ok := rc.Queues[queueName]
	if !ok {
		t.Fatalf("no %q queue in %v", queueName, rc.Queues)
	}
	cooldown := rc.FetchCooldown
	if cooldown == 0 {
		cooldown = 100 * time.Millisecond // River's default
	}
	if perSecond := float64(q.MaxWorkers) / cooldown.Seconds(); perSecond < 1500 {
		t.Errorf("%d workers every %s claim at most %.0f jobs/s, want room above 1,000/s", q.MaxWorkers, cooldown, perSecond)
	}
	if rc.FetchPollInterval <= 0 || rc.FetchPollInterval > 250*time.Millisecond {
		t.Errorf("FetchPollInterval %s: a due job can wait that long, want ≤ 250 ms", rc.FetchPollInterval)
	}
	// A test's short interval is kept, and the cooldown follows it below River's
	// default so the shorter interval is not rejected.
	short := riverConfig(TimersConfig{PollInterval: 20 * time.Millisecond, Workers: 3}, nil)
	if short.FetchPollInterval != 20*time.Millisecond || short.FetchCooldown != 20*time.Millisecond ||
		short.Queues[queueName].MaxWorkers != 3 {
		t.Errorf("short config: poll %s cooldown %s workers %d", short.FetchPollInterval, short.FetchCooldown,
			short.Queues[queueName].MaxWorkers)
	}
	if io := riverConfig(TimersConfig{InsertOnly: true}, nil); len(io.Queues) != 0 {
		t.Errorf("an insert-only node works queues %v", io.Queues)
	}
}

// TestOtherJobKinds: each kind of TimersConfig.Jobs gets its own queue with its
// workers (at least one) beside the schedules', and a kind without a queue of its
// own or without a worker is refused.
func TestOtherJobKinds(t *testing.T) {
	add := func(*river.Workers) error { return nil }
	rc := riverConfig(TimersConfig{Jobs: []Job{{Queue: "dashboard", Workers: 0, Add: add}, {Queue: "campaigns", Workers: 4, Add: add}}}, nil)
	if rc.Queues["dashboard"].MaxWorkers != 1 || rc.Queues["campaigns"].MaxWorkers != 4 || rc.Queues[queueName].MaxWorkers != defaultWorkers {
		t.Errorf("queues %+v", rc.Queues)
	}
	if rc := riverConfig(TimersConfig{InsertOnly: true, Jobs: []Job{{Queue: "dashboard", Add: add}}}, nil); len(rc.Queues) != 0 {
		t.Errorf("an insert-only node works queues %+v", rc.Queues)
	}
	for _, j := range []Job{{Queue: "", Add: add}, {Queue: queueName, Add: add}, {Queue: "dashboard"}} {
		if _, err := newQueue(nil, TimersConfig{Jobs: []Job{j}}, &fireWorker{}); err == nil {
			t.Errorf("job %+v accepted", j)
		}
	}
}
