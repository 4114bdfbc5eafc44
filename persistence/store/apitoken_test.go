package store_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
)

func TestAPITokenStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		refSeedCompanies(t, d)
		s := store.NewAPITokens(d, refClock)
		const hashA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		const hashB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

		erp, err := s.Create(ctx, refA, 7, engine.APITokenInput{Name: "  ERP  "}, hashA, "atk_abcd")
		if err != nil || erp.Name != "ERP" || erp.CompanyID != refA || erp.UserID != 7 || erp.Prefix != "atk_abcd" ||
			erp.RevokedAt != nil || !erp.CreatedAt.Equal(refClock.Now().UTC().Truncate(time.Microsecond)) {
			t.Fatalf("create %+v %v", erp, err)
		}
		other, err := s.Create(ctx, refB, 9, engine.APITokenInput{Name: "CRM"}, hashB, "atk_efgh")
		if err != nil {
			t.Fatal(err)
		}

		t.Run("validation", func(t *testing.T) {
			_, err := s.Create(ctx, refA, 7, engine.APITokenInput{Name: "x"}, hashA+"1", "atk_x")
			refWantField(t, err, "name", engine.MsgTooShort)
			_, err = s.Create(ctx, refA, 7, engine.APITokenInput{Name: strings.Repeat("n", 51)}, hashA+"2", "atk_x")
			refWantField(t, err, "name", engine.MsgTooLong)
		})

		t.Run("list is per tenant", func(t *testing.T) {
			a, err := s.List(ctx, refA)
			if err != nil || len(a) != 1 || a[0].ID != erp.ID {
				t.Fatalf("list A %+v %v", a, err)
			}
			b, err := s.List(ctx, refB)
			if err != nil || len(b) != 1 || b[0].ID != other.ID {
				t.Fatalf("list B %+v %v", b, err)
			}
		})

		t.Run("authenticate by hash", func(t *testing.T) {
			got, err := s.Authenticate(ctx, hashA)
			if err != nil || got.ID != erp.ID || got.CompanyID != refA || got.LastUsedAt == nil {
				t.Fatalf("authenticate %+v %v", got, err)
			}
			_, err = s.Authenticate(ctx, "cc"+hashA[2:])
			refWantCode(t, err, engine.ErrInvalidToken)
		})

		t.Run("the secret's hash only is stored", func(t *testing.T) {
			var n int
			if err := d.SQL.QueryRowContext(ctx, `SELECT count(*) FROM api_tokens WHERE token_hash = $1`, hashA).Scan(&n); err != nil || n != 1 {
				t.Fatalf("rows with the hash: %d %v", n, err)
			}
		})

		t.Run("revoke is per tenant and refuses at once", func(t *testing.T) {
			_, err := s.Revoke(ctx, refB, erp.ID)
			refWantCode(t, err, engine.ErrNoAPITokenFound)
			if _, err := s.Authenticate(ctx, hashA); err != nil {
				t.Fatalf("another tenant's revoke touched the token: %v", err)
			}
			r, err := s.Revoke(ctx, refA, erp.ID)
			if err != nil || r.RevokedAt == nil {
				t.Fatalf("revoke %+v %v", r, err)
			}
			_, err = s.Authenticate(ctx, hashA)
			refWantCode(t, err, engine.ErrInvalidToken)
			again, err := s.Revoke(ctx, refA, erp.ID)
			if err != nil || !again.RevokedAt.Equal(*r.RevokedAt) {
				t.Fatalf("second revoke %+v %v", again, err)
			}
			_, err = s.Revoke(ctx, refA, 999)
			refWantCode(t, err, engine.ErrNoAPITokenFound)
		})

		t.Run("disabled tenant's tokens are refused", func(t *testing.T) {
			dbtest.MustExec(t, d, `UPDATE companies SET disabled_at = created_at WHERE id = 2`)
			_, err := s.Authenticate(ctx, hashB)
			refWantCode(t, err, engine.ErrInvalidToken)
			dbtest.MustExec(t, d, `UPDATE companies SET disabled_at = NULL WHERE id = 2`)
		})

		t.Run("claim send once per tenant and key", func(t *testing.T) {
			first, existed, err := s.ClaimSend(ctx, refA, "order-1", 100, 5)
			if err != nil || existed || first.MessageID != 100 || first.ContactID != 5 || first.TicketID != 0 {
				t.Fatalf("claim %+v %v %v", first, existed, err)
			}
			if err := s.FinishSend(ctx, refA, "order-1", 42); err != nil {
				t.Fatal(err)
			}
			again, existed, err := s.ClaimSend(ctx, refA, "order-1", 101, 6)
			if err != nil || !existed || again.MessageID != 100 || again.TicketID != 42 {
				t.Fatalf("second claim %+v %v %v", again, existed, err)
			}
			b, existed, err := s.ClaimSend(ctx, refB, "order-1", 102, 6)
			if err != nil || existed || b.MessageID != 102 {
				t.Fatalf("other tenant's claim %+v %v %v", b, existed, err)
			}
		})

		t.Run("concurrent claims share one message id", func(t *testing.T) {
			var wg sync.WaitGroup
			ids := make([]engine.ID, 8)
			errs := make([]error, 8)
			for i := range ids {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s, _, err := s.ClaimSend(ctx, refA, "race", engine.ID(200+i), 1)
					ids[i], errs[i] = s.MessageID, err
				}()
			}
			wg.Wait()
			for i := range ids {
				if errs[i] != nil || ids[i] != ids[0] {
					t.Fatalf("claims %v errors %v", ids, errs)
				}
			}
		})
	})
}
