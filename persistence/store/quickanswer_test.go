package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
)

func TestQuickAnswerStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		refSeedCompanies(t, d)
		s := store.NewQuickAnswers(d, refClock)

		ola, err := s.Create(ctx, refA, engine.QuickAnswerInput{Shortcut: "/ola", Message: "Olá! Como posso ajudar?\nAbraço."})
		if err != nil || ola.Shortcut != "ola" || ola.Message != "Olá! Como posso ajudar?\nAbraço." || ola.CompanyID != refA {
			t.Fatalf("create %+v %v", ola, err)
		}
		for _, in := range []engine.QuickAnswerInput{
			{Shortcut: "Horário", Message: "Atendemos das 8h às 18h."},
			{Shortcut: "pix", Message: "Nossa chave PIX é o CNPJ."},
			{Shortcut: "100%", Message: "Garantia total."},
		} {
			if _, err := s.Create(ctx, refA, in); err != nil {
				t.Fatal(err)
			}
		}

		t.Run("validation", func(t *testing.T) {
			for _, tc := range []struct {
				in    engine.QuickAnswerInput
				field string
				msg   string
			}{
				{engine.QuickAnswerInput{Message: "x"}, "shortcut", engine.MsgRequired},
				{engine.QuickAnswerInput{Shortcut: "/", Message: "x"}, "shortcut", engine.MsgRequired},
				{engine.QuickAnswerInput{Shortcut: "x"}, "message", engine.MsgRequired},
				{engine.QuickAnswerInput{Shortcut: strings.Repeat("s", 51), Message: "x"}, "shortcut", engine.MsgTooLong},
				{engine.QuickAnswerInput{Shortcut: "s", Message: strings.Repeat("m", 4097)}, "message", engine.MsgTooLong},
			} {
				_, err := s.Create(ctx, refA, tc.in)
				refWantField(t, err, tc.field, tc.msg)
			}
		})

		t.Run("search", func(t *testing.T) {
			for _, tc := range []struct {
				search string
				want   []string
			}{
				{"", []string{"100%", "Horário", "ola", "pix"}},
				{"/ol", []string{"ola"}},
				{"HORARIO", []string{"Horário"}},
				{"às 18h", []string{"Horário"}},
				{"abraco", []string{"ola"}},
				{"%", []string{"100%"}},
				{"cnpj", []string{"pix"}},
				{"'; DROP TABLE quick_answers; --", nil},
				{strings.Repeat("é", 10000), nil},
			} {
				page, count, more, err := s.List(ctx, refA, engine.QuickAnswerQuery{Search: tc.search})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, a := range page {
					got = append(got, a.Shortcut)
				}
				if !slices.Equal(got, tc.want) || count != len(tc.want) || more {
					t.Fatalf("search %.20q: got %q count %d more %v, want %q", tc.search, got, count, more, tc.want)
				}
			}
		})

		t.Run("paging", func(t *testing.T) {
			for i := range 30 {
				if _, err := s.Create(ctx, refB, engine.QuickAnswerInput{Shortcut: fmt.Sprintf("r%02d", i), Message: "m"}); err != nil {
					t.Fatal(err)
				}
			}
			p1, count, more, err := s.List(ctx, refB, engine.QuickAnswerQuery{})
			if err != nil || len(p1) != engine.QuickAnswerPageSize || count != 30 || !more || p1[0].Shortcut != "r00" {
				t.Fatalf("page 1: %d rows, count %d, more %v, %v", len(p1), count, more, err)
			}
			p2, _, more, err := s.List(ctx, refB, engine.QuickAnswerQuery{Offset: engine.QuickAnswerPageSize})
			if err != nil || len(p2) != 10 || more || p2[0].Shortcut != "r20" {
				t.Fatalf("page 2: %d rows, more %v, %v", len(p2), more, err)
			}
		})

		t.Run("update", func(t *testing.T) {
			up, err := s.Update(ctx, refA, ola.ID, engine.QuickAnswerInput{Shortcut: "oi", Message: "Oi!"})
			if err != nil || up.Shortcut != "oi" || up.Message != "Oi!" || up.ID != ola.ID {
				t.Fatalf("%+v %v", up, err)
			}
			_, err = s.Update(ctx, refA, ola.ID, engine.QuickAnswerInput{Shortcut: "oi"})
			refWantField(t, err, "message", engine.MsgRequired)
			page, _, _, err := s.List(ctx, refA, engine.QuickAnswerQuery{Search: "abraco"})
			if err != nil || len(page) != 0 {
				t.Fatalf("search column not updated: %+v %v", page, err)
			}
		})

		t.Run("tenant isolation", func(t *testing.T) {
			_, err := s.Get(ctx, refB, ola.ID)
			refWantCode(t, err, engine.ErrNoQuickAnswerFound)
			_, err = s.Update(ctx, refB, ola.ID, engine.QuickAnswerInput{Shortcut: "x", Message: "y"})
			refWantCode(t, err, engine.ErrNoQuickAnswerFound)
			refWantCode(t, s.Delete(ctx, refB, ola.ID), engine.ErrNoQuickAnswerFound)
			page, count, _, err := s.List(ctx, refB, engine.QuickAnswerQuery{Search: "oi"})
			if err != nil || count != 0 || len(page) != 0 {
				t.Fatalf("tenant B sees %+v %v", page, err)
			}
		})

		t.Run("delete", func(t *testing.T) {
			if err := s.Delete(ctx, refA, ola.ID); err != nil {
				t.Fatal(err)
			}
			_, err := s.Get(ctx, refA, ola.ID)
			refWantCode(t, err, engine.ErrNoQuickAnswerFound)
		})
	})
}
