package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/readmodel"
	"atende/persistence/redisstate"
	"atende/persistence/store"
	httpapi "atende/transport/http"
)

// supEnv is a refEnv with the wait panel's read model, the memory presence and the
// client maps' location store wired.
type supEnv struct {
	*refEnv
	pres *redisstate.MemoryPresence
}

func newSupEnv(t *testing.T, d *db.DB, opts ...func(*envOpts)) *supEnv {
	t.Helper()
	se := &supEnv{refEnv: &refEnv{}}
	opts = append(opts, withDeps(func(e *env, deps *httpapi.Deps) {
		q, err := readmodel.NewQueries(d, readmodel.Config{})
		if err != nil {
			t.Fatal(err)
		}
		se.contacts = store.NewContacts(d, e.clock)
		se.pres = redisstate.NewMemoryPresence(e.clock)
		deps.RefDeps = httpapi.RefDeps{Contacts: se.contacts, WaitPanel: q, Presence: se.pres, Locations: store.NewLocations(d)}
	}))
	// withDeps sets the body limit too; keep any cfg the caller set.
	se.env = newEnv(t, d, opts...)
	return se
}

// ticketRow inserts a ticket read-model row and counts it, as the projection would
// (a pending one waiting since updated).
func (e *supEnv) ticketRow(t *testing.T, id, company, contact, queue, user engine.ID, status, updated string) {
	t.Helper()
	pendingSince := "NULL" // pending since its last update, as if it had just entered pending
	if status == engine.StatusPending {
		pendingSince = "'" + updated + "'"
	}
	dbtest.MustExec(t, e.d, fmt.Sprintf(`INSERT INTO tickets (id, company_id, uuid, status, user_id, queue_id, contact_id, channel, created_at, updated_at, version, pending_since)
		VALUES (%d, %d, 'u%d', '%s', %d, %d, %d, 'whatsapp', '%s', '%s', 1, %s)`, id, company, id, status, user, queue, contact, updated, updated, pendingSince))
	dbtest.MustExec(t, e.d, fmt.Sprintf(`INSERT INTO ticket_counts (company_id, status, queue_id, user_id, n) VALUES (%d, '%s', %d, %d, 1)
		ON CONFLICT (company_id, status, queue_id, user_id) DO UPDATE SET n = ticket_counts.n + 1`, company, status, queue, user))
}

