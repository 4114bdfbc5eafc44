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

func TestAnnouncementStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		refSeedCompanies(t, d)
		s := store.NewAnnouncements(d, refClock)
		off := false

		ferias, err := s.Create(ctx, refA, engine.AnnouncementInput{Title: " Férias coletivas ", Text: "De 20/12 a 05/01.\nBoas festas!", Priority: 1})
		if err != nil || ferias.Title != "Férias coletivas" || ferias.Priority != 1 || !ferias.Status || ferias.CompanyID != refA ||
			ferias.MediaPath != "" || !ferias.CreatedAt.Equal(refClock.Now().Truncate(1000)) {
			t.Fatalf("create %+v %v", ferias, err)
		}
		for _, in := range []engine.AnnouncementInput{
			{Title: "Sistema novo", Text: "Treinamento às 14h.", Priority: 2},
			{Title: "Rascunho", Text: "não publicado", Status: &off},
			{Title: "100% de meta", Text: "Parabéns!"},
		} {
			if _, err := s.Create(ctx, refA, in); err != nil {
				t.Fatal(err)
			}
		}
		titles := func(page []engine.Announcement) []string {
			var out []string
			for _, a := range page {
				out = append(out, a.Title)
			}
			return out
		}

		t.Run("validation", func(t *testing.T) {
			for _, tc := range []struct {
				in    engine.AnnouncementInput
				field string
				msg   string
			}{
				{engine.AnnouncementInput{Text: "x"}, "title", engine.MsgRequired},
				{engine.AnnouncementInput{Title: "  ", Text: "x"}, "title", engine.MsgRequired},
				{engine.AnnouncementInput{Title: "x"}, "text", engine.MsgRequired},
				{engine.AnnouncementInput{Title: strings.Repeat("t", 101), Text: "x"}, "title", engine.MsgTooLong},
				{engine.AnnouncementInput{Title: "a\nb", Text: "x"}, "title", engine.MsgInvalidValue},
				{engine.AnnouncementInput{Title: "t", Text: strings.Repeat("m", 4097)}, "text", engine.MsgTooLong},
				{engine.AnnouncementInput{Title: "t", Text: "x", Priority: 4}, "priority", engine.MsgInvalidValue},
				{engine.AnnouncementInput{Title: "t", Text: "x", Priority: -1}, "priority", engine.MsgInvalidValue},
			} {
				_, err := s.Create(ctx, refA, tc.in)
				refWantField(t, err, tc.field, tc.msg)
			}
		})

		t.Run("list newest first, search, active only", func(t *testing.T) {
			for _, tc := range []struct {
				q    engine.AnnouncementQuery
				want []string
			}{
				{engine.AnnouncementQuery{}, []string{"100% de meta", "Rascunho", "Sistema novo", "Férias coletivas"}},
				{engine.AnnouncementQuery{ActiveOnly: true}, []string{"100% de meta", "Sistema novo", "Férias coletivas"}},
				{engine.AnnouncementQuery{Search: "FERIAS"}, []string{"Férias coletivas"}},
				{engine.AnnouncementQuery{Search: "as 14h"}, []string{"Sistema novo"}},
				{engine.AnnouncementQuery{Search: "publicado"}, []string{"Rascunho"}},
				{engine.AnnouncementQuery{Search: "publicado", ActiveOnly: true}, nil},
				{engine.AnnouncementQuery{Search: "%"}, []string{"100% de meta"}},
				{engine.AnnouncementQuery{Search: "'; DROP TABLE announcements; --"}, nil},
				{engine.AnnouncementQuery{Search: strings.Repeat("é", 10000)}, nil},
			} {
				page, count, more, err := s.List(ctx, refA, tc.q)
				if err != nil {
					t.Fatal(err)
				}
				if got := titles(page); !slices.Equal(got, tc.want) || count != len(tc.want) || more {
					t.Fatalf("%+.20v: got %q count %d more %v, want %q", tc.q, got, count, more, tc.want)
				}
			}
			_, _, _, err := s.List(ctx, refA, engine.AnnouncementQuery{Offset: -1})
			refWantField(t, err, "pageNumber", engine.MsgInvalidValue)
		})

		t.Run("paging", func(t *testing.T) {
			for i := range 25 {
				if _, err := s.Create(ctx, refB, engine.AnnouncementInput{Title: fmt.Sprintf("a%02d", i), Text: "m"}); err != nil {
					t.Fatal(err)
				}
			}
			p1, count, more, err := s.List(ctx, refB, engine.AnnouncementQuery{})
			if err != nil || len(p1) != engine.AnnouncementPageSize || count != 25 || !more || p1[0].Title != "a24" {
				t.Fatalf("page 1: %d rows, count %d, more %v, %v", len(p1), count, more, err)
			}
			p2, _, more, err := s.List(ctx, refB, engine.AnnouncementQuery{Offset: engine.AnnouncementPageSize})
			if err != nil || len(p2) != 5 || more || p2[4].Title != "a00" {
				t.Fatalf("page 2: %d rows, more %v, %v", len(p2), more, err)
			}
		})

		t.Run("update", func(t *testing.T) {
			_, up, err := s.Update(ctx, refA, ferias.ID, engine.AnnouncementInput{Title: "Recesso", Text: "Voltamos dia 6.", Priority: 2})
			if err != nil || up.Title != "Recesso" || up.Priority != 2 || !up.Status || up.ID != ferias.ID {
				t.Fatalf("%+v %v", up, err)
			}
			_, up, err = s.Update(ctx, refA, ferias.ID, engine.AnnouncementInput{Title: "Recesso", Text: "Voltamos dia 6.", Status: &off})
			if err != nil || up.Status || up.Priority != engine.AnnouncementLow {
				t.Fatalf("deactivate %+v %v", up, err)
			}
			_, _, err = s.Update(ctx, refA, ferias.ID, engine.AnnouncementInput{Title: "x"})
			refWantField(t, err, "text", engine.MsgRequired)
			page, _, _, err := s.List(ctx, refA, engine.AnnouncementQuery{Search: "ferias"})
			if err != nil || len(page) != 0 {
				t.Fatalf("search column not updated: %+v %v", page, err)
			}
		})

		t.Run("tenant isolation", func(t *testing.T) {
			_, err := s.Get(ctx, refB, ferias.ID)
			refWantCode(t, err, engine.ErrNotFound)
			_, _, err = s.Update(ctx, refB, ferias.ID, engine.AnnouncementInput{Title: "x", Text: "y"})
			refWantCode(t, err, engine.ErrNotFound)
			refWantCode(t, s.Delete(ctx, refB, ferias.ID), engine.ErrNotFound)
			page, count, _, err := s.List(ctx, refB, engine.AnnouncementQuery{Search: "recesso"})
			if err != nil || count != 0 || len(page) != 0 {
				t.Fatalf("tenant B sees %+v %v", page, err)
			}
			if a, err := s.Get(ctx, refA, ferias.ID); err != nil || a.Title != "Recesso" {
				t.Fatalf("tenant A's row changed: %+v %v", a, err)
			}
		})

		t.Run("delete", func(t *testing.T) {
			if err := s.Delete(ctx, refA, ferias.ID); err != nil {
				t.Fatal(err)
			}
			_, err := s.Get(ctx, refA, ferias.ID)
			refWantCode(t, err, engine.ErrNotFound)
		})
	})
}

