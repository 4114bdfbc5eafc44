package store_test

import (
	"context"
	"slices"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
)

func TestSettings(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		refSeedCompanies(t, d)
		s := store.NewSettings(d, refClock)

		list, err := s.List(ctx, refA)
		if err != nil || !slices.Equal(list, engine.SettingDefaults) {
			t.Fatalf("defaults %v %v", list, err)
		}
		st, err := s.Set(ctx, refA, engine.SettingUserCreation, engine.SettingDisabled)
		if err != nil || st != (engine.Setting{Key: engine.SettingUserCreation, Value: engine.SettingDisabled}) {
			t.Fatalf("set %v %v", st, err)
		}
		// Set twice is an update, not a duplicate row.
		if _, err := s.Set(ctx, refA, engine.SettingSideMenu, engine.SettingDisabled); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Set(ctx, refA, engine.SettingSideMenu, engine.SettingEnabled); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, refA, engine.SettingUserCreation)
		if err != nil || got.Value != engine.SettingDisabled {
			t.Fatalf("get %v %v", got, err)
		}
		// The other tenant still has the defaults.
		other, err := s.Get(ctx, refB, engine.SettingUserCreation)
		if err != nil || other.Value != engine.SettingEnabled {
			t.Fatalf("refB %v %v", other, err)
		}
		otherList, _ := s.List(ctx, refB)
		if !slices.Equal(otherList, engine.SettingDefaults) {
			t.Fatalf("refB list %v", otherList)
		}

		for _, key := range []string{"nope", "", "sideMenu'; --", "SIDEMENU"} {
			_, err := s.Get(ctx, refA, key)
			refWantCode(t, err, engine.ErrNoSettingFound)
			_, err = s.Set(ctx, refA, key, "enabled")
			refWantCode(t, err, engine.ErrNoSettingFound)
		}

		// EnsureDefaults fills the missing keys and keeps the stored one.
		if err := s.EnsureDefaults(ctx, refA); err != nil {
			t.Fatal(err)
		}
		if err := s.EnsureDefaults(ctx, refA); err != nil {
			t.Fatal(err)
		}
		var rows int
		_ = d.SQL.QueryRow(`SELECT count(*) FROM settings WHERE company_id = 1`).Scan(&rows)
		list, _ = s.List(ctx, refA)
		want := []engine.Setting{
			{Key: engine.SettingUserCreation, Value: engine.SettingDisabled},
			{Key: engine.SettingSideMenu, Value: engine.SettingEnabled},
			{Key: engine.SettingAcceptCalls, Value: engine.SettingEnabled},
			{Key: engine.SettingTimeZone, Value: engine.TenantTimeZone},
		}
		if rows != 4 || !slices.Equal(list, want) {
			t.Fatalf("after EnsureDefaults: %d rows, %v", rows, list)
		}
	})
}

func TestCompanies(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := store.NewCompanies(d, refClock)
		c, err := s.Create(ctx, engine.Company{ID: 1, Name: " Atende Demo "})
		if err != nil || c.ID != 1 || c.Name != "Atende Demo" || c.CreatedAt.IsZero() {
			t.Fatalf("create %+v %v", c, err)
		}
		// An id chosen by the database does not collide with the explicit one.
		c2, err := s.Create(ctx, engine.Company{Name: "Second"})
		if err != nil || c2.ID <= 1 {
			t.Fatalf("create auto %+v %v", c2, err)
		}
		got, err := s.Get(ctx, c2.ID)
		if err != nil || got.Name != "Second" {
			t.Fatalf("get %+v %v", got, err)
		}
		_, err = s.Get(ctx, 999)
		refWantCode(t, err, engine.ErrNotFound)
		_, err = s.Create(ctx, engine.Company{Name: "  "})
		refWantField(t, err, "name", engine.MsgRequired)
	})
}
