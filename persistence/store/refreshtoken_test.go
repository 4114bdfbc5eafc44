package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
)

// rtFixture is a database with tenants refA, refB and one user of each (ids returned).
func rtFixture(t *testing.T, d *db.DB) (*store.RefreshTokens, engine.ID, engine.ID) {
	t.Helper()
	users := usrFixture(t, d)
	a, err := users.Create(context.Background(), usrNew(refA, "Ana", "ana@example.com"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := users.Create(context.Background(), usrNew(refB, "Bia", "bia@example.com"))
	if err != nil {
		t.Fatal(err)
	}
	return store.NewRefreshTokens(d, refClock), a.ID, b.ID
}

var rtNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func TestRefreshRotateChain(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s, uid, _ := rtFixture(t, d)
		first, err := s.Insert(ctx, engine.RefreshToken{CompanyID: refA, UserID: uid, FamilyID: "fam", TokenHash: "h0",
			ExpiresAt: rtNow.Add(time.Hour), CreatedAt: rtNow})
		if err != nil || first.ID <= 0 {
			t.Fatalf("insert %+v %v", first, err)
		}
		prev := first
		for i := 1; i <= 3; i++ {
			now := rtNow.Add(time.Duration(i) * time.Minute)
			child, err := s.Rotate(ctx, fmt.Sprintf("h%d", i-1), fmt.Sprintf("h%d", i), now, now.Add(time.Hour))
			if err != nil {
				t.Fatalf("rotate %d: %v", i, err)
			}
			if child.FamilyID != "fam" || child.UserID != uid || child.CompanyID != refA || child.ParentID != prev.ID ||
				!child.ExpiresAt.Equal(now.Add(time.Hour)) {
				t.Fatalf("child %d %+v", i, child)
			}
			prev = child
		}
		fam, err := s.Family(ctx, "fam")
		if err != nil || len(fam) != 4 {
			t.Fatalf("family %v %v", fam, err)
		}
		for i, tok := range fam {
			used := tok.UsedAt != nil
			if used != (i < 3) || tok.RevokedAt != nil {
				t.Fatalf("token %d used=%v revoked=%v", i, used, tok.RevokedAt)
			}
		}
	})
}

