package schedule

import (
	"testing"
	"time"
)

// TestNodeDefaultsReachTheGoal: the fire kind as cmd/atende registers it (no Workers
// set) claims enough due jobs per fetch for B9's goal. River claims at most the free
// workers per fetch and fetches at most every FetchCooldown (100 ms by default), so
// workers / cooldown bounds the fires per second. (The poll interval that bounds a
// quiet queue's lateness is package jobs' default: TestNodeDefaults there.)
func TestNodeDefaultsReachTheGoal(t *testing.T) {
	k := (&Scheduler{}).Kinds()
	if k.Queue != queueName || k.Register == nil {
		t.Fatalf("kinds %+v", k)
	}
	cooldown := 100 * time.Millisecond
	if perSecond := float64(k.Workers) / cooldown.Seconds(); perSecond < 1500 {
		t.Errorf("%d workers every %s claim at most %.0f jobs/s, want room above 1,000/s", k.Workers, cooldown, perSecond)
	}
	if k := (&Scheduler{cfg: Config{Workers: 3}}).Kinds(); k.Workers != 3 {
		t.Errorf("Config.Workers 3: %d workers", k.Workers)
	}
}