func (e *supEnv) contact(t *testing.T, company engine.ID, name string, extra ...engine.ExtraInfo) engine.Contact {
	t.Helper()
	c, err := e.contacts.Create(context.Background(), company, engine.ContactInput{Name: name, ExtraInfo: extra})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type panelBody struct {
	Queues []struct {
		ID          engine.ID   `json:"id"`
		Name        string      `json:"name"`
		Pending     int         `json:"pending"`
		Open        int         `json:"open"`
		Online      []engine.ID `json:"online"`
		LongestWait *struct {
			ID           engine.ID `json:"id"`
			ContactName  string    `json:"contactName"`
			WaitingSince time.Time `json:"waitingSince"`
		} `json:"longestWait"`
	} `json:"queues"`
	Attendants []struct {
		ID     engine.ID `json:"id"`
		Name   string    `json:"name"`
		Open   int       `json:"open"`
		Online bool      `json:"online"`
	} `json:"attendants"`
	Waiting []struct {
		ID engine.ID `json:"id"`
	} `json:"waiting"`
	Pending int       `json:"pending"`
	Open    int       `json:"open"`
	At      time.Time `json:"at"`
}

// GET /supervision/waitpanel: superv and upward of the tenant see its queues,
// longest waits, attendants and presence; attendants are refused; another tenant's
// tickets, users and presence never show.
func TestWaitPanelRoute(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		e := newSupEnv(t, d)
		ctx := context.Background()
		carla := e.contact(t, co1, "Carla Cliente")
		outro := e.contact(t, co2, "Outro Cliente")
		e.ticketRow(t, 1, co1, carla.ID, 11, 0, "pending", "2026-11-22T11:00:00.000000Z")
		e.ticketRow(t, 2, co1, carla.ID, 11, 0, "pending", "2026-11-22T11:30:00.000000Z")
		e.ticketRow(t, 3, co1, carla.ID, 12, e.ids["ana"], "open", "2026-11-22T11:40:00.000000Z")
		e.ticketRow(t, 4, co2, outro.ID, 21, 0, "pending", "2026-11-22T10:00:00.000000Z")
		for _, u := range []struct {
			local  string
			queues []engine.ID
		}{{"ana", []engine.ID{11}}, {"admin2", []engine.ID{21}}} {
			if err := e.pres.SetOnline(ctx, e.company(u.local), e.ids[u.local], u.queues, "node-1", time.Minute); err != nil {
				t.Fatal(err)
			}
		}

		e.get("", "/supervision/waitpanel").wantErr(t, http.StatusUnauthorized, engine.ErrSessionExpired)
		for _, local := range []string{"ana", "bruno"} {
			e.get(e.tok(local), "/supervision/waitpanel").wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		}
		for _, local := range []string{"superv", "manager", "admin", "super"} {
			r := e.get(e.tok(local), "/supervision/waitpanel")
			r.wantStatus(t, http.StatusOK)
			var got panelBody
			r.json(t, &got)
			if got.Pending != 2 || got.Open != 1 || len(got.Waiting) != 2 || got.Waiting[0].ID != 1 {
				t.Fatalf("%s: panel %+v", local, got)
			}
			if !got.At.Equal(e.clock.Now()) {
				t.Errorf("at %v, want the server clock", got.At)
			}
			// Queues by name: Suporte (12), Vendas (11).
			if len(got.Queues) != 2 || got.Queues[0].ID != 12 || got.Queues[1].ID != 11 {
				t.Fatalf("%s: queues %+v", local, got.Queues)
			}
			ven := got.Queues[1]
			if ven.Pending != 2 || ven.LongestWait == nil || ven.LongestWait.ID != 1 || ven.LongestWait.ContactName != "Carla Cliente" ||
				len(ven.Online) != 1 || ven.Online[0] != e.ids["ana"] {
				t.Errorf("%s: Vendas %+v", local, ven)
			}
			if got.Queues[0].Open != 1 || got.Queues[0].LongestWait != nil || len(got.Queues[0].Online) != 0 {
				t.Errorf("%s: Suporte %+v", local, got.Queues[0])
			}
			seen := map[string]bool{}
			for _, a := range got.Attendants {
				seen[a.Name] = true
				if a.ID == e.ids["ana"] && (!a.Online || a.Open != 1) {
					t.Errorf("%s: Ana %+v, want online with 1 open", local, a)
				}
				if a.ID != e.ids["ana"] && a.Online {
					t.Errorf("%s: %s online", local, a.Name)
				}
			}
			if len(got.Attendants) != 6 || seen["Zeca Admin"] || seen["Zilda User"] {
				t.Errorf("%s: attendants %+v", local, got.Attendants)
			}
		}
		// Tenant 2's admin sees only tenant 2.
		var other panelBody
		r := e.get(e.tok("admin2"), "/supervision/waitpanel")
		r.wantStatus(t, http.StatusOK)
		r.json(t, &other)
		if other.Pending != 1 || len(other.Waiting) != 1 || other.Waiting[0].ID != 4 || len(other.Queues) != 1 ||
			other.Queues[0].ID != 21 || len(other.Queues[0].Online) != 1 || other.Queues[0].Online[0] != e.ids["admin2"] {
			t.Errorf("tenant 2 panel %+v", other)
		}
	})
}

type mapBody struct {
	Contacts []struct {
		ContactID engine.ID `json:"contactId"`
		Name      string    `json:"name"`
		Lat       float64   `json:"lat"`
		Lng       float64   `json:"lng"`
		TicketID  engine.ID `json:"ticketId"`
	} `json:"contacts"`
	Invalid []struct {
		ContactID engine.ID `json:"contactId"`
		Value     string    `json:"value"`
	} `json:"invalid"`
	InvalidCount int       `json:"invalidCount"`
	HasMore      bool      `json:"hasMore"`
	NextCursor   engine.ID `json:"nextCursor"`
}

