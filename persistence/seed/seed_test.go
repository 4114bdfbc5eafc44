package seed_test

import (
	"context"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/seed"
	"atende/persistence/store"
)

func TestDemoIsIdempotent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		deps := seed.Deps{
			Companies:  store.NewCompanies(d, nil),
			Users:      store.NewUsers(d, nil),
			Settings:   store.NewSettings(d, nil),
			BcryptCost: bcrypt.MinCost,
		}
		if err := seed.Demo(ctx, deps); err != nil {
			t.Fatal(err)
		}
		c, err := deps.Companies.Get(ctx, seed.DemoCompanyID)
		if err != nil || c.Name != "Atende Demo" {
			t.Fatalf("company %+v %v", c, err)
		}
		want := map[string]struct{ profile, password string }{
			"admin@atende.local": {engine.ProfileAdmin, "admin123"},
			"carla@atende.local": {engine.ProfileSuperv, "atende123"},
			"ana@atende.local":   {engine.ProfileUser, "atende123"},
			"bruno@atende.local": {engine.ProfileUser, "atende123"},
			"super@atende.local": {engine.ProfileSuper, "super123"},
		}
		for email, w := range want {
			u, err := deps.Users.ByEmail(ctx, email)
			if err != nil || u.Profile != w.profile || u.CompanyID != seed.DemoCompanyID {
				t.Fatalf("%s: %+v %v", email, u, err)
			}
			if bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(w.password)) != nil {
				t.Fatalf("%s: password does not match", email)
			}
		}
		// An admin's change survives a second run, and nothing is duplicated.
		if _, err := deps.Settings.Set(ctx, seed.DemoCompanyID, engine.SettingSideMenu, engine.SettingDisabled); err != nil {
			t.Fatal(err)
		}
		if err := seed.Demo(ctx, deps); err != nil {
			t.Fatalf("second run: %v", err)
		}
		all, _ := deps.Users.All(ctx, seed.DemoCompanyID)
		if len(all) != len(seed.DemoUsers) {
			t.Fatalf("%d users after two runs", len(all))
		}
		var rows int
		_ = d.SQL.QueryRow(`SELECT count(*) FROM settings WHERE company_id = 1`).Scan(&rows)
		st, _ := deps.Settings.Get(ctx, seed.DemoCompanyID, engine.SettingSideMenu)
		if rows != len(engine.SettingDefaults) || st.Value != engine.SettingDisabled {
			t.Fatalf("settings: %d rows, sideMenu %q", rows, st.Value)
		}
		// A company created later gets a fresh id, not 1.
		c2, err := deps.Companies.Create(ctx, engine.Company{Name: "Outra"})
		if err != nil || c2.ID == seed.DemoCompanyID {
			t.Fatalf("second company %+v %v", c2, err)
		}
	})
}

func TestDemoNeedsStores(t *testing.T) {
	if err := seed.Demo(context.Background(), seed.Deps{}); err == nil {
		t.Fatal("Demo without stores succeeded")
	}
}
