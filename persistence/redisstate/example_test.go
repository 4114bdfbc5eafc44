package redisstate_test

import (
	"context"
	"fmt"
	"time"

	"atende/engine"
	"atende/persistence/redisstate"
)

// A single node keeps presence and web-hook de-duplication in process; a cluster takes
// the same interfaces from redisstate.Open(ctx, os.Getenv("REDIS_URL")).
func ExampleMemoryPresence() {
	ctx := context.Background()
	var presence engine.Presence = redisstate.NewMemoryPresence(nil)
	// Node "n1" holds a socket of user 7 (queues 1 and 2) of company 1; it refreshes
	// the lease every ttl/3 while the socket lives.
	_ = presence.SetOnline(ctx, 1, 7, []engine.ID{2, 1}, "n1", 90*time.Second)
	in, _ := presence.OnlineInQueue(ctx, 1, 2)
	fmt.Println(len(in), in[0].UserID, in[0].QueueIDs)
	_ = presence.SetOffline(ctx, 1, 7, "n1")
	all, _ := presence.Online(ctx, 1)
	fmt.Println(len(all))
	// Output:
	// 1 7 [1 2]
	// 0
}

func ExampleMemoryDedupe() {
	ctx := context.Background()
	var seen engine.DedupeKeys = redisstate.NewMemoryDedupe(nil)
	for range 2 {
		first, _ := seen.Claim(ctx, "waba:3:wamid.HBgM", 24*time.Hour)
		fmt.Println(first)
	}
	// Output:
	// true
	// false
}
