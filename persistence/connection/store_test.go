package connection

import (
	"context"
	"sync"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

func setup(t *testing.T, d *db.DB) *Store {
	t.Helper()
	dbtest.MustExec(t, d, `INSERT INTO companies (id, name) VALUES (1, 'A'), (2, 'B')`)
	return New(d, nil)
}

func TestConnectionStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := setup(t, d)
		first, err := s.Create(ctx, 1, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket, GreetingMessage: "Olá!"})
		if err != nil {
			t.Fatal(err)
		}
		if !first.IsDefault || first.Status != engine.ConnDisconnected || first.Token == "" || first.Channel != engine.ChannelSocket {
			t.Fatalf("first connection %+v: want default, DISCONNECTED, a token", first)
		}
		second, err := s.Create(ctx, 1, engine.ConnectionInput{Name: "Vendas"})
		if err != nil {
			t.Fatal(err)
		}
		if second.IsDefault || second.Channel != engine.ChannelWhatsApp {
			t.Fatalf("second connection %+v", second)
		}
		if _, err := s.Create(ctx, 1, engine.ConnectionInput{Name: "x"}); engine.CodeOf(err) != engine.ErrValidation {
			t.Fatalf("short name: %v", err)
		}
		// The default cannot be un-defaulted nor removed while others exist.
		if _, err := s.Update(ctx, 1, first.ID, engine.ConnectionInput{Name: "Site", IsDefault: false}); engine.CodeOf(err) != engine.ErrNoOtherWhatsapp {
			t.Fatalf("clear default: %v", err)
		}
		if err := s.Delete(ctx, 1, first.ID); engine.CodeOf(err) != engine.ErrNoOtherWhatsapp {
			t.Fatalf("delete default: %v", err)
		}
		// Making the second default moves the flag.
		if _, err := s.Update(ctx, 1, second.ID, engine.ConnectionInput{Name: "Vendas", IsDefault: true, Channel: "telegram"}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, 1, first.ID)
		if err != nil || got.IsDefault {
			t.Fatalf("first after moving default: %+v %v", got, err)
		}
		got, _ = s.Get(ctx, 1, second.ID)
		if got.Channel != engine.ChannelWhatsApp {
			t.Fatalf("update changed the channel to %q", got.Channel)
		}
		if err := s.Delete(ctx, 1, first.ID); err != nil {
			t.Fatal(err)
		}
		// Tenant isolation.
		if _, err := s.Get(ctx, 2, second.ID); engine.CodeOf(err) != engine.ErrNoWappFound {
			t.Fatalf("cross-tenant get: %v", err)
		}
		if _, err := s.Update(ctx, 2, second.ID, engine.ConnectionInput{Name: "Hack"}); engine.CodeOf(err) != engine.ErrNoWappFound {
			t.Fatalf("cross-tenant update: %v", err)
		}
		if err := s.Delete(ctx, 2, second.ID); engine.CodeOf(err) != engine.ErrNoWappFound {
			t.Fatalf("cross-tenant delete: %v", err)
		}
		if list, _ := s.List(ctx, 2); len(list) != 0 {
			t.Fatalf("tenant 2 sees %v", list)
		}
		// Status and lookups.
		if err := s.SetStatus(ctx, second.ID, engine.StatusChange{Status: engine.ConnQRCode, QRCode: "2@abc"}); err != nil {
			t.Fatal(err)
		}
		got, _ = s.Lookup(ctx, second.ID)
		if got.Status != engine.ConnQRCode || got.QRCode != "2@abc" || got.Retries != 1 {
			t.Fatalf("after qrcode status %+v", got)
		}
		if _, err := s.ByToken(ctx, "'; DROP TABLE connections; --"); engine.CodeOf(err) != engine.ErrNoWappFound {
			t.Fatalf("hostile token: %v", err)
		}
		byTok, err := s.ByToken(ctx, got.Token)
		if err != nil || byTok.ID != second.ID {
			t.Fatalf("by token: %+v %v", byTok, err)
		}
	})
}

func TestConnectionQueues(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := setup(t, d)
		dbtest.MustExec(t, d, `INSERT INTO queues (id, company_id, name, color, created_at, updated_at) VALUES
			(10, 1, 'Vendas', '#111111', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP),
			(11, 1, 'Suporte', '#222222', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP),
			(20, 2, 'Outra', '#333333', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`)
		c, err := s.Create(ctx, 1, engine.ConnectionInput{Name: "Zap", QueueIDs: []engine.ID{11, 10}, GreetingMessage: "1 vendas 2 suporte"})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Queues) != 2 || c.Queues[0].ID != 10 || c.Queues[1].ID != 11 {
			t.Fatalf("queues %+v", c.Queues)
		}
		// Another tenant's queue cannot be attached.
		if _, err := s.Create(ctx, 1, engine.ConnectionInput{Name: "Zap2", QueueIDs: []engine.ID{20}}); engine.CodeOf(err) != engine.ErrNoQueueFound {
			t.Fatalf("foreign queue: %v", err)
		}
		if _, err := s.Create(ctx, 1, engine.ConnectionInput{Name: "Zap3", QueueIDs: []engine.ID{10, 11}}); engine.CodeOf(err) != engine.ErrWappGreetingRequired {
			t.Fatalf("two queues without greeting: %v", err)
		}
	})
}