func TestRefreshReuseRevokesFamily(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s, uid, _ := rtFixture(t, d)
		mk := func(fam, hash string) {
			if _, err := s.Insert(ctx, engine.RefreshToken{CompanyID: refA, UserID: uid, FamilyID: fam, TokenHash: hash,
				ExpiresAt: rtNow.Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}
		}
		mk("fam", "a0")
		mk("other", "b0")
		if _, err := s.Rotate(ctx, "a0", "a1", rtNow, rtNow.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Rotate(ctx, "a1", "a2", rtNow, rtNow.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		// a0 comes back: the whole family, the live a2 included, is revoked.
		ended, err := s.Rotate(ctx, "a0", "x", rtNow, rtNow.Add(time.Hour))
		refWantCode(t, err, engine.ErrSessionExpired)
		if !errors.Is(err, engine.ErrRefreshReused) {
			t.Fatalf("cause %v, want reuse", err)
		}
		if ended.FamilyID != "fam" || ended.UserID != uid || ended.CompanyID != refA {
			t.Fatalf("reuse names session %+v, want family fam of user %d", ended, uid)
		}
		fam, _ := s.Family(ctx, "fam")
		if len(fam) != 3 {
			t.Fatalf("family grew on reuse: %d", len(fam))
		}
		for _, tok := range fam {
			if tok.RevokedAt == nil {
				t.Fatalf("token %s not revoked", tok.TokenHash)
			}
		}
		_, err = s.Rotate(ctx, "a2", "a3", rtNow, rtNow.Add(time.Hour))
		refWantCode(t, err, engine.ErrSessionExpired)
		// The other family is untouched.
		if _, err := s.Rotate(ctx, "b0", "b1", rtNow, rtNow.Add(time.Hour)); err != nil {
			t.Fatalf("other family: %v", err)
		}
	})
}

func TestRefreshRefusals(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s, uid, uidB := rtFixture(t, d)
		for _, tok := range []engine.RefreshToken{
			{CompanyID: refA, UserID: uid, FamilyID: "f1", TokenHash: "expired", ExpiresAt: rtNow.Add(-time.Second)},
			{CompanyID: refA, UserID: uid, FamilyID: "f2", TokenHash: "revoked", ExpiresAt: rtNow.Add(time.Hour)},
			{CompanyID: refA, UserID: uid, FamilyID: "f3", TokenHash: "user1", ExpiresAt: rtNow.Add(time.Hour)},
			{CompanyID: refA, UserID: uid, FamilyID: "f4", TokenHash: "user2", ExpiresAt: rtNow.Add(time.Hour)},
			{CompanyID: refB, UserID: uidB, FamilyID: "f5", TokenHash: "otherTenant", ExpiresAt: rtNow.Add(time.Hour)},
		} {
			if _, err := s.Insert(ctx, tok); err != nil {
				t.Fatal(err)
			}
		}
		if rt, err := s.RevokeFamily(ctx, "revoked", rtNow); err != nil {
			t.Fatal(err)
		} else if rt.FamilyID != "f2" || rt.UserID != uid || rt.CompanyID != refA {
			t.Fatalf("revoked token %+v, want family f2 of user %d", rt, uid)
		}
		if rt, err := s.RevokeFamily(ctx, "unknown", rtNow); err != nil {
			t.Fatalf("unknown hash: %v", err)
		} else if rt != (engine.RefreshToken{}) {
			t.Fatalf("unknown hash answered %+v, want the zero token", rt)
		}
		// RevokeUser of another tenant's id changes nothing.
		if err := s.RevokeUser(ctx, refB, uid, rtNow); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Rotate(ctx, "user1", "user1b", rtNow, rtNow.Add(time.Hour)); err != nil {
			t.Fatalf("RevokeUser crossed tenants: %v", err)
		}
		if err := s.RevokeUser(ctx, refA, uid, rtNow); err != nil {
			t.Fatal(err)
		}
		for _, hash := range []string{"expired", "revoked", "nope", "", "user1b", "user2"} {
			t.Run(hash, func(t *testing.T) {
				_, err := s.Rotate(ctx, hash, hash+"-next", rtNow, rtNow.Add(time.Hour))
				refWantCode(t, err, engine.ErrSessionExpired)
				if errors.Is(err, engine.ErrRefreshReused) {
					t.Fatal("reported as reuse")
				}
			})
		}
		if _, err := s.Rotate(ctx, "otherTenant", "ot2", rtNow, rtNow.Add(time.Hour)); err != nil {
			t.Fatalf("other tenant's user revoked: %v", err)
		}
		n, err := s.Purge(ctx, rtNow)
		if err != nil || n != 1 {
			t.Fatalf("purge %d %v", n, err)
		}
		_, err = s.ByHash(ctx, "expired")
		refWantCode(t, err, engine.ErrNotFound)
	})
}

func TestRefreshConcurrentRotation(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s, uid, _ := rtFixture(t, d)
		if _, err := s.Insert(ctx, engine.RefreshToken{CompanyID: refA, UserID: uid, FamilyID: "race", TokenHash: "r0",
			ExpiresAt: rtNow.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		const n = 6
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.Rotate(ctx, "r0", fmt.Sprintf("r1-%d", i), rtNow, rtNow.Add(time.Hour))
			}()
		}
		wg.Wait()
		wins := 0
		for _, err := range errs {
			switch {
			case err == nil:
				wins++
			case engine.CodeOf(err) != engine.ErrSessionExpired:
				t.Fatalf("unexpected error %v", err)
			}
		}
		if wins != 1 {
			t.Fatalf("%d rotations of one token succeeded, want 1", wins)
		}
		// The losers were reuse: the family, the winner's child included, is revoked.
		fam, _ := s.Family(ctx, "race")
		for _, tok := range fam {
			if tok.RevokedAt == nil {
				t.Fatalf("token %s survived a concurrent reuse", tok.TokenHash)
			}
		}
	})
}
