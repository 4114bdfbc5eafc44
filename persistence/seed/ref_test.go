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

func refSeedDeps(d *db.DB) seed.Deps {
	return seed.Deps{
		Companies: store.NewCompanies(d, nil),
		Users:     store.NewUsers(d, nil),
		Settings:  store.NewSettings(d, nil),
		RefDeps: seed.RefDeps{
			Contacts:     store.NewContacts(d, nil),
			Queues:       store.NewQueues(d, nil),
			Tags:         store.NewTags(d, nil),
			QuickAnswers: store.NewQuickAnswers(d, nil),
		},
		BcryptCost: bcrypt.MinCost,
	}
}

func TestDemoReferenceData(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		deps := refSeedDeps(d)
		if err := seed.Demo(ctx, deps); err != nil {
			t.Fatal(err)
		}
		co := seed.DemoCompanyID

		queues, err := deps.Queues.List(ctx, co)
		if err != nil || len(queues) != 3 {
			t.Fatalf("queues %+v %v", queues, err)
		}
		colours := map[string]string{}
		for _, q := range queues {
			colours[q.Name] = q.Color
		}
		if colours["Atendimento"] != "#1976d2" || colours["Financeiro"] != "#388e3c" || colours["Suporte"] != "#f57c00" {
			t.Fatalf("colours %v", colours)
		}
		tags, err := deps.Tags.List(ctx, co, "")
		if err != nil || len(tags) != 3 {
			t.Fatalf("tags %+v %v", tags, err)
		}
		contacts, err := deps.Contacts.List(ctx, co, engine.ContactQuery{})
		if err != nil || contacts.Count != 20 {
			t.Fatalf("contacts %d %v", contacts.Count, err)
		}
		withInfo, withOpp := 0, 0
		for _, c := range contacts.Contacts {
			if len(c.Number) != 13 || c.Number[:2] != "55" || c.Number[4] != '9' {
				t.Fatalf("number %q of %s is not 55 + DDD + 9 digits", c.Number, c.Name)
			}
			if len(c.ExtraInfo) > 0 {
				withInfo++
			}
			if len(c.SalesOpps) > 0 {
				withOpp++
			}
		}
		if withInfo == 0 || withOpp == 0 {
			t.Fatalf("%d contacts with extra info, %d with opportunities", withInfo, withOpp)
		}
		_, count, _, err := deps.QuickAnswers.List(ctx, co, engine.QuickAnswerQuery{})
		if err != nil || count != 6 {
			t.Fatalf("quick answers %d %v", count, err)
		}
		for email, want := range seed.DemoUserQueues {
			u, err := deps.Users.ByEmail(ctx, email)
			if err != nil || len(u.Queues) != len(want) {
				t.Fatalf("%s queues %+v %v", email, u.Queues, err)
			}
		}

		// A change made after seeding survives a second run, which creates nothing.
		ana, _ := deps.Users.ByEmail(ctx, "ana@atende.local")
		only := []engine.ID{queues[len(queues)-1].ID}
		if _, err := deps.Users.Update(ctx, co, ana.ID, engine.UserChange{QueueIDs: &only}); err != nil {
			t.Fatal(err)
		}
		if err := seed.Demo(ctx, deps); err != nil {
			t.Fatal(err)
		}
		again, _ := deps.Queues.List(ctx, co)
		tagsAgain, _ := deps.Tags.List(ctx, co, "")
		contactsAgain, _ := deps.Contacts.List(ctx, co, engine.ContactQuery{})
		_, qaAgain, _, _ := deps.QuickAnswers.List(ctx, co, engine.QuickAnswerQuery{})
		if len(again) != 3 || len(tagsAgain) != 3 || contactsAgain.Count != 20 || qaAgain != 6 {
			t.Fatalf("second run: %d queues, %d tags, %d contacts, %d quick answers", len(again), len(tagsAgain), contactsAgain.Count, qaAgain)
		}
		ana, _ = deps.Users.ByEmail(ctx, "ana@atende.local")
		if len(ana.Queues) != 1 || ana.Queues[0].ID != only[0] {
			t.Fatalf("ana's queues reset: %+v", ana.Queues)
		}
	})
}

func TestDemoWithoutReferenceStores(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		deps := refSeedDeps(d)
		deps.RefDeps = seed.RefDeps{}
		if err := seed.Demo(context.Background(), deps); err != nil {
			t.Fatalf("unwired reference stores must be skipped: %v", err)
		}
	})
}