// GET /maps/contacts: client-map:view (superv and upward) reads its tenant's located
// contacts with their last ticket; hostile location values are reported, not drawn;
// hostile paging parameters answer ERR_VALIDATION.
func TestMapContactsRoute(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		e := newSupEnv(t, d)
		loc := func(v string) engine.ExtraInfo { return engine.ExtraInfo{Name: "location", Value: v} }
		ana := e.contact(t, co1, "Ana Mapa", loc("https://www.google.com/maps?q=-15.6014,-56.0979"))
		hostile := []string{"<img src=x onerror=alert(1)>", "NaN,NaN", "1e308,1e308", "91,0", "javascript:alert(1)",
			"https://evil.example/maps?q=1,2", "geo:1,2,3,4", strings.Repeat("9", 4000)}
		for i, v := range hostile {
			e.contact(t, co1, fmt.Sprintf("Hostil %d", i), loc(v))
		}
		e.contact(t, co2, "Outro Mapa", loc("1,2"))
		e.ticketRow(t, 7, co1, ana.ID, 11, 0, "pending", "2026-11-22T11:00:00.000000Z")

		e.get("", "/maps/contacts").wantErr(t, http.StatusUnauthorized, engine.ErrSessionExpired)
		for _, local := range []string{"ana", "bruno"} {
			e.get(e.tok(local), "/maps/contacts").wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		}
		for _, local := range []string{"superv", "manager", "admin", "super"} {
			r := e.get(e.tok(local), "/maps/contacts")
			r.wantStatus(t, http.StatusOK)
			var got mapBody
			r.json(t, &got)
			if len(got.Contacts) != 1 || got.Contacts[0].ContactID != ana.ID || got.Contacts[0].Lat != -15.6014 ||
				got.Contacts[0].Lng != -56.0979 || got.Contacts[0].TicketID != 7 || got.HasMore {
				t.Fatalf("%s: contacts %+v", local, got)
			}
			if got.InvalidCount != len(hostile) || len(got.Invalid) != len(hostile) {
				t.Errorf("%s: invalid %d %+v, want the %d hostile values", local, got.InvalidCount, got.Invalid, len(hostile))
			}
		}
		var other mapBody
		r := e.get(e.tok("admin2"), "/maps/contacts")
		r.wantStatus(t, http.StatusOK)
		r.json(t, &other)
		if len(other.Contacts) != 1 || other.Contacts[0].Name != "Outro Mapa" || other.InvalidCount != 0 {
			t.Errorf("tenant 2 map %+v", other)
		}

		tok := e.tok("admin")
		for _, q := range []string{"after=abc", "after=-1", "after=1e3", "after=%00", "after=99999999999999999999",
			"limit=0", "limit=-5", "limit=2001", "limit=x", "limit=1.5"} {
			e.get(tok, "/maps/contacts?"+q).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		}
		// Paging by cursor: one contact a page reaches the end.
		var page mapBody
		r = e.get(tok, "/maps/contacts?limit=1")
		r.wantStatus(t, http.StatusOK)
		r.json(t, &page)
		if !page.HasMore || page.NextCursor != ana.ID || len(page.Contacts) != 1 {
			t.Fatalf("first page %+v", page)
		}
		r = e.get(tok, fmt.Sprintf("/maps/contacts?after=%d&limit=2000", page.NextCursor))
		r.wantStatus(t, http.StatusOK)
		r.json(t, &page)
		if page.HasMore || len(page.Contacts) != 0 || page.InvalidCount != len(hostile) {
			t.Errorf("second page %+v", page)
		}
	})
}

// GET /maps/config: every profile reads the tile server; the app's CSP names a
// configured plain-http tile host in img-src, and nothing when none is set.
func TestMapConfigAndCSP(t *testing.T) {
	web := fstest.MapFS{"index.html": {Data: []byte(`<!doctype html><div id="root"></div>`)}}
	d := dbtest.Open(t, db.SQLite)
	e := newSupEnv(t, d, func(o *envOpts) {
		o.cfg.Web = web
		o.cfg.MapTileURL, o.cfg.MapTileAttribution = "http://{s}.tiles.local:8080/{z}/{x}/{y}.png", "© OpenStreetMap"
	})
	var cfg struct {
		TileURL     string `json:"tileUrl"`
		Attribution string `json:"attribution"`
	}
	r := e.get(e.tok("ana"), "/maps/config")
	r.wantStatus(t, http.StatusOK)
	r.json(t, &cfg)
	if cfg.TileURL != "http://{s}.tiles.local:8080/{z}/{x}/{y}.png" || cfg.Attribution != "© OpenStreetMap" {
		t.Errorf("config %+v", cfg)
	}
	page := e.do(req{method: "GET", path: "/ClientMap", header: map[string]string{"Accept": "text/html"}})
	page.wantStatus(t, http.StatusOK)
	if img := directive(page.Header.Get("Content-Security-Policy"), "img-src"); !strings.Contains(img, " http://*.tiles.local:8080") {
		t.Errorf("img-src %q lacks the tile host", img)
	}

	plain := newSupEnv(t, dbtest.Open(t, db.SQLite), func(o *envOpts) { o.cfg.Web = web })
	page = plain.do(req{method: "GET", path: "/ClientMap", header: map[string]string{"Accept": "text/html"}})
	if img := directive(page.Header.Get("Content-Security-Policy"), "img-src"); img != "img-src 'self' data: blob: https:" {
		t.Errorf("img-src without tiles %q", img)
	}
	r = plain.get(plain.tok("ana"), "/maps/config")
	r.wantStatus(t, http.StatusOK)
	r.json(t, &cfg)
	if cfg.TileURL != "" {
		t.Errorf("tile URL %q without a configured server", cfg.TileURL)
	}
}

// A tile URL that is not an http(s) template is refused at start.
func TestMapTileURLValidation(t *testing.T) {
	for _, bad := range []string{"tiles.local/{z}/{x}/{y}", "javascript:alert(1)/{z}/{x}/{y}", "https://tiles.local/{z}/{x}.png", "ftp://t/{z}/{x}/{y}"} {
		if _, err := httpapi.New(httpapi.Config{MapTileURL: bad}, httpapi.Deps{}); err == nil || !strings.Contains(err.Error(), "map tile URL") {
			t.Errorf("MapTileURL %q: err %v", bad, err)
		}
	}
}
