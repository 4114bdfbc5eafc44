package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
	httpapi "atende/transport/http"
	"atende/transport/media"
)

type catalogPage struct {
	Catalog []engine.CatalogItem `json:"catalog"`
	Count   int                  `json:"count"`
	HasMore bool                 `json:"hasMore"`
}

// catalogEnv is an env with the catalog store and a media store wired.
type catalogEnv struct {
	*env
	catalog *store.Catalog
	media   *media.Store
}

func eachCatalogEnv(t *testing.T, fn func(t *testing.T, e *catalogEnv)) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ce := &catalogEnv{}
		ce.env = newEnv(t, d, withDeps(func(e *env, deps *httpapi.Deps) {
			ms, err := media.New(media.Config{Dir: t.TempDir(), Secret: testSecret, MaxImage: testMaxImage, BaseURL: "/media"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ms.Close() })
			ce.catalog = store.NewCatalog(d, e.clock)
			deps.Media, ce.media = ms, ms
			deps.Catalog = ce.catalog
		}))
		fn(t, ce)
	})
}

func (e *catalogEnv) upload(tok string, parts ...formPart) resp {
	e.t.Helper()
	body, ct := multipartBody(e.t, parts...)
	return e.do(req{method: "POST", path: "/catalog/upload", token: tok, body: body, header: map[string]string{"Content-Type": ct}})
}

func (e *catalogEnv) wantEvent(t *testing.T, company engine.ID, name, action string) map[string]any {
	t.Helper()
	evs := e.pub.take()
	if len(evs) != 1 || evs[0].Company != company || evs[0].Name != name || evs[0].Payload["action"] != action {
		t.Fatalf("events %+v, want one %q %q for company %d", evs, name, action, company)
	}
	return evs[0].Payload
}

