package store_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
)

func TestTagStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		refSeedCompanies(t, d)
		s := store.NewTags(d, refClock)

		vip, created, err := s.Create(ctx, refA, engine.TagInput{Name: " VIP ", Color: "#FFD700"})
		if err != nil || !created || vip.Name != "VIP" || vip.Color != "#ffd700" || vip.CompanyID != refA {
			t.Fatalf("create %+v %v %v", vip, created, err)
		}

		t.Run("existing name returns the tag", func(t *testing.T) {
			again, created, err := s.Create(ctx, refA, engine.TagInput{Name: "vip", Color: "#000000"})
			if err != nil || created || again != vip {
				t.Fatalf("got %+v created %v err %v, want %+v", again, created, err, vip)
			}
		})

		t.Run("default colour from palette", func(t *testing.T) {
			a, _, err := s.Create(ctx, refA, engine.TagInput{Name: "Urgente"})
			if err != nil || !slices.Contains(store.TagPalette, a.Color) {
				t.Fatalf("%+v %v", a, err)
			}
			b, _, err := s.Create(ctx, refB, engine.TagInput{Name: "URGENTE"})
			if err != nil || b.Color != a.Color || b.ID == a.ID {
				t.Fatalf("same name, other tenant: %+v vs %+v, %v", b, a, err)
			}
		})

		t.Run("validation", func(t *testing.T) {
			for _, tc := range []struct {
				in    engine.TagInput
				field string
				msg   string
			}{
				{engine.TagInput{Name: "  "}, "name", engine.MsgRequired},
				{engine.TagInput{Name: strings.Repeat("x", 51)}, "name", engine.MsgTooLong},
				{engine.TagInput{Name: "ok", Color: "red"}, "color", engine.MsgInvalidColor},
				{engine.TagInput{Name: "a\nb"}, "name", engine.MsgInvalidValue},
			} {
				_, _, err := s.Create(ctx, refA, tc.in)
				refWantField(t, err, tc.field, tc.msg)
			}
		})

		t.Run("concurrent creates share one row", func(t *testing.T) {
			var wg sync.WaitGroup
			var mu sync.Mutex
			ids := map[engine.ID]bool{}
			createdCount := 0
			for range 12 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					tag, created, err := s.Create(ctx, refA, engine.TagInput{Name: "Novo cliente"})
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					defer mu.Unlock()
					ids[tag.ID] = true
					if created {
						createdCount++
					}
				}()
			}
			wg.Wait()
			if len(ids) != 1 || createdCount != 1 {
				t.Fatalf("ids %v, %d created", ids, createdCount)
			}
		})

		t.Run("list and search", func(t *testing.T) {
			if _, _, err := s.Create(ctx, refA, engine.TagInput{Name: "Pós-venda"}); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				search string
				want   []string
			}{
				{"", []string{"Novo cliente", "Pós-venda", "Urgente", "VIP"}},
				{"pos", []string{"Pós-venda"}},
				{"ENTE", []string{"Novo cliente", "Urgente"}},
				{"%", nil},
				{"'; DELETE FROM tags; --", nil},
				{strings.Repeat("v", 10000), nil},
			} {
				list, err := s.List(ctx, refA, tc.search)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, tag := range list {
					got = append(got, tag.Name)
				}
				if !slices.Equal(got, tc.want) {
					t.Fatalf("search %.20q: got %q want %q", tc.search, got, tc.want)
				}
			}
		})

		t.Run("update", func(t *testing.T) {
			up, err := s.Update(ctx, refA, vip.ID, engine.TagInput{Name: "VIP Ouro"})
			if err != nil || up.Name != "VIP Ouro" || up.Color != "#ffd700" {
				t.Fatalf("rename keeps colour: %+v %v", up, err)
			}
			up, err = s.Update(ctx, refA, vip.ID, engine.TagInput{Name: "vip ouro", Color: "#00FF00"})
			if err != nil || up.Name != "vip ouro" || up.Color != "#00ff00" {
				t.Fatalf("recase and recolour: %+v %v", up, err)
			}
			_, err = s.Update(ctx, refA, vip.ID, engine.TagInput{Name: "URGENTE"})
			refWantField(t, err, "name", engine.MsgAlreadyExists)
		})

		t.Run("tenant isolation", func(t *testing.T) {
			_, err := s.Get(ctx, refB, vip.ID)
			refWantCode(t, err, engine.ErrNoTagFound)
			_, err = s.Update(ctx, refB, vip.ID, engine.TagInput{Name: "x"})
			refWantCode(t, err, engine.ErrNoTagFound)
			refWantCode(t, s.Delete(ctx, refB, vip.ID), engine.ErrNoTagFound)
			list, err := s.List(ctx, refB, "")
			if err != nil || len(list) != 1 || list[0].Name != "URGENTE" {
				t.Fatalf("tenant B sees %+v %v", list, err)
			}
		})

		t.Run("delete", func(t *testing.T) {
			if err := s.Delete(ctx, refA, vip.ID); err != nil {
				t.Fatal(err)
			}
			_, err := s.Get(ctx, refA, vip.ID)
			refWantCode(t, err, engine.ErrNoTagFound)
			refWantCode(t, s.Delete(ctx, refA, vip.ID), engine.ErrNoTagFound)
		})
	})
}