// An attachment is stored with the row, kept by an update without one, replaced, and
// removed by a zero AnnouncementMedia; Update answers the row before the change.
func TestAnnouncementMedia(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		refSeedCompanies(t, d)
		s := store.NewAnnouncements(d, refClock)
		a, err := s.Create(ctx, refA, engine.AnnouncementInput{Title: "Cardápio", Text: "Veja a imagem",
			Media: &engine.AnnouncementMedia{Path: "1/aa.png", Name: "cardápio.png"}})
		if err != nil || a.MediaPath != "1/aa.png" || a.MediaName != "cardápio.png" {
			t.Fatalf("create %+v %v", a, err)
		}
		_, kept, err := s.Update(ctx, refA, a.ID, engine.AnnouncementInput{Title: "Cardápio", Text: "novo texto"})
		if err != nil || kept.MediaPath != "1/aa.png" || kept.MediaName != "cardápio.png" {
			t.Fatalf("update without media %+v %v", kept, err)
		}
		before, after, err := s.Update(ctx, refA, a.ID, engine.AnnouncementInput{Title: "Cardápio", Text: "x",
			Media: &engine.AnnouncementMedia{Path: "1/bb.pdf", Name: "menu.pdf"}})
		if err != nil || before.MediaPath != "1/aa.png" || after.MediaPath != "1/bb.pdf" || after.MediaName != "menu.pdf" {
			t.Fatalf("replace: before %+v after %+v %v", before, after, err)
		}
		_, cleared, err := s.Update(ctx, refA, a.ID, engine.AnnouncementInput{Title: "Cardápio", Text: "x",
			Media: &engine.AnnouncementMedia{}})
		if err != nil || cleared.MediaPath != "" || cleared.MediaName != "" {
			t.Fatalf("remove %+v %v", cleared, err)
		}
	})
}