func TestCatalogRoutes(t *testing.T) {
	eachCatalogEnv(t, func(t *testing.T, e *catalogEnv) {
		admin, ana, admin2 := e.tok("admin"), e.tok("ana"), e.tok("admin2")
		list := func(tok, query string) catalogPage {
			t.Helper()
			r := e.get(tok, "/catalog"+query)
			r.wantStatus(t, http.StatusOK)
			var p catalogPage
			r.json(t, &p)
			return p
		}

		// Permissions: only the business section's profiles (admin, super) write.
		for profile, local := range refProfiles {
			tok := e.tok(local)
			r := e.post(tok, "/categories", map[string]any{"categoryName": "perm " + profile})
			if engine.Can(profile, engine.ActManageCatalog) != (profile == engine.ProfileAdmin || profile == engine.ProfileSuper) {
				t.Fatalf("%s: catalog:manage grant is wrong", profile)
			}
			if profile == engine.ProfileAdmin || profile == engine.ProfileSuper {
				r.wantStatus(t, http.StatusCreated)
				e.wantEvent(t, co1, "category", "create")
			} else {
				r.wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
				e.post(tok, "/catalog", map[string]any{"itemName": "x"}).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
				e.upload(tok, formPart{name: "file", fileName: "a.png", data: pngFile}).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			}
		}
		e.get("", "/catalog").wantErr(t, http.StatusUnauthorized, engine.ErrSessionExpired)

		r := e.post(admin, "/categories", map[string]any{"categoryName": "Pizzas", "template": "{{itemName}} por {{baseValue}}"})
		r.wantStatus(t, http.StatusCreated)
		var pizzas engine.Category
		r.json(t, &pizzas)
		e.wantEvent(t, co1, "category", "create")
		e.post(admin, "/categories", map[string]any{"categoryName": "PIZZAS"}).wantErr(t, http.StatusConflict, engine.ErrCategoryNameDuplicated)
		e.get(admin2, fmt.Sprintf("/categories/%d", pizzas.ID)).wantErr(t, http.StatusNotFound, engine.ErrNoCategoryFound)
		e.put(admin2, fmt.Sprintf("/categories/%d", pizzas.ID), map[string]any{"categoryName": "x"}).wantErr(t, http.StatusNotFound, engine.ErrNoCategoryFound)
		e.del(admin2, fmt.Sprintf("/categories/%d", pizzas.ID)).wantErr(t, http.StatusNotFound, engine.ErrNoCategoryFound)
		e.get(admin, "/categories/abc").wantErr(t, http.StatusNotFound, engine.ErrNoCategoryFound)
		e.pub.take()

		// Image upload: an image is kept, anything else refused as message media are.
		up := e.upload(admin, formPart{name: "file", fileName: "pizza.png", contentType: "image/png", data: pngFile})
		up.wantStatus(t, http.StatusCreated)
		var img struct{ ProductImg, ProductImgURL string }
		up.json(t, &img)
		if !strings.HasPrefix(img.ProductImg, "1/") || !strings.HasPrefix(img.ProductImgURL, "/media/") {
			t.Fatalf("upload answered %s", up.Body)
		}
		e.upload(admin, formPart{name: "file", fileName: "menu.pdf", contentType: "image/png", data: pdfFile}).
			wantErr(t, http.StatusUnsupportedMediaType, engine.ErrMediaTypeNotAllowed)
		e.upload(admin, formPart{name: "file", fileName: "x.png", contentType: "image/png", data: htmlFile}).
			wantErr(t, http.StatusUnsupportedMediaType, engine.ErrMediaTypeNotAllowed)
		e.upload(admin, formPart{name: "other", data: []byte("x")}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		e.do(req{method: "POST", path: "/catalog/upload", token: admin, body: "not multipart"}).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
		// A stored document cannot be named as the product image.
		doc, err := e.media.Save(context.Background(), co1, bytes.NewReader(pdfFile), "menu.pdf", "application/pdf")
		if err != nil {
			t.Fatal(err)
		}

		r = e.post(admin, "/catalog", map[string]any{"itemName": "Calabresa", "categoryId": pizzas.ID, "baseValue": 45.9,
			"deliveryValue": 5, "productImg": img.ProductImg, "userData1": "borda", "pax": 2, "unitName": "un"})
		r.wantStatus(t, http.StatusCreated)
		var calabresa engine.CatalogItem
		r.json(t, &calabresa)
		if calabresa.Message != "Calabresa por R$\u00a045,90" || calabresa.UserData1 != "borda" || calabresa.Category == nil ||
			!strings.HasPrefix(calabresa.ProductImgURL, "/media/") || calabresa.CompanyID != co1 {
			t.Fatalf("created %s", r.Body)
		}
		e.wantEvent(t, co1, "catalog", "create")
		e.post(admin, "/catalog", map[string]any{"itemName": " calabresa "}).wantErr(t, http.StatusConflict, engine.ErrCatalogDuplicated)
		for _, bad := range []string{"2/" + strings.TrimPrefix(img.ProductImg, "1/"), "1/nope.png", "1/../x", doc.Path, "file:///etc/passwd"} {
			b := e.post(admin, "/catalog", map[string]any{"itemName": "Mussarela", "productImg": bad}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			if b.Fields["productImg"] != engine.MsgInvalidValue {
				t.Fatalf("productImg %q: %+v", bad, b)
			}
		}
		e.post(admin, "/catalog", map[string]any{"itemName": "Mussarela", "categoryId": 999999}).wantErr(t, http.StatusNotFound, engine.ErrNoCategoryFound)
		e.post(admin, "/catalog", map[string]any{"itemName": "Mussarela", "baseValue": "dez"}).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
		e.wantNoEventCatalog(t)

		// Any profile reads and searches; '#' is dropped; tenant B sees nothing.
		if p := list(ana, "?searchParam="+url.QueryEscape("#calab")); p.Count != 1 || p.Catalog[0].ID != calabresa.ID || p.Catalog[0].ProductImgURL == "" {
			t.Fatalf("ana's search: %+v", p)
		}
		if p := list(ana, "/?searchParam=pizzas"); p.Count != 1 {
			t.Fatalf("search by category: %+v", p)
		}
		if p := list(admin2, ""); p.Count != 0 || len(p.Catalog) != 0 {
			t.Fatalf("tenant B sees %+v", p)
		}
		if p := list(ana, "?searchParam="+url.QueryEscape("' OR 1=1 --")); p.Count != 0 {
			t.Fatalf("injection matched %+v", p)
		}
		e.get(ana, "/catalog?searchParam="+strings.Repeat("é", 10000)).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		e.get(ana, "/catalog?pageNumber=0").wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		e.get(ana, "/catalog?activeOnly=maybe").wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		e.get(admin2, fmt.Sprintf("/catalog/%d", calabresa.ID)).wantErr(t, http.StatusNotFound, engine.ErrNoCatalogFound)
		e.put(admin2, fmt.Sprintf("/catalog/%d", calabresa.ID), map[string]any{"itemName": "roubo"}).wantErr(t, http.StatusNotFound, engine.ErrNoCatalogFound)
		e.del(admin2, fmt.Sprintf("/catalog/%d", calabresa.ID)).wantErr(t, http.StatusNotFound, engine.ErrNoCatalogFound)
		e.get(ana, "/catalog/0").wantErr(t, http.StatusNotFound, engine.ErrNoCatalogFound)

		r = e.put(admin, fmt.Sprintf("/catalog/%d", calabresa.ID), map[string]any{"itemName": "Calabresa grande", "categoryId": pizzas.ID, "baseValue": 60})
		r.wantStatus(t, http.StatusOK)
		if p := e.wantEvent(t, co1, "catalog", "update"); p["item"].(map[string]any)["message"] != "Calabresa grande por R$\u00a060,00" {
			t.Fatalf("update event %+v", p)
		}
		e.del(admin, fmt.Sprintf("/catalog/%d", calabresa.ID)).wantStatus(t, http.StatusNoContent)
		e.wantEvent(t, co1, "catalog", "delete")
		e.del(admin, fmt.Sprintf("/catalog/%d", calabresa.ID)).wantErr(t, http.StatusNotFound, engine.ErrNoCatalogFound)
		e.del(admin, fmt.Sprintf("/categories/%d", pizzas.ID)).wantStatus(t, http.StatusNoContent)
		e.wantEvent(t, co1, "category", "delete")
	})
}

// TestCatalogDuplicateRace: concurrent POSTs of one item name answer one 201 and the
// rest ERR_CATALOG_DUPLICATED 409.
func TestCatalogDuplicateRace(t *testing.T) {
	eachCatalogEnv(t, func(t *testing.T, e *catalogEnv) {
		admin := e.tok("admin")
		const n = 6
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = e.post(admin, "/catalog", map[string]any{"itemName": "Combo Família"}).Status
			}()
		}
		wg.Wait()
		created := 0
		for _, s := range statuses {
			switch s {
			case http.StatusCreated:
				created++
			case http.StatusConflict:
			default:
				t.Fatalf("statuses %v", statuses)
			}
		}
		if created != 1 {
			t.Fatalf("%d created, statuses %v", created, statuses)
		}
	})
}

func (e *catalogEnv) wantNoEventCatalog(t *testing.T) {
	t.Helper()
	if evs := e.pub.take(); len(evs) != 0 {
		t.Fatalf("unexpected events %+v", evs)
	}
}
