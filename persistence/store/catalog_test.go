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

func catalogNames(items []engine.CatalogItem) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.ItemName)
	}
	return out
}

func TestCatalogStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		refSeedCompanies(t, d)
		s := store.NewCatalog(d, refClock)

		bebidas, err := s.CreateCategory(ctx, refA, engine.CategoryInput{CategoryName: " Bebidas ", DisplayName: "Bebidas geladas",
			Template: "*{{itemName}}* ({{unitName}})\n{{baseValue}} + entrega {{deliveryValue}} = {{totalValue}} {{nada}}"})
		if err != nil || bebidas.CategoryName != "Bebidas" || !bebidas.IsActive || bebidas.Mustaccio != engine.SendImageText || bebidas.CompanyID != refA {
			t.Fatalf("create category %+v %v", bebidas, err)
		}
		sticker, err := s.CreateCategory(ctx, refA, engine.CategoryInput{CategoryName: "Sticker", Mustaccio: engine.SendImage})
		if err != nil {
			t.Fatal(err)
		}

		t.Run("category errors", func(t *testing.T) {
			_, err := s.CreateCategory(ctx, refA, engine.CategoryInput{CategoryName: "BEBÍDAS"})
			refWantCode(t, err, engine.ErrCategoryNameDuplicated)
			// Another tenant may use the same name.
			if _, err := s.CreateCategory(ctx, refB, engine.CategoryInput{CategoryName: "Bebidas"}); err != nil {
				t.Fatal(err)
			}
			_, err = s.UpdateCategory(ctx, refA, sticker.ID, engine.CategoryInput{CategoryName: "bebidas"})
			refWantCode(t, err, engine.ErrCategoryNameDuplicated)
			_, err = s.GetCategory(ctx, refB, bebidas.ID)
			refWantCode(t, err, engine.ErrNoCategoryFound)
			_, err = s.UpdateCategory(ctx, refB, bebidas.ID, engine.CategoryInput{CategoryName: "roubada"})
			refWantCode(t, err, engine.ErrNoCategoryFound)
			refWantCode(t, s.DeleteCategory(ctx, refB, bebidas.ID), engine.ErrNoCategoryFound)
			_, err = s.CreateCategory(ctx, refA, engine.CategoryInput{CategoryName: "x", Mustaccio: "fax"})
			refWantField(t, err, "mustaccio", engine.MsgInvalidValue)
			_, err = s.CreateCategory(ctx, refA, engine.CategoryInput{CategoryName: "  "})
			refWantField(t, err, "categoryName", engine.MsgRequired)
			_, err = s.CreateCategory(ctx, refA, engine.CategoryInput{CategoryName: "a\x00b"})
			refWantField(t, err, "categoryName", engine.MsgInvalidValue)
			_, err = s.CreateCategory(ctx, refA, engine.CategoryInput{CategoryName: strings.Repeat("c", 101)})
			refWantField(t, err, "categoryName", engine.MsgTooLong)
			if got, _ := s.GetCategory(ctx, refA, sticker.ID); got.CategoryName != "Sticker" {
				t.Fatalf("refused update changed the category: %+v", got)
			}
		})

		cerveja, err := s.CreateItem(ctx, refA, engine.CatalogItemInput{ItemName: "Cerveja Artesanal", Description: "IPA 500 ml",
			Manufacturer: "Cervejaria Sul", Dimensions: "7x7x20", UnitName: "garrafa", Pax: 1, CategoryID: bebidas.ID, Order: 2,
			BaseValue: 1234.5, DeliveryValue: 7.9, ProductImg: "https://cdn.example.com/ipa.png", CatalogUserData: engine.CatalogUserData{UserData1: "lote 7", UserData9: "nove"}})
		if err != nil {
			t.Fatal(err)
		}
		if cerveja.BaseValue != 1234.5 || cerveja.DeliveryValue != 7.9 || cerveja.UserData1 != "lote 7" || cerveja.UserData9 != "nove" ||
			cerveja.Category == nil || cerveja.Category.ID != bebidas.ID || len(cerveja.Categories) != 1 || cerveja.Order != 2 || cerveja.Pax != 1 {
			t.Fatalf("created item %+v", cerveja)
		}
		wantMsg := "*Cerveja Artesanal* (garrafa)\nR$\u00a01.234,50 + entrega R$\u00a07,90 = R$\u00a01.242,40 {{nada}}"
		if cerveja.Message != wantMsg {
			t.Fatalf("message %q, want %q", cerveja.Message, wantMsg)
		}
		for _, in := range []engine.CatalogItemInput{
			{ItemName: "Água", Order: 1, BaseValue: 3, CategoryID: bebidas.ID},
			{ItemName: "Joinha", CategoryID: sticker.ID, ProductImg: "1/0123abcd.webp"},
			{ItemName: "Brinde", Description: "sem categoria"},
		} {
			if _, err := s.CreateItem(ctx, refA, in); err != nil {
				t.Fatal(err)
			}
		}

		t.Run("search", func(t *testing.T) {
			for _, tc := range []struct {
				search string
				want   []string
			}{
				{"", []string{"Brinde", "Joinha", "Água", "Cerveja Artesanal"}},
				{"#cerv", []string{"Cerveja Artesanal"}},
				{"agua", []string{"Água"}},
				{"sul", []string{"Cerveja Artesanal"}},
				{"sticker", []string{"Joinha"}},
				{"@", []string{"Brinde", "Joinha", "Água", "Cerveja Artesanal"}},
				{"bebidas", []string{"Água", "Cerveja Artesanal"}},
				{"%", nil},
				{"_", nil},
				{strings.Repeat("x", 300), nil},
			} {
				got, count, _, err := s.ListItems(ctx, refA, engine.CatalogQuery{Search: tc.search})
				if err != nil || !slices.Equal(catalogNames(got), append([]string{}, tc.want...)) || count != len(tc.want) {
					t.Errorf("search %q: %v (%d) %v, want %v", tc.search, catalogNames(got), count, err, tc.want)
				}
			}
			got, _, _, _ := s.ListItems(ctx, refB, engine.CatalogQuery{})
			if len(got) != 0 {
				t.Fatalf("tenant B sees %v", catalogNames(got))
			}
			page, count, more, err := s.ListItems(ctx, refA, engine.CatalogQuery{Limit: 3, Offset: 3})
			if err != nil || count != 4 || more || len(page) != 1 {
				t.Fatalf("last page %v %d %v %v", catalogNames(page), count, more, err)
			}
			_, _, more, _ = s.ListItems(ctx, refA, engine.CatalogQuery{Limit: 3})
			if !more {
				t.Fatal("first page of 3 of 4 has no more")
			}
			_, _, _, err = s.ListItems(ctx, refA, engine.CatalogQuery{Offset: -1})
			refWantField(t, err, "pageNumber", engine.MsgInvalidValue)
		})

		t.Run("item errors", func(t *testing.T) {
			_, err := s.CreateItem(ctx, refA, engine.CatalogItemInput{ItemName: "CERVEJA  artesanal"})
			refWantCode(t, err, engine.ErrCatalogDuplicated)
			_, err = s.UpdateItem(ctx, refA, cerveja.ID, engine.CatalogItemInput{ItemName: "agua"})
			refWantCode(t, err, engine.ErrCatalogDuplicated)
			_, err = s.GetItem(ctx, refB, cerveja.ID)
			refWantCode(t, err, engine.ErrNoCatalogFound)
			_, err = s.UpdateItem(ctx, refB, cerveja.ID, engine.CatalogItemInput{ItemName: "roubado"})
			refWantCode(t, err, engine.ErrNoCatalogFound)
			refWantCode(t, s.DeleteItem(ctx, refB, cerveja.ID), engine.ErrNoCatalogFound)
			// A category of another tenant cannot be attached.
			other, _, _, _ := s.ListCategories(ctx, refB, engine.CatalogQuery{})
			_, err = s.CreateItem(ctx, refA, engine.CatalogItemInput{ItemName: "Intruso", CategoryID: other[0].ID})
			refWantCode(t, err, engine.ErrNoCategoryFound)
			for _, tc := range []struct {
				in    engine.CatalogItemInput
				field string
				msg   string
			}{
				{engine.CatalogItemInput{}, "itemName", engine.MsgRequired},
				{engine.CatalogItemInput{ItemName: "x", BaseValue: -1}, "baseValue", engine.MsgInvalidValue},
				{engine.CatalogItemInput{ItemName: "x", BaseValue: 1.234}, "baseValue", engine.MsgInvalidValue},
				{engine.CatalogItemInput{ItemName: "x", DeliveryValue: 1e12}, "deliveryValue", engine.MsgInvalidValue},
				{engine.CatalogItemInput{ItemName: "x", Pax: -2}, "pax", engine.MsgInvalidValue},
				{engine.CatalogItemInput{ItemName: "x", Order: -1}, "order", engine.MsgInvalidValue},
				{engine.CatalogItemInput{ItemName: "x", CategoryID: -1}, "categoryId", engine.MsgInvalidValue},
				{engine.CatalogItemInput{ItemName: "x", ProductImg: "javascript:alert(1)"}, "productImg", engine.MsgInvalidValue},
				{engine.CatalogItemInput{ItemName: "x", ProductImg: "1/../../etc/passwd"}, "productImg", engine.MsgInvalidValue},
				{engine.CatalogItemInput{ItemName: "x", ProductImg: "1/.."}, "productImg", engine.MsgInvalidValue},
				{engine.CatalogItemInput{ItemName: "x", ProductImg: "/etc/passwd"}, "productImg", engine.MsgInvalidValue},
				{engine.CatalogItemInput{ItemName: "x", CatalogUserData: engine.CatalogUserData{UserData5: "a\nb"}}, "userData5", engine.MsgInvalidValue},
				{engine.CatalogItemInput{ItemName: "x", Manufacturer: strings.Repeat("m", 201)}, "manufacturer", engine.MsgTooLong},
			} {
				_, err := s.CreateItem(ctx, refA, tc.in)
				refWantField(t, err, tc.field, tc.msg)
			}
			if got, _ := s.GetItem(ctx, refA, cerveja.ID); got.ItemName != "Cerveja Artesanal" || got.BaseValue != 1234.5 {
				t.Fatalf("refused update changed the item: %+v", got)
			}
		})

		t.Run("update and delete", func(t *testing.T) {
			up, err := s.UpdateItem(ctx, refA, cerveja.ID, engine.CatalogItemInput{ItemName: "Cerveja IPA", BaseValue: 10})
			if err != nil || up.ItemName != "Cerveja IPA" || up.Category != nil || up.UserData1 != "" || up.Message != "Cerveja IPA\nR$\u00a010,00" {
				t.Fatalf("update %+v %v", up, err)
			}
			if _, err := s.UpdateItem(ctx, refA, cerveja.ID, engine.CatalogItemInput{ItemName: "Cerveja IPA", CategoryID: bebidas.ID}); err != nil {
				t.Fatal(err)
			}
			// Deleting a category keeps its items, without a category.
			if err := s.DeleteCategory(ctx, refA, bebidas.ID); err != nil {
				t.Fatal(err)
			}
			got, err := s.GetItem(ctx, refA, cerveja.ID)
			if err != nil || got.CategoryID != 0 || got.Category != nil {
				t.Fatalf("item after its category went: %+v %v", got, err)
			}
			refWantCode(t, s.DeleteCategory(ctx, refA, bebidas.ID), engine.ErrNoCategoryFound)
			if err := s.DeleteItem(ctx, refA, cerveja.ID); err != nil {
				t.Fatal(err)
			}
			refWantCode(t, s.DeleteItem(ctx, refA, cerveja.ID), engine.ErrNoCatalogFound)
		})

		t.Run("active only", func(t *testing.T) {
			off := false
			if _, err := s.UpdateCategory(ctx, refA, sticker.ID, engine.CategoryInput{CategoryName: "sticker", IsActive: &off}); err != nil {
				t.Fatal(err)
			}
			got, _, _, _ := s.ListItems(ctx, refA, engine.CatalogQuery{Search: "sticker", ActiveOnly: true})
			if len(got) != 0 {
				t.Fatalf("inactive category's items listed: %v", catalogNames(got))
			}
			cats, _, _, _ := s.ListCategories(ctx, refA, engine.CatalogQuery{ActiveOnly: true})
			if len(cats) != 0 {
				t.Fatalf("inactive categories listed: %+v", cats)
			}
		})
	})
}

