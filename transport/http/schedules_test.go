package httpapi_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/connection"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/schedule"
	"atende/persistence/store"
	httpapi "atende/transport/http"
	"atende/transport/media"
)

// schedEnv is an env whose server has the schedule store (timers not started: these
// tests judge the routes, persistence/schedule judges the firing) and a media store.
type schedEnv struct {
	*env
	contacts *store.Contacts
	sched    *schedule.Scheduler
}

func eachSchedEnv(t *testing.T, fn func(t *testing.T, e *schedEnv)) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		se := &schedEnv{}
		se.env = newEnv(t, d, withDeps(func(e *env, deps *httpapi.Deps) {
			s := newTestScheduler(t, d, e.clock)
			ms, err := media.New(media.Config{Dir: t.TempDir(), Secret: testSecret, MaxImage: 1 << 20, BaseURL: "/media"})
			if err != nil {
				t.Fatal(err)
			}
			se.sched, se.contacts = s, store.NewContacts(d, e.clock)
			deps.RefDeps = httpapi.RefDeps{Contacts: se.contacts, Schedules: s}
			deps.TicketDeps = httpapi.TicketDeps{Media: ms}
		}))
		fn(t, se)
	})
}

// newTestScheduler is the schedule store of d with River's tables, its timers not
// started.
func newTestScheduler(t *testing.T, d *db.DB, clock engine.Clock) *schedule.Scheduler {
	t.Helper()
	if err := schedule.Migrate(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	s, err := schedule.New(d, schedule.Config{IDs: db.NewIDs(d, 16), Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type schedulePage struct {
	Schedules []engine.Schedule `json:"schedules"`
	Tasks     []engine.Schedule `json:"tasks"`
	Count     int               `json:"count"`
	HasMore   bool              `json:"hasMore"`
}

func TestScheduledMessageRoutes(t *testing.T) {
	eachSchedEnv(t, func(t *testing.T, e *schedEnv) {
		ana, bruno, superv, admin2 := e.tok("ana"), e.tok("bruno"), e.tok("superv"), e.tok("admin2")
		now := e.clock.Now()
		at := now.Add(10 * time.Minute).Format(time.RFC3339)
		conns := connection.New(e.d, nil)
		c1, err := conns.Create(context.Background(), co1, engine.ConnectionInput{Name: "Zap", Channel: engine.ChannelSocket})
		if err != nil {
			t.Fatal(err)
		}
		c2, err := conns.Create(context.Background(), co2, engine.ConnectionInput{Name: "Zap2", Channel: engine.ChannelSocket})
		if err != nil {
			t.Fatal(err)
		}
		wp, wp2 := c1.ID, c2.ID

		t.Run("validation order", func(t *testing.T) {
			for _, c := range []struct {
				name  string
				body  map[string]any
				field string
				msg   string
			}{
				{"nothing", map[string]any{}, "phoneNumber", engine.MsgRequired},
				{"no connection", map[string]any{"phoneNumber": "5565999990000"}, "wpId", engine.MsgRequired},
				{"no schedule", map[string]any{"phoneNumber": "5565999990000", "wpId": wp}, "sendAt", engine.MsgRequired},
				{"no message", map[string]any{"phoneNumber": "5565999990000", "wpId": wp, "sendAt": at}, "message", engine.MsgRequired},
				{"short phone", map[string]any{"phoneNumber": "556599999", "wpId": wp, "sendAt": at, "message": "Oi!"}, "phoneNumber", engine.MsgTooShort},
				{"letters in phone", map[string]any{"phoneNumber": "55659999abcd", "wpId": wp, "sendAt": at, "message": "Oi!"}, "phoneNumber", engine.MsgInvalidNumber},
				{"past", map[string]any{"phoneNumber": "5565999990000", "wpId": wp, "sendAt": now.Add(-time.Minute).Format(time.RFC3339), "message": "Oi!"}, "sendAt", engine.MsgDateInPast},
				{"bad date", map[string]any{"phoneNumber": "5565999990000", "wpId": wp, "sendAt": "amanhã", "message": "Oi!"}, "sendAt", engine.MsgInvalidTime},
				{"short message", map[string]any{"phoneNumber": "5565999990000", "wpId": wp, "sendAt": at, "message": "Oi"}, "message", engine.MsgTooShort},
				{"long message", map[string]any{"phoneNumber": "5565999990000", "wpId": wp, "sendAt": at, "message": strings.Repeat("a", 401)}, "message", engine.MsgTooLong},
				{"bad id", map[string]any{"contactId": "x1", "wpId": wp, "sendAt": at, "message": "Oi!"}, "contactId", engine.MsgInvalidValue},
			} {
				b := e.post(ana, "/scheduledMessages", c.body).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
				if len(b.Fields) != 1 || b.Fields[c.field] != c.msg {
					t.Errorf("%s: fields %v, want only %s: %s", c.name, b.Fields, c.field, c.msg)
				}
			}
			e.pub.take()
			if p := e.listSchedules(t, ana, "/scheduledMessages/"); p.Count != 0 {
				t.Fatalf("a refused request left %d schedules", p.Count)
			}
			// Another tenant's connection is not found.
			e.post(ana, "/scheduledMessages", map[string]any{"phoneNumber": "5565999990000", "wpId": wp2, "sendAt": at,
				"message": "Olá!"}).wantErr(t, http.StatusNotFound, engine.ErrNoWappFound)
		})

		// Created pending, by the caller, phone formatting dropped.
		r := e.post(ana, "/scheduledMessages", map[string]any{"phoneNumber": "+55 (65) 99999-0000", "wpId": wp,
			"sendAt": at, "message": "{{ms}}, {{firstName}}!", "imagePath": nil, "status": "sent", "userId": ""})
		r.wantStatus(t, http.StatusCreated)
		var mine engine.Schedule
		r.json(t, &mine)
		if mine.Status != engine.SchedulePending || mine.UserID != e.ids["ana"] || mine.PhoneNumber != "5565999990000" ||
			!mine.SendAt.Equal(now.Add(10*time.Minute).Truncate(time.Second)) {
			t.Fatalf("created %s", r.Body)
		}
		ev := e.pub.take()
		if len(ev) != 1 || ev[0].Name != "scheduledMessage" || ev[0].Payload["action"] != "create" || ev[0].Company != co1 {
			t.Fatalf("events %+v", ev)
		}

		// A wall-clock time without offset is read in the tenant's zone (Cuiaba, UTC-4).
		r = e.post(bruno, "/scheduledMessages", map[string]any{"phoneNumber": "5565999990001", "wpId": wp,
			"sendAt": "2026-11-23T09:00", "message": "Bom dia!"})
		r.wantStatus(t, http.StatusCreated)
		var brunos engine.Schedule
		r.json(t, &brunos)
		if want := time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC); !brunos.SendAt.Equal(want) {
			t.Fatalf("09:00 local stored as %v, want %v", brunos.SendAt, want)
		}
		e.pub.take()

		t.Run("permissions", func(t *testing.T) {
			path := "/scheduledMessages/" + itoa(brunos.ID)
			body := map[string]any{"phoneNumber": "5565999990001", "wpId": wp, "sendAt": at, "message": "Mudou"}
			// A user may not change another user's schedule, nor schedule as someone else.
			e.put(ana, path, body).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			e.del(ana, path).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			e.post(ana, "/scheduledMessages", map[string]any{"phoneNumber": "5565999990001", "wpId": wp, "sendAt": at,
				"message": "Oi!", "userId": e.ids["bruno"]}).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			// Another tenant does not see it at all.
			e.get(admin2, path).wantErr(t, http.StatusNotFound, engine.ErrNoScheduleFound)
			e.put(admin2, path, body).wantErr(t, http.StatusNotFound, engine.ErrNoScheduleFound)
			e.del(admin2, path).wantErr(t, http.StatusNotFound, engine.ErrNoScheduleFound)
			if p := e.listSchedules(t, admin2, "/scheduledMessages/"); p.Count != 0 {
				t.Fatalf("tenant 2 lists %d", p.Count)
			}
			e.wantNoEventT(t)
			// The owner edits; a supervisor edits anybody's.
			r := e.put(bruno, path, body)
			r.wantStatus(t, http.StatusOK)
			r = e.put(superv, path, map[string]any{"phoneNumber": "5565999990001", "wpId": wp, "sendAt": at, "message": "Supervisionado"})
			r.wantStatus(t, http.StatusOK)
			var got engine.Schedule
			r.json(t, &got)
			if got.Message != "Supervisionado" || got.UserID != e.ids["superv"] {
				t.Fatalf("after supervisor edit %s", r.Body)
			}
			e.pub.take()
		})

		t.Run("list and search", func(t *testing.T) {
			p := e.listSchedules(t, ana, "/scheduledMessages/?searchParam=supervis")
			if p.Count != 1 || len(p.Schedules) != 1 || p.Schedules[0].ID != brunos.ID {
				t.Fatalf("search %+v", p)
			}
			p = e.listSchedules(t, ana, "/scheduledMessages")
			if p.Count != 2 || p.HasMore {
				t.Fatalf("list %+v", p)
			}
			// Agenda tasks are another list.
			if p := e.listSchedules(t, ana, "/agenda/"); p.Count != 0 {
				t.Fatalf("agenda lists scheduled messages: %+v", p)
			}
			e.get(ana, "/agenda/"+itoa(mine.ID)).wantErr(t, http.StatusNotFound, engine.ErrNoScheduleFound)
		})

		t.Run("sent cannot be deleted", func(t *testing.T) {
			dbtest.MustExec(t, e.d, `UPDATE schedules SET status = 'sent' WHERE id = $1`, mine.ID)
			e.del(ana, "/scheduledMessages/"+itoa(mine.ID)).wantErr(t, http.StatusConflict, engine.ErrScheduleSent)
			e.put(ana, "/scheduledMessages/"+itoa(mine.ID), map[string]any{"phoneNumber": "5565999990000", "wpId": wp,
				"sendAt": at, "message": "Outra"}).wantErr(t, http.StatusConflict, engine.ErrScheduleSent)
			e.del(superv, "/scheduledMessages/"+itoa(brunos.ID)).wantStatus(t, http.StatusNoContent)
			ev := e.pub.take()
			if len(ev) != 1 || ev[0].Payload["action"] != "delete" || ev[0].Payload["scheduledMessageId"] != float64(brunos.ID) {
				t.Fatalf("events %+v", ev)
			}
		})

		t.Run("multipart with an image", func(t *testing.T) {
			body, ct := multipartBody(t,
				formPart{name: "phoneNumber", data: []byte("5565999990002")},
				formPart{name: "wpId", data: []byte(itoa(wp))},
				formPart{name: "sendAt", data: []byte(at)},
				formPart{name: "message", data: []byte("Veja a foto")},
				formPart{name: "file", fileName: "a.png", contentType: "image/png", data: pngFile})
			r := e.do(req{method: "POST", path: "/scheduledMessages", token: ana, body: body, header: map[string]string{"Content-Type": ct}})
			r.wantStatus(t, http.StatusCreated)
			var got engine.Schedule
			r.json(t, &got)
			if !strings.HasPrefix(got.ImagePath, "1/") {
				t.Fatalf("image path %q", got.ImagePath)
			}
			// A file that is not an image is refused and nothing is created.
			body, ct = multipartBody(t,
				formPart{name: "phoneNumber", data: []byte("5565999990002")},
				formPart{name: "wpId", data: []byte(itoa(wp))},
				formPart{name: "sendAt", data: []byte(at)},
				formPart{name: "message", data: []byte("Veja o arquivo")},
				formPart{name: "file", fileName: "a.pdf", contentType: "application/pdf", data: []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n")})
			r = e.do(req{method: "POST", path: "/scheduledMessages", token: ana, body: body, header: map[string]string{"Content-Type": ct}})
			if r.Status != http.StatusBadRequest && r.Status != http.StatusUnsupportedMediaType {
				t.Fatalf("a pdf as the image: %d %s", r.Status, r.Body)
			}
			// A hostile imagePath (another tenant's or outside the store) is refused.
			e.post(ana, "/scheduledMessages", map[string]any{"phoneNumber": "5565999990002", "wpId": wp, "sendAt": at,
				"message": "Oi!", "imagePath": "../../etc/passwd"}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			e.pub.take()
		})
	})
}

func TestAgendaRoutes(t *testing.T) {
	eachSchedEnv(t, func(t *testing.T, e *schedEnv) {
		ana, admin2 := e.tok("ana"), e.tok("admin2")
		now := e.clock.Now()
		c, err := e.contacts.Create(context.Background(), co1, engine.ContactInput{Name: "Maria Silva", Number: "5565999990009"})
		if err != nil {
			t.Fatal(err)
		}
		// Checks in the spec's order: schedule, name, message.
		for _, tc := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{}, "sendAt"},
			{map[string]any{"sendAt": now.Add(time.Hour).Format(time.RFC3339)}, "taskName"},
			{map[string]any{"sendAt": now.Add(time.Hour).Format(time.RFC3339), "taskName": "Ligar"}, "message"},
		} {
			b := e.post(ana, "/agenda", tc.body).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			if len(b.Fields) != 1 || b.Fields[tc.field] != engine.MsgRequired {
				t.Fatalf("fields %v, want %s", b.Fields, tc.field)
			}
		}
		r := e.post(ana, "/agenda", map[string]any{"taskName": "Retornar ligação", "contactId": c.ID,
			"message": "{{ms}} {{firstName}}, retornando como combinado.", "sendAt": now.Add(30 * time.Minute).Format(time.RFC3339),
			"tagFilter": []any{1, "2"}})
		r.wantStatus(t, http.StatusCreated)
		ev := e.pub.take()
		if len(ev) != 1 || ev[0].Name != "agenda" || ev[0].Payload["action"] != "create" || ev[0].Payload["task"] == nil {
			t.Fatalf("events %+v", ev)
		}
		p := e.listSchedules(t, ana, "/agenda/?searchParam=retornar&pageNumber=1")
		if p.Count != 1 || len(p.Tasks) != 1 {
			t.Fatalf("list %+v", p)
		}
		task := p.Tasks[0]
		if task.TaskName != "Retornar ligação" || task.Contact == nil || task.Contact.Name != "Maria Silva" ||
			len(task.TagFilter) != 2 || task.Status != engine.SchedulePending {
			t.Fatalf("task %+v", task)
		}
		// The calendar's range.
		in := func(from, to time.Time) int {
			return e.listSchedules(t, ana, "/agenda/?from="+from.Format(time.RFC3339)+"&to="+to.Format(time.RFC3339)).Count
		}
		if in(now, now.Add(time.Hour)) != 1 || in(now.Add(time.Hour), now.Add(2*time.Hour)) != 0 {
			t.Fatal("from/to do not bound sendAt")
		}
		e.get(ana, "/agenda/?from=ontem").wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		// The contact of a pending task cannot be deleted while the task waits.
		e.del(e.tok("admin"), "/contacts/"+itoa(c.ID)).wantErr(t, http.StatusConflict, engine.ErrPendingSchedules)
		e.del(ana, "/agenda/"+itoa(task.ID)).wantStatus(t, http.StatusNoContent)
		e.del(e.tok("admin"), "/contacts/"+itoa(c.ID)).wantStatus(t, http.StatusNoContent)
		if e.listSchedules(t, admin2, "/agenda/").Count != 0 {
			t.Fatal("another tenant lists the task")
		}
	})
}

func (e *schedEnv) listSchedules(t *testing.T, tok, path string) schedulePage {
	t.Helper()
	r := e.get(tok, path)
	r.wantStatus(t, http.StatusOK)
	var p schedulePage
	r.json(t, &p)
	return p
}

func (e *schedEnv) wantNoEventT(t *testing.T) {
	t.Helper()
	if evs := e.pub.take(); len(evs) != 0 {
		t.Fatalf("unexpected events %+v", evs)
	}
}

func itoa(id engine.ID) string { return strconv.FormatInt(id, 10) }
