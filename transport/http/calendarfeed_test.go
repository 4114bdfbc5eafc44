package httpapi_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	ics "github.com/arran4/golang-ical"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
	httpapi "atende/transport/http"
)

// calendarEnv is an env with bookings, agenda tasks and calendar links wired.
type calendarEnv struct {
	*env
	feeds    *store.CalendarFeeds
	contacts *store.Contacts
}

func eachCalendarEnv(t *testing.T, fn func(t *testing.T, e *calendarEnv)) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ce := &calendarEnv{}
		ce.env = newEnv(t, d, withDeps(func(e *env, deps *httpapi.Deps) {
			s := newTestScheduler(t, d, e.clock)
			ce.feeds, ce.contacts = store.NewCalendarFeeds(d, e.clock), store.NewContacts(d, e.clock)
			deps.RefDeps = httpapi.RefDeps{Contacts: ce.contacts, Schedules: s,
				Bookings: store.NewBookings(d, e.clock), CalendarFeeds: ce.feeds}
		}), func(o *envOpts) {
			o.cfg.Web = fstest.MapFS{"index.html": {Data: []byte("<!doctype html><div id=root></div>")}}
		})
		fn(t, ce)
	})
}

// feedPath is the path of a link's URL (the server answers it whatever the host).
func feedPath(t *testing.T, url string) string {
	t.Helper()
	i := strings.Index(url, "/ical/")
	if i < 0 || !strings.HasSuffix(url, ".ics") {
		t.Fatalf("link %q", url)
	}
	return url[i:]
}