func TestGuardSwapIsCompareAndSet(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		g := NewGuard(d)
		if cur, err := g.Current(ctx, 1, 5); err != nil || cur != 0 {
			t.Fatalf("empty guard = %d %v", cur, err)
		}
		// Many openers race from "no ticket": exactly one wins.
		var wg sync.WaitGroup
		var mu sync.Mutex
		winners := 0
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, _, err := g.Swap(ctx, 1, 1, 5, 0, engine.ID(100+i))
				if err != nil {
					t.Error(err)
				}
				if ok {
					mu.Lock()
					winners++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if winners != 1 {
			t.Fatalf("%d openers won, want 1", winners)
		}
		cur, _ := g.Current(ctx, 1, 5)
		ok, now, err := g.Swap(ctx, 1, 1, 5, 999, 300)
		if err != nil || ok || now != cur {
			t.Fatalf("stale swap: ok=%v now=%d err=%v (current %d)", ok, now, err, cur)
		}
		ok, now, err = g.Swap(ctx, 1, 1, 5, cur, 300)
		if err != nil || !ok || now != 300 {
			t.Fatalf("fresh swap: ok=%v now=%d err=%v", ok, now, err)
		}
		// A tenant cannot move another tenant's guard.
		if ok, _, _ := g.Swap(ctx, 2, 1, 5, 300, 400); ok {
			t.Fatal("cross-tenant swap succeeded")
		}
	})
}

func TestConnectionMedia(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := setup(t, d)
		c, err := s.Create(ctx, 1, engine.ConnectionInput{Name: "Zap"})
		if err != nil {
			t.Fatal(err)
		}
		g, f := "1/a.png", "1/b.jpg"
		before, after, err := s.SetMedia(ctx, 1, c.ID, &g, &f)
		if err != nil || before.GreetingMedia != "" || after.GreetingMedia != g || after.FarewellMedia != f {
			t.Fatalf("set media: %+v %+v %v", before, after, err)
		}
		empty := ""
		before, after, err = s.SetMedia(ctx, 1, c.ID, &empty, nil)
		if err != nil || before.GreetingMedia != g || after.GreetingMedia != "" || after.FarewellMedia != f {
			t.Fatalf("clear greeting: %+v %+v %v", before, after, err)
		}
		// An update of the form keeps the images.
		if got, err := s.Update(ctx, 1, c.ID, engine.ConnectionInput{Name: "Zap 2", IsDefault: true}); err != nil || got.FarewellMedia != f {
			t.Fatalf("update: %+v %v", got, err)
		}
		if _, _, err := s.SetMedia(ctx, 2, c.ID, &g, nil); engine.CodeOf(err) != engine.ErrNoWappFound {
			t.Fatalf("cross-tenant media: %v", err)
		}
	})
}

func TestConnectionDefaultRule(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := setup(t, d)
		// Concurrent first connections (and explicit defaults) of a tenant: exactly
		// one default at the end, and every create succeeds.
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := s.Create(ctx, 1, engine.ConnectionInput{Name: "Con " + string(rune('A'+i)), IsDefault: i%2 == 0}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		list, err := s.List(ctx, 1)
		if err != nil || len(list) != 8 {
			t.Fatalf("list %d %v", len(list), err)
		}
		defaults := 0
		var def, other engine.Connection
		for _, c := range list {
			if c.IsDefault {
				defaults++
				def = c
			} else {
				other = c
			}
		}
		if defaults != 1 {
			t.Fatalf("%d defaults, want 1", defaults)
		}
		if id, err := s.DefaultID(ctx, 1); err != nil || id != def.ID {
			t.Fatalf("DefaultID = %d, %v; want %d", id, err, def.ID)
		}
		if _, err := s.DefaultID(ctx, 2); engine.CodeOf(err) != engine.ErrNoDefWappFound {
			t.Fatalf("DefaultID of a tenant without connections: %v", err)
		}
		// The database refuses a second default written behind the store's back.
		if _, err := d.SQL.ExecContext(ctx, `UPDATE connections SET is_default = TRUE WHERE id = $1`, other.ID); !db.IsUniqueViolation(err) {
			t.Fatalf("second default: %v", err)
		}
		if err := s.CheckDelete(ctx, 1, def.ID); engine.CodeOf(err) != engine.ErrNoOtherWhatsapp {
			t.Fatalf("check delete default: %v", err)
		}
		if err := s.CheckDelete(ctx, 1, other.ID); err != nil {
			t.Fatalf("check delete other: %v", err)
		}
		if err := s.CheckDelete(ctx, 2, other.ID); engine.CodeOf(err) != engine.ErrNoWappFound {
			t.Fatalf("check delete cross-tenant: %v", err)
		}
		// Deleting every other connection lets the default go last.
		for _, c := range list {
			if c.ID != def.ID {
				if err := s.Delete(ctx, 1, c.ID); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := s.Delete(ctx, 1, def.ID); err != nil {
			t.Fatalf("delete last: %v", err)
		}
		if _, err := s.DefaultID(ctx, 1); engine.CodeOf(err) != engine.ErrNoDefWappFound {
			t.Fatalf("DefaultID after the last connection went: %v", err)
		}
	})
}
