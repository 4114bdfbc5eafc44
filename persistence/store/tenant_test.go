package store_test

import (
	"context"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
)

func TestTenants(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := store.NewCompanies(d, refClock)
		users := store.NewUsers(d, refClock)
		demo, err := s.Create(ctx, engine.Company{ID: 1, Name: "Atende Demo"})
		if err != nil {
			t.Fatal(err)
		}
		admin := engine.NewUser{Name: "Dona Maria", Email: "maria@loja.com", PasswordHash: "x", Profile: engine.ProfileAdmin}
		c, u, err := s.CreateWithAdmin(ctx, engine.Company{Name: " Loja Dois "}, admin)
		if err != nil || c.ID == demo.ID || c.Name != "Loja Dois" || c.Disabled {
			t.Fatalf("create with admin: %+v %v", c, err)
		}
		if u.CompanyID != c.ID || u.Profile != engine.ProfileAdmin || u.Email != "maria@loja.com" {
			t.Fatalf("admin %+v", u)
		}

		t.Run("duplicate name writes nothing", func(t *testing.T) {
			dup := admin
			dup.Email = "outra@loja.com"
			_, _, err := s.CreateWithAdmin(ctx, engine.Company{Name: "LÓJA dois"}, dup)
			refWantCode(t, err, engine.ErrTenantNameDuplicated)
			_, err = users.ByEmail(ctx, "outra@loja.com")
			refWantCode(t, err, engine.ErrNoUserFound)
		})
		t.Run("taken e-mail writes no tenant", func(t *testing.T) {
			_, _, err := s.CreateWithAdmin(ctx, engine.Company{Name: "Loja Três"}, admin)
			refWantCode(t, err, engine.ErrEmailAlreadyExists)
			_, err = s.ByName(ctx, "loja três")
			refWantCode(t, err, engine.ErrNoTenantFound)
		})
		t.Run("by name", func(t *testing.T) {
			got, err := s.ByName(ctx, "  LOJA DOIS")
			if err != nil || got.ID != c.ID {
				t.Fatalf("by name %+v %v", got, err)
			}
		})

		t.Run("list counts each tenant's own rows", func(t *testing.T) {
			now := "2026-11-22T13:04:05.000000Z"
			var when any = now
			if d.Dialect == db.Postgres {
				when = refClock.Now()
			}
			for i, st := range []string{"open", "pending", "pending", "closed"} {
				dbtest.MustExec(t, d, `INSERT INTO tickets (id, company_id, uuid, status, contact_id, channel, created_at, updated_at, version)
					VALUES ($1, $2, $3, $4, 1, 'whatsapp', $5, $5, 1)`, 100+i, demo.ID, "u"+string(rune('a'+i)), st, when)
			}
			dbtest.MustExec(t, d, `INSERT INTO tickets (id, company_id, uuid, status, contact_id, channel, created_at, updated_at, version, deleted)
				VALUES (200, $1, 'gone', 'open', 1, 'whatsapp', $2, $2, 1, TRUE)`, demo.ID, when)
			dbtest.MustExec(t, d, `INSERT INTO connections (id, company_id, name, channel, token, created_at, updated_at)
				VALUES (7, $1, 'Loja', 'whatsapp', 'tok7', 0, 0)`, c.ID)
			list, err := s.List(ctx)
			if err != nil || len(list) != 2 {
				t.Fatalf("list %+v %v", list, err)
			}
			a, b := list[0], list[1]
			if a.ID != demo.ID || a.Users != 0 || a.Connections != 0 || a.Tickets != 4 || a.OpenTickets != 1 || a.PendingTickets != 2 {
				t.Fatalf("demo row %+v", a)
			}
			if b.ID != c.ID || b.Users != 1 || b.Connections != 1 || b.Tickets != 0 {
				t.Fatalf("new tenant row %+v", b)
			}
		})

		t.Run("disable refuses the users' tokens, enable restores them", func(t *testing.T) {
			if _, err := users.Auth(ctx, u.ID); err != nil {
				t.Fatalf("auth before: %v", err)
			}
			got, err := s.SetDisabled(ctx, c.ID, true, time.Now())
			if err != nil || !got.Disabled {
				t.Fatalf("disable %+v %v", got, err)
			}
			_, err = users.Auth(ctx, u.ID)
			refWantCode(t, err, engine.ErrNoUserFound)
			if got, _ := s.Get(ctx, demo.ID); got.Disabled {
				t.Fatal("the other tenant was disabled too")
			}
			got, err = s.SetDisabled(ctx, c.ID, false, time.Now())
			if err != nil || got.Disabled {
				t.Fatalf("enable %+v %v", got, err)
			}
			if _, err := users.Auth(ctx, u.ID); err != nil {
				t.Fatalf("auth after enable: %v", err)
			}
			_, err = s.SetDisabled(ctx, 999, true, time.Now())
			refWantCode(t, err, engine.ErrNoTenantFound)
		})
	})
}