func TestCalendarFeed(t *testing.T) {
	eachCalendarEnv(t, func(t *testing.T, e *calendarEnv) {
		ana, bruno, admin2 := e.tok("ana"), e.tok("bruno"), e.tok("admin2")
		now := e.clock.Now()

		if r := e.get(ana, "/calendar-feed"); r.Status != http.StatusOK || r.obj(t)["active"] != false {
			t.Fatalf("status before any link: %d %s", r.Status, r.Body)
		}
		e.get("", "/calendar-feed").wantErr(t, http.StatusUnauthorized, engine.ErrSessionExpired)

		// The agenda: a booking of ana's, a cancelled one, a task, and another
		// tenant's booking that must not show.
		mk := func(tok, desc, date string) engine.Booking {
			r := e.post(tok, "/agenda/bookings", map[string]any{"description": desc, "date": date, "time": "09:30", "bookingName": desc})
			r.wantStatus(t, http.StatusCreated)
			var b engine.Booking
			r.json(t, &b)
			return b
		}
		day := now.Add(48 * time.Hour).Format("2006-01-02")
		kept := mk(ana, "Consulta de retorno", day)
		mk(admin2, "Reunião de outra empresa", day)
		maria, err := e.contacts.Create(context.Background(), co1, engine.ContactInput{Name: "Maria Silva", Number: "5565999990009"})
		if err != nil {
			t.Fatal(err)
		}
		e.post(ana, "/agenda", map[string]any{"taskName": "Ligar para a Maria", "message": "Retornar a ligação combinada", "contactId": maria.ID,
			"sendAt": now.Add(3 * time.Hour).Format(time.RFC3339)}).wantStatus(t, http.StatusCreated)

		r := e.post(ana, "/calendar-feed", nil)
		r.wantStatus(t, http.StatusCreated)
		var issued struct {
			Active   bool      `json:"active"`
			IssuedAt time.Time `json:"issuedAt"`
			URL      string    `json:"url"`
		}
		r.json(t, &issued)
		if !issued.Active || !issued.IssuedAt.Equal(now.Truncate(time.Microsecond)) {
			t.Fatalf("issued %+v", issued)
		}
		path := feedPath(t, issued.URL)
		secret := strings.TrimSuffix(strings.TrimPrefix(path, "/ical/"), ".ics")
		var stored int
		if err := e.d.SQL.QueryRow(`SELECT count(*) FROM calendar_feeds WHERE token_hash = $1`, secret).Scan(&stored); err != nil || stored != 0 {
			t.Fatal("the link's secret is stored as it is")
		}
		if st := e.get(ana, "/calendar-feed").obj(t); st["active"] != true || st["url"] != nil {
			t.Fatalf("status after issue: %v (the link must not be shown again)", st)
		}

		// As a browser opening the link asks: the calendar, not the app's page.
		feed := e.do(req{method: "GET", path: path, header: map[string]string{"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}})
		feed.wantStatus(t, http.StatusOK)
		if ct := feed.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/calendar") {
			t.Fatalf("content type %q", ct)
		}
		cal, err := ics.ParseCalendar(bytes.NewReader(feed.Body))
		if err != nil {
			t.Fatalf("parse feed: %v\n%s", err, feed.Body)
		}
		events := map[string]*ics.VEvent{}
		for _, ev := range cal.Events() {
			events[ev.GetProperty(ics.ComponentPropertySummary).Value] = ev
		}
		if len(events) != 2 || events["Reunião de outra empresa"] != nil {
			t.Fatalf("events %v, want ana's booking and task only\n%s", events, feed.Body)
		}
		booking := events["Consulta de retorno"]
		if booking == nil {
			t.Fatalf("no booking in\n%s", feed.Body)
		}
		if start, err := booking.GetStartAt(); err != nil || !start.Equal(kept.BookingTzidFrom) {
			t.Fatalf("booking starts %v (%v), want %v", start, err, kept.BookingTzidFrom)
		}
		task := events["Ligar para a Maria"]
		if task == nil || task.GetProperty(ics.ComponentPropertyDescription).Value != "Retornar a ligação combinada" {
			t.Fatalf("task %v", task)
		}
		if start, err := task.GetStartAt(); err != nil || !start.Equal(now.Add(3*time.Hour).Truncate(time.Second)) {
			t.Fatalf("task starts %v (%v)", start, err)
		}
		if !strings.Contains(string(feed.Body), "X-WR-TIMEZONE:"+engine.TenantTimeZone) {
			t.Fatalf("no tenant zone in\n%s", feed.Body)
		}

		t.Run("hostile and unknown links", func(t *testing.T) {
			for _, p := range []string{"/ical/" + secret, "/ical/.ics", "/ical/nope.ics", "/ical/" + secret + "x.ics",
				"/ical/" + strings.Repeat("A", 5000) + ".ics", "/ical/%00.ics", "/ical/'%20OR%201=1--.ics"} {
				e.get("", p).wantErr(t, http.StatusNotFound, engine.ErrNoCalendarFeed)
			}
		})

		t.Run("links are per user and a new one revokes the old", func(t *testing.T) {
			rb := e.post(bruno, "/calendar-feed", nil)
			rb.wantStatus(t, http.StatusCreated)
			var b struct {
				URL string `json:"url"`
			}
			rb.json(t, &b)
			e.get("", feedPath(t, b.URL)).wantStatus(t, http.StatusOK)

			var again struct {
				URL string `json:"url"`
			}
			e.post(ana, "/calendar-feed", nil).json(t, &again)
			if again.URL == issued.URL {
				t.Fatal("a new link has the old secret")
			}
			e.get("", path).wantErr(t, http.StatusNotFound, engine.ErrNoCalendarFeed)
			e.get("", feedPath(t, again.URL)).wantStatus(t, http.StatusOK)
			e.get("", feedPath(t, b.URL)).wantStatus(t, http.StatusOK) // bruno's is untouched

			if r := e.del(ana, "/calendar-feed"); r.Status != http.StatusOK || r.obj(t)["active"] != false {
				t.Fatalf("revoke: %d %s", r.Status, r.Body)
			}
			e.get("", feedPath(t, again.URL)).wantErr(t, http.StatusNotFound, engine.ErrNoCalendarFeed)

			// A deleted user's link dies with the user.
			if err := e.users.Delete(context.Background(), co1, e.ids["bruno"]); err != nil {
				t.Fatal(err)
			}
			e.get("", feedPath(t, b.URL)).wantErr(t, http.StatusNotFound, engine.ErrNoCalendarFeed)
		})

		t.Run("a disabled tenant's links stop", func(t *testing.T) {
			var l struct {
				URL string `json:"url"`
			}
			e.post(admin2, "/calendar-feed", nil).json(t, &l)
			e.get("", feedPath(t, l.URL)).wantStatus(t, http.StatusOK)
			if _, err := store.NewCompanies(e.d, e.clock).SetDisabled(context.Background(), co2, true, e.clock.Now()); err != nil {
				t.Fatal(err)
			}
			e.get("", feedPath(t, l.URL)).wantErr(t, http.StatusNotFound, engine.ErrNoCalendarFeed)
		})
	})
}
