package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
)

func TestEndedSessions(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := store.NewEndedSessions(d, refClock)
		at := func(m int) time.Time { return rtNow.Add(time.Duration(m) * time.Minute) }
		for _, e := range []engine.EndedSession{
			{Session: "s1", UserID: 7, EndedAt: at(0), ExpiresAt: at(15)},
			{Session: "s2", UserID: 8, EndedAt: at(1), ExpiresAt: at(16)},
			{Session: "s3", UserID: 7, EndedAt: at(2), ExpiresAt: at(5)},
			// Ended again with a later expiry: the later one is kept…
			{Session: "s3", UserID: 7, EndedAt: at(3), ExpiresAt: at(18)},
			// …and an earlier one does not shorten it.
			{Session: "s3", UserID: 7, EndedAt: at(3), ExpiresAt: at(4)},
		} {
			if err := s.End(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.End(ctx, engine.EndedSession{UserID: 7, ExpiresAt: at(9)}); err == nil {
			t.Fatal("empty session id accepted")
		}
		ids := func(l []engine.EndedSession) []string {
			var out []string
			for _, e := range l {
				out = append(out, e.Session)
			}
			return out
		}
		live, err := s.Live(ctx, at(15))
		if err != nil || !slices.Equal(ids(live), []string{"s2", "s3"}) {
			t.Fatalf("live at 15 min: %v %v", ids(live), err)
		}
		if e := live[1]; e.UserID != 7 || !e.ExpiresAt.Equal(at(18)) || !e.EndedAt.Equal(at(2)) {
			t.Fatalf("s3 read back as %+v", e)
		}
		n, err := s.Prune(ctx, at(16))
		if err != nil || n != 2 {
			t.Fatalf("pruned %d (%v), want s1 and s2", n, err)
		}
		live, err = s.Live(ctx, rtNow)
		if err != nil || !slices.Equal(ids(live), []string{"s3"}) {
			t.Fatalf("after prune: %v %v", ids(live), err)
		}
	})
}