// TestCatalogDuplicatesConcurrent: many concurrent creations of one name (in different
// spellings) leave exactly one row; every other one answers the duplicate code.
func TestCatalogDuplicatesConcurrent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		refSeedCompanies(t, d)
		s := store.NewCatalog(d, refClock)
		const n = 8
		var wg sync.WaitGroup
		catErrs, itemErrs := make([]error, n), make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := []string{"Promoção", "promocao", "PROMOÇÃO", " Promoção "}[i%4]
				_, catErrs[i] = s.CreateCategory(ctx, refA, engine.CategoryInput{CategoryName: name})
				_, itemErrs[i] = s.CreateItem(ctx, refA, engine.CatalogItemInput{ItemName: name})
			}()
		}
		wg.Wait()
		for _, tc := range []struct {
			errs []error
			code engine.Code
		}{{catErrs, engine.ErrCategoryNameDuplicated}, {itemErrs, engine.ErrCatalogDuplicated}} {
			ok := 0
			for _, err := range tc.errs {
				switch {
				case err == nil:
					ok++
				case engine.CodeOf(err) != tc.code:
					t.Fatalf("concurrent create: %v, want nil or %s", err, tc.code)
				}
			}
			if ok != 1 {
				t.Fatalf("%d creations of one name succeeded, want 1", ok)
			}
		}
		cats, count, _, _ := s.ListCategories(ctx, refA, engine.CatalogQuery{})
		items, icount, _, _ := s.ListItems(ctx, refA, engine.CatalogQuery{})
		if count != 1 || len(cats) != 1 || icount != 1 || len(items) != 1 {
			t.Fatalf("rows after the race: %d categories, %d items", count, icount)
		}
	})
}
