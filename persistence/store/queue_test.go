package store_test

import (
	"context"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
)

func TestQueueStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		refSeedCompanies(t, d)
		s := store.NewQueues(d, refClock)

		first, err := s.Create(ctx, refA, engine.QueueInput{Name: " Suporte ", Color: "#F57C00"})
		if err != nil {
			t.Fatalf("first queue needs no greeting: %v", err)
		}
		if first.Name != "Suporte" || first.Color != "#f57c00" || first.CompanyID != refA || first.CreatedAt.IsZero() {
			t.Fatalf("created %+v", first)
		}
		full := engine.QueueInput{Name: "Atendimento", Color: "#1976d2", GreetingMessage: "Olá! Escolha:",
			StartWork: "08:00", EndWork: "18:00", AbsenceMessage: "Fora do horário", NPS: true,
			EncouragingMessage: "Obrigado!", URL: "https://example.com/a"}

		t.Run("validation", func(t *testing.T) {
			for _, tc := range []struct {
				name  string
				edit  func(*engine.QueueInput)
				field string
				msg   string
			}{
				{"greeting required for a second queue", func(q *engine.QueueInput) { q.GreetingMessage = "" }, "greetingMessage", engine.MsgRequired},
				{"name", func(q *engine.QueueInput) { q.Name = "A" }, "name", engine.MsgTooShort},
				{"colour", func(q *engine.QueueInput) { q.Color = "blue" }, "color", engine.MsgInvalidColor},
				{"colour required", func(q *engine.QueueInput) { q.Color = "" }, "color", engine.MsgRequired},
				{"hours", func(q *engine.QueueInput) { q.StartWork = "25:00" }, "startWork", engine.MsgInvalidTime},
				{"hours in pairs", func(q *engine.QueueInput) { q.EndWork = "" }, "endWork", engine.MsgRequired},
				{"url", func(q *engine.QueueInput) { q.URL = "javascript:alert(1)" }, "url", engine.MsgInvalidValue},
			} {
				t.Run(tc.name, func(t *testing.T) {
					in := full
					tc.edit(&in)
					_, err := s.Create(ctx, refA, in)
					refWantField(t, err, tc.field, tc.msg)
				})
			}
		})

		second, err := s.Create(ctx, refA, full)
		if err != nil {
			t.Fatal(err)
		}
		want := engine.Queue{ID: second.ID, CompanyID: refA, Name: "Atendimento", Color: "#1976d2",
			GreetingMessage: "Olá! Escolha:", StartWork: "08:00", EndWork: "18:00", AbsenceMessage: "Fora do horário",
			NPS: true, EncouragingMessage: "Obrigado!", URL: "https://example.com/a",
			CreatedAt: second.CreatedAt, UpdatedAt: second.UpdatedAt}
		if second != want {
			t.Fatalf("created %+v", second)
		}

		t.Run("colour unique per tenant", func(t *testing.T) {
			in := full
			in.Name, in.Color = "Outra", "#F57C00"
			_, err := s.Create(ctx, refA, in)
			refWantCode(t, err, engine.ErrQueueColorAlreadyExists)
			_, err = s.Update(ctx, refA, second.ID, in)
			refWantCode(t, err, engine.ErrQueueColorAlreadyExists)
			if _, err := s.Create(ctx, refB, in); err != nil {
				t.Fatalf("same colour in another tenant: %v", err)
			}
		})

		t.Run("update", func(t *testing.T) {
			in := full
			in.Name, in.NPS, in.StartWork, in.EndWork = "Atendimento Geral", false, "", ""
			up, err := s.Update(ctx, refA, second.ID, in)
			if err != nil {
				t.Fatal(err)
			}
			if up.Name != "Atendimento Geral" || up.NPS || up.StartWork != "" || up.Color != "#1976d2" {
				t.Fatalf("updated %+v", up)
			}
			in.GreetingMessage = ""
			_, err = s.Update(ctx, refA, first.ID, in)
			refWantField(t, err, "greetingMessage", engine.MsgRequired)
		})

		t.Run("list sorted by folded name", func(t *testing.T) {
			in := full
			in.Name, in.Color = "área técnica", "#000000"
			if _, err := s.Create(ctx, refA, in); err != nil {
				t.Fatal(err)
			}
			list, err := s.List(ctx, refA)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, q := range list {
				names = append(names, q.Name)
			}
			if len(names) != 3 || names[0] != "área técnica" || names[1] != "Atendimento Geral" || names[2] != "Suporte" {
				t.Fatalf("names %q", names)
			}
		})

		t.Run("tenant isolation", func(t *testing.T) {
			_, err := s.Get(ctx, refB, first.ID)
			refWantCode(t, err, engine.ErrNoQueueFound)
			_, err = s.Update(ctx, refB, first.ID, full)
			refWantCode(t, err, engine.ErrNoQueueFound)
			_, err = s.Update(ctx, refB, first.ID, engine.QueueInput{})
			refWantCode(t, err, engine.ErrNoQueueFound)
			refWantCode(t, s.Delete(ctx, refB, first.ID), engine.ErrNoQueueFound)
			list, err := s.List(ctx, refB)
			if err != nil || len(list) != 1 || list[0].Name != "Outra" {
				t.Fatalf("tenant B sees %+v %v", list, err)
			}
			if got, err := s.Get(ctx, refA, first.ID); err != nil || got.Name != "Suporte" {
				t.Fatalf("A's queue %+v %v", got, err)
			}
		})

		t.Run("delete", func(t *testing.T) {
			if err := s.Delete(ctx, refA, first.ID); err != nil {
				t.Fatal(err)
			}
			_, err := s.Get(ctx, refA, first.ID)
			refWantCode(t, err, engine.ErrNoQueueFound)
			refWantCode(t, s.Delete(ctx, refA, first.ID), engine.ErrNoQueueFound)
			// Its colour is free again.
			in := full
			in.Color = "#f57c00"
			if _, err := s.Create(ctx, refA, in); err != nil {
				t.Fatal(err)
			}
		})
	})
}
