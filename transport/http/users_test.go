package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"atende/engine"
	httpapi "atende/transport/http"
)

// userJSON is a user as the API answers it.
type userJSON struct {
	ID           engine.ID  `json:"id"`
	Name         string     `json:"name"`
	Email        string     `json:"email"`
	Profile      string     `json:"profile"`
	CompanyID    engine.ID  `json:"companyId"`
	ConnectionID *engine.ID `json:"whatsappId"`
	Queues       []struct {
		ID    engine.ID `json:"id"`
		Name  string    `json:"name"`
		Color string    `json:"color"`
	} `json:"queues"`
}

func (u userJSON) queueIDs() []engine.ID {
	var out []engine.ID
	for _, q := range u.Queues {
		out = append(out, q.ID)
	}
	return out
}

type userPage struct {
	Users   []userJSON `json:"users"`
	Count   int        `json:"count"`
	HasMore bool       `json:"hasMore"`
}

func TestListUsers(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		for i := range 40 {
			_, err := e.users.Create(context.Background(), engine.NewUser{CompanyID: co1, Name: fmt.Sprintf("Extra %02d", i),
				Email: fmt.Sprintf("extra%02d@example.com", i), PasswordHash: "x", Profile: engine.ProfileUser})
			if err != nil {
				t.Fatal(err)
			}
		}
		ana := e.tok("ana")
		// Company 1 has 6 fixture users + 40 extras.
		var p1, p2 userPage
		r := e.get(ana, "/users/")
		r.wantStatus(t, 200)
		r.json(t, &p1)
		if len(p1.Users) != 40 || p1.Count != 46 || !p1.HasMore {
			t.Fatalf("page 1: %d users, count %d, hasMore %v", len(p1.Users), p1.Count, p1.HasMore)
		}
		e.get(ana, "/users?pageNumber=2").json(t, &p2)
		if len(p2.Users) != 6 || p2.Count != 46 || p2.HasMore {
			t.Fatalf("page 2: %d users, count %d, hasMore %v", len(p2.Users), p2.Count, p2.HasMore)
		}
		for _, u := range append(p1.Users, p2.Users...) {
			if u.CompanyID != co1 {
				t.Fatalf("user of company %d listed", u.CompanyID)
			}
		}
		tests := []struct {
			search string
			want   []string
		}{
			{"alice", []string{"Alice Admin"}},
			{"ADMIN", []string{"Alice Admin"}}, // company 2's Zeca Admin is not listed
			{"superv@example", []string{"Sara Superv"}},
			{"%", nil},
			{"_", nil},
			{"' OR '1'='1", nil},
			{"'; DROP TABLE users; --", nil},
			{"ção", nil},
			{"🙂", nil},
		}
		for _, tc := range tests {
			t.Run(tc.search, func(t *testing.T) {
				var p userPage
				r := e.get(ana, "/users/?searchParam="+url.QueryEscape(tc.search))
				r.wantStatus(t, 200)
				r.json(t, &p)
				var got []string
				for _, u := range p.Users {
					got = append(got, u.Name)
				}
				if strings.Join(got, "|") != strings.Join(tc.want, "|") || p.Count != len(tc.want) {
					t.Fatalf("got %v (count %d), want %v", got, p.Count, tc.want)
				}
			})
		}
		bad := []struct {
			query string
			field string
			msg   string
		}{
			{"pageNumber=abc", "pageNumber", engine.MsgInvalidNumber},
			{"pageNumber=0", "pageNumber", engine.MsgInvalidValue},
			{"pageNumber=-3", "pageNumber", engine.MsgInvalidValue},
			{"pageNumber=99999999999999999999", "pageNumber", engine.MsgInvalidNumber},
			{"searchParam=" + strings.Repeat("a", 201), "searchParam", engine.MsgTooLong},
		}
		for _, tc := range bad {
			t.Run(tc.query, func(t *testing.T) {
				b := e.get(ana, "/users/?"+tc.query).wantErr(t, 400, engine.ErrValidation)
				if b.Fields[tc.field] != tc.msg {
					t.Fatalf("fields %v", b.Fields)
				}
			})
		}
		t.Run("list", func(t *testing.T) {
			var all []userJSON
			r := e.get(e.tok("user2"), "/users/list")
			r.wantStatus(t, 200)
			r.json(t, &all)
			if len(all) != 2 || all[0].Name != "Zeca Admin" || all[1].Name != "Zilda User" || all[0].queueIDs()[0] != 21 {
				t.Fatalf("company 2 list %+v", all)
			}
		})
		t.Run("no token", func(t *testing.T) {
			e.get("", "/users/").wantErr(t, 401, engine.ErrSessionExpired)
			e.get("", "/users/list").wantErr(t, 401, engine.ErrSessionExpired)
		})
	})
}

func TestGetUser(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		var u userJSON
		r := e.get(e.tok("ana"), "/users/"+id(e.ids["admin"]))
		r.wantStatus(t, 200)
		r.json(t, &u)
		if u.ID != e.ids["admin"] || u.Email != "admin@example.com" || len(u.Queues) != 2 {
			t.Fatalf("%+v", u)
		}
		if strings.Contains(string(r.Body), "$2a$") || strings.Contains(string(r.Body), "tokenVersion") {
			t.Fatalf("leaks secrets: %s", r.Body)
		}
		for _, path := range []string{
			"/users/" + id(e.ids["admin2"]), // another tenant's user
			"/users/999999",
			"/users/abc",
			"/users/0",
			"/users/-1",
			"/users/1e3",
		} {
			t.Run(path, func(t *testing.T) {
				e.get(e.tok("ana"), path).wantErr(t, 404, engine.ErrNoUserFound)
			})
		}
		e.get("", "/users/"+id(e.ids["admin"])).wantErr(t, 401, engine.ErrSessionExpired)
	})
}

func TestCreateUser(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		valid := func(over map[string]any) map[string]any {
			b := map[string]any{"name": "Nova Pessoa", "email": "nova2@example.com", "password": "12345", "profile": "user"}
			for k, v := range over {
				if v == nil {
					delete(b, k)
				} else {
					b[k] = v
				}
			}
			return b
		}
		t.Run("success", func(t *testing.T) {
			e.pub.take()
			r := e.post(e.tok("admin"), "/users", valid(map[string]any{"queueIds": []int{12, 11, 11}, "whatsappId": 3,
				"email": " Nova@Example.com ", "name": "  Nova Pessoa  "}))
			r.wantStatus(t, 201)
			var u userJSON
			r.json(t, &u)
			if u.ID <= 0 || u.Name != "Nova Pessoa" || u.Email != "nova@example.com" || u.CompanyID != co1 ||
				u.ConnectionID == nil || *u.ConnectionID != 3 || len(u.Queues) != 2 {
				t.Fatalf("%+v", u)
			}
			ev := e.pub.take()
			if len(ev) != 1 || ev[0].Company != co1 || ev[0].Name != "user" || ev[0].Payload["action"] != "create" {
				t.Fatalf("events %+v", ev)
			}
			// The new user can log in.
			_, _, lr := e.login("nova@example.com", "12345")
			lr.wantStatus(t, 200)
		})
		t.Run("validation", func(t *testing.T) {
			tests := []struct {
				name  string
				body  map[string]any
				field string
				msg   string
			}{
				{"name required", valid(map[string]any{"name": nil}), "name", engine.MsgRequired},
				{"name blank", valid(map[string]any{"name": "   "}), "name", engine.MsgRequired},
				{"name too short", valid(map[string]any{"name": "A"}), "name", engine.MsgTooShort},
				{"name too long", valid(map[string]any{"name": strings.Repeat("n", 51)}), "name", engine.MsgTooLong},
				{"name with newline", valid(map[string]any{"name": "Ana\nMaria"}), "name", engine.MsgInvalidValue},
				{"email required", valid(map[string]any{"email": nil}), "email", engine.MsgRequired},
				{"email invalid", valid(map[string]any{"email": "not-an-email"}), "email", engine.MsgInvalidEmail},
				{"email with SQL", valid(map[string]any{"email": "a'--@x.com'"}), "email", engine.MsgInvalidEmail},
				{"password required", valid(map[string]any{"password": nil}), "password", engine.MsgRequired},
				{"password too short", valid(map[string]any{"password": "1234"}), "password", engine.MsgTooShort},
				{"password too long", valid(map[string]any{"password": strings.Repeat("p", 51)}), "password", engine.MsgTooLong},
				{"profile required", valid(map[string]any{"profile": nil}), "profile", engine.MsgRequired},
				{"profile unknown", valid(map[string]any{"profile": "root"}), "profile", engine.MsgInvalidValue},
				{"queue id negative", valid(map[string]any{"queueIds": []int{-1}}), "queueIds", engine.MsgInvalidValue},
				{"queue of other tenant", valid(map[string]any{"queueIds": []int{21}}), "queueIds", engine.MsgInvalidValue},
				{"queue unknown", valid(map[string]any{"queueIds": []int{999}}), "queueIds", engine.MsgInvalidValue},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					b := e.post(e.tok("admin"), "/users", tc.body).wantErr(t, 400, engine.ErrValidation)
					if b.Fields[tc.field] != tc.msg || b.Message != tc.msg {
						t.Fatalf("fields %v message %q, want %s on %s", b.Fields, b.Message, tc.msg, tc.field)
					}
				})
			}
			if _, err := e.users.ByEmail(context.Background(), "nova2@example.com"); engine.CodeOf(err) != engine.ErrNoUserFound {
				t.Fatal("a refused user was created")
			}
		})
		t.Run("hostile bodies", func(t *testing.T) {
			tests := []struct {
				name   string
				body   any
				status int
				code   engine.Code
			}{
				{"malformed", `{"name": "x",`, 400, engine.ErrInvalidJSON},
				{"trailing garbage", `{"name": "x"} {"name": "y"}`, 400, engine.ErrInvalidJSON},
				{"trailing text", `{"name": "x"}abc`, 400, engine.ErrInvalidJSON},
				{"wrong type name", `{"name": 5, "email": "a@b.co", "password": "12345", "profile": "user"}`, 400, engine.ErrInvalidJSON},
				{"wrong type queueIds", `{"name": "Ana", "queueIds": "1,2"}`, 400, engine.ErrInvalidJSON},
				{"wrong type whatsappId", `{"name": "Ana", "whatsappId": "abc"}`, 400, engine.ErrValidation},
				{"null body", `null`, 400, engine.ErrValidation},
				{"oversized", `{"name": "` + strings.Repeat("a", 5000) + `"}`, 413, engine.ErrBodyTooLarge},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					e.post(e.tok("admin"), "/users", tc.body).wantErr(t, tc.status, tc.code)
				})
			}
		})
		t.Run("unicode and SQL in names round-trip", func(t *testing.T) {
			for i, name := range []string{"José 🙂 Ñandú", "王小明", "Robert'); DROP TABLE users;--", `"%_\\`} {
				r := e.post(e.tok("admin"), "/users", valid(map[string]any{"name": name, "email": fmt.Sprintf("u%d@example.com", i)}))
				r.wantStatus(t, 201)
				var u userJSON
				r.json(t, &u)
				var got userJSON
				e.get(e.tok("admin"), "/users/"+id(u.ID)).json(t, &got)
				if got.Name != name {
					t.Fatalf("name %q came back as %q", name, got.Name)
				}
			}
		})
		t.Run("duplicate e-mail", func(t *testing.T) {
			e.post(e.tok("admin"), "/users", valid(map[string]any{"email": "ANA@example.com"})).wantErr(t, 409, engine.ErrEmailAlreadyExists)
			// E-mails are unique across tenants: company 2's admin cannot reuse it either.
			e.post(e.tok("admin2"), "/users", valid(map[string]any{"email": "ana@example.com"})).wantErr(t, 409, engine.ErrEmailAlreadyExists)
		})
		t.Run("permissions", func(t *testing.T) {
			tests := []struct {
				name   string
				caller string
				body   map[string]any
			}{
				{"user may not create", "ana", valid(map[string]any{"email": "p1@example.com"})},
				{"userplus may not create", "bruno", valid(map[string]any{"email": "p2@example.com"})},
				{"superv may not create an admin", "superv", valid(map[string]any{"email": "p3@example.com", "profile": "admin"})},
				{"superv may not set queues", "superv", valid(map[string]any{"email": "p4@example.com", "queueIds": []int{11}})},
				{"superv may not set a connection", "superv", valid(map[string]any{"email": "p5@example.com", "whatsappId": 2})},
				{"admin may not create a super", "admin", valid(map[string]any{"email": "p6@example.com", "profile": "super"})},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					e.post(e.tok(tc.caller), "/users", tc.body).wantErr(t, 403, engine.ErrNoPermission)
				})
			}
			e.post(e.tok("superv"), "/users", valid(map[string]any{"email": "ok1@example.com", "profile": "superv"})).wantStatus(t, 201)
			e.post(e.tok("super"), "/users", valid(map[string]any{"email": "ok2@example.com", "profile": "super"})).wantStatus(t, 201)
		})
		t.Run("userCreation disabled", func(t *testing.T) {
			e.put(e.tok("admin"), "/settings/userCreation", map[string]string{"value": "disabled"}).wantStatus(t, 200)
			e.post(e.tok("superv"), "/users", valid(map[string]any{"email": "d1@example.com"})).wantErr(t, 403, engine.ErrUserCreationDisabled)
			e.post(e.tok("manager"), "/users", valid(map[string]any{"email": "d2@example.com"})).wantErr(t, 403, engine.ErrUserCreationDisabled)
			e.post(e.tok("admin"), "/users", valid(map[string]any{"email": "d3@example.com"})).wantStatus(t, 201)
			// The setting is per tenant: company 2 is unaffected.
			e.post(e.tok("admin2"), "/users", valid(map[string]any{"email": "d4@example.com"})).wantStatus(t, 201)
			e.put(e.tok("admin"), "/settings/userCreation", map[string]string{"value": "enabled"}).wantStatus(t, 200)
			e.post(e.tok("superv"), "/users", valid(map[string]any{"email": "d5@example.com"})).wantStatus(t, 201)
		})
	})
}

func TestUpdateUser(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		path := func(local string) string { return "/users/" + id(e.ids[local]) }
		form := func(local string, over map[string]any) map[string]any {
			var u userJSON
			e.get(e.tok("super"), path(local)).json(t, &u)
			b := map[string]any{"name": u.Name, "email": u.Email, "profile": u.Profile, "queueIds": u.queueIDs(),
				"whatsappId": u.ConnectionID, "password": ""}
			// What the web app sends back besides the form: ignored.
			b["id"], b["companyId"], b["queues"] = u.ID, 99, u.Queues
			for k, v := range over {
				if v == nil {
					delete(b, k)
				} else {
					b[k] = v
				}
			}
			return b
		}
		t.Run("self: name and password", func(t *testing.T) {
			e.pub.take()
			r := e.put(e.tok("ana"), path("ana"), form("ana", map[string]any{"name": "Ana Maria", "password": "newpass1",
				"currentPassword": testPassword}))
			r.wantStatus(t, 200)
			var u userJSON
			r.json(t, &u)
			if u.Name != "Ana Maria" || u.Profile != "user" {
				t.Fatalf("%+v", u)
			}
			ev := e.pub.take()
			if len(ev) != 1 || ev[0].Name != "user" || ev[0].Payload["action"] != "update" {
				t.Fatalf("events %+v", ev)
			}
			_, _, lr := e.login("ana@example.com", "newpass1")
			lr.wantStatus(t, 200)
			_, _, lr = e.login("ana@example.com", testPassword)
			lr.wantErr(t, 401, engine.ErrInvalidCredentials)
		})
		t.Run("self: the web app's form without the hidden fields", func(t *testing.T) {
			r := e.put(e.tok("ana"), path("ana"), map[string]any{"name": "Ana User", "email": "ana@example.com", "password": ""})
			r.wantStatus(t, 200)
		})
		refusals := []struct {
			name   string
			caller string
			target string
			over   map[string]any
		}{
			{"user edits another", "ana", "bruno", map[string]any{"name": "Hacked"}},
			{"user changes own e-mail", "ana", "ana", map[string]any{"email": "ana2@example.com"}},
			{"user raises own profile", "ana", "ana", map[string]any{"profile": "admin"}},
			{"user changes own queues", "ana", "ana", map[string]any{"queueIds": []int{11, 12}}},
			{"user changes own connection", "ana", "ana", map[string]any{"whatsappId": 4}},
			{"superv edits an admin", "superv", "admin", map[string]any{"name": "Hacked"}},
			{"superv resets an admin's password", "superv", "admin", map[string]any{"password": "hacked1"}},
			{"superv makes someone admin", "superv", "ana", map[string]any{"profile": "admin"}},
			{"superv makes self admin", "superv", "superv", map[string]any{"profile": "admin"}},
			{"superv lowers own profile", "superv", "superv", map[string]any{"profile": "user"}},
			{"admin changes own profile", "admin", "admin", map[string]any{"profile": "manager"}},
			{"superv changes queues", "superv", "ana", map[string]any{"queueIds": []int{12}}},
			{"admin grants super", "admin", "ana", map[string]any{"profile": "super"}},
			{"admin edits the super", "admin", "super", map[string]any{"name": "Hacked"}},
		}
		for _, tc := range refusals {
			t.Run(tc.name, func(t *testing.T) {
				e.put(e.tok(tc.caller), path(tc.target), form(tc.target, tc.over)).wantErr(t, 403, engine.ErrNoPermission)
			})
		}
		t.Run("superv changes a profile", func(t *testing.T) {
			var u userJSON
			r := e.put(e.tok("superv"), path("bruno"), form("bruno", map[string]any{"profile": "superv"}))
			r.wantStatus(t, 200)
			r.json(t, &u)
			if u.Profile != "superv" {
				t.Fatalf("%+v", u)
			}
		})
		t.Run("admin changes queues and connection; old token refused", func(t *testing.T) {
			old := e.tok("ana")
			e.get(old, "/users/list").wantStatus(t, 200)
			var u userJSON
			r := e.put(e.tok("admin"), path("ana"), form("ana", map[string]any{"queueIds": []int{12, 11}, "whatsappId": 9}))
			r.wantStatus(t, 200)
			r.json(t, &u)
			if len(u.Queues) != 2 || u.ConnectionID == nil || *u.ConnectionID != 9 {
				t.Fatalf("%+v", u)
			}
			e.get(old, "/users/list").wantErr(t, 403, engine.ErrInvalidToken)
			// null clears the connection; an absent queueIds keeps the queues.
			r = e.put(e.tok("admin"), path("ana"), form("ana", map[string]any{"whatsappId": nil, "queueIds": nil}))
			r.wantStatus(t, 200)
			body := strings.NewReplacer(" ", "").Replace(string(r.Body))
			u = userJSON{}
			r.json(t, &u)
			if len(u.Queues) != 2 || u.ConnectionID == nil {
				t.Fatalf("absent fields changed the user: %s", body)
			}
			r = e.put(e.tok("admin"), path("ana"), `{"name":"Ana User","email":"ana@example.com","whatsappId":null}`)
			r.wantStatus(t, 200)
			u = userJSON{}
			r.json(t, &u)
			if u.ConnectionID != nil || len(u.Queues) != 2 {
				t.Fatalf("null did not clear the connection: %s", r.Body)
			}
		})
		t.Run("password reset by admin signs the user out", func(t *testing.T) {
			_, c, lr := e.login("bruno@example.com", testPassword)
			lr.wantStatus(t, 200)
			e.put(e.tok("admin"), path("bruno"), form("bruno", map[string]any{"password": "reset123"})).wantStatus(t, 200)
			e.do(req{method: "POST", path: "/auth/refresh_token", cookie: c}).wantErr(t, 401, engine.ErrSessionExpired)
		})
		t.Run("own password keeps the session", func(t *testing.T) {
			tok, c, lr := e.login("manager@example.com", testPassword)
			lr.wantStatus(t, 200)
			e.put(tok, path("manager"), form("manager", map[string]any{"password": "mine1234", "currentPassword": testPassword})).wantStatus(t, 200)
			e.do(req{method: "POST", path: "/auth/refresh_token", cookie: c}).wantStatus(t, 200)
		})
		t.Run("validation", func(t *testing.T) {
			b := e.put(e.tok("admin"), path("ana"), form("ana", map[string]any{"name": "A"})).wantErr(t, 400, engine.ErrValidation)
			if b.Fields["name"] != engine.MsgTooShort {
				t.Fatalf("%v", b.Fields)
			}
			b = e.put(e.tok("admin"), path("ana"), form("ana", map[string]any{"password": "123"})).wantErr(t, 400, engine.ErrValidation)
			if b.Fields["password"] != engine.MsgTooShort {
				t.Fatalf("%v", b.Fields)
			}
			b = e.put(e.tok("admin"), path("ana"), form("ana", map[string]any{"email": "x"})).wantErr(t, 400, engine.ErrValidation)
			if b.Fields["email"] != engine.MsgInvalidEmail {
				t.Fatalf("%v", b.Fields)
			}
			e.put(e.tok("admin"), path("ana"), form("ana", map[string]any{"email": "bruno@example.com"})).wantErr(t, 409, engine.ErrEmailAlreadyExists)
			e.put(e.tok("admin"), path("ana"), `{"name":`).wantErr(t, 400, engine.ErrInvalidJSON)
		})
		t.Run("other tenant", func(t *testing.T) {
			e.put(e.tok("admin2"), path("ana"), form("ana", map[string]any{"name": "Hacked"})).wantErr(t, 404, engine.ErrNoUserFound)
			e.put(e.tok("admin"), "/users/abc", form("ana", nil)).wantErr(t, 404, engine.ErrNoUserFound)
			var u userJSON
			e.get(e.tok("admin"), path("ana")).json(t, &u)
			if u.Name == "Hacked" {
				t.Fatal("company 2 renamed company 1's user")
			}
		})
	})
}

func TestDeleteUser(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		path := func(local string) string { return "/users/" + id(e.ids[local]) }
		e.del(e.tok("ana"), path("bruno")).wantErr(t, 403, engine.ErrNoPermission)
		e.del(e.tok("admin"), path("admin")).wantErr(t, 403, engine.ErrNoPermission)
		e.del(e.tok("superv"), path("admin")).wantErr(t, 403, engine.ErrNoPermission)
		e.del(e.tok("admin2"), path("ana")).wantErr(t, 404, engine.ErrNoUserFound)
		e.del(e.tok("admin"), "/users/0").wantErr(t, 404, engine.ErrNoUserFound)

		anaTok := e.tok("ana")
		e.pub.take()
		e.del(e.tok("superv"), path("ana")).wantStatus(t, http.StatusNoContent)
		ev := e.pub.take()
		if len(ev) != 1 || ev[0].Name != "user" || ev[0].Payload["action"] != "delete" || ev[0].Payload["userId"] != float64(e.ids["ana"]) {
			t.Fatalf("events %+v", ev)
		}
		e.get(e.tok("admin"), path("ana")).wantErr(t, 404, engine.ErrNoUserFound)
		e.del(e.tok("admin"), path("ana")).wantErr(t, 404, engine.ErrNoUserFound)
		e.get(anaTok, "/users/list").wantErr(t, 403, engine.ErrInvalidToken)
		_, _, lr := e.login("ana@example.com", testPassword)
		lr.wantErr(t, 401, engine.ErrInvalidCredentials)
	})
}

func TestSettings(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		var list []engine.Setting
		r := e.get(e.tok("ana"), "/settings")
		r.wantStatus(t, 200)
		r.json(t, &list)
		if len(list) != 5 {
			t.Fatalf("%v", list)
		}
		for _, st := range list {
			if st.Key == engine.SettingTimeZone && st.Value != engine.TenantTimeZone {
				t.Fatalf("default %v", st)
			}
			if st.Key != "userApiToken" && st.Key != engine.SettingTimeZone && st.Value != "enabled" {
				t.Fatalf("default %v", st)
			}
		}
		e.put(e.tok("ana"), "/settings/sideMenu", map[string]string{"value": "disabled"}).wantErr(t, 403, engine.ErrNoPermission)
		e.put(e.tok("superv"), "/settings/sideMenu", map[string]string{"value": "disabled"}).wantErr(t, 403, engine.ErrNoPermission)
		e.put(e.tok("admin"), "/settings/nope", map[string]string{"value": "disabled"}).wantErr(t, 404, engine.ErrNoSettingFound)
		e.put(e.tok("admin"), "/settings/"+url.PathEscape("sideMenu'--"), map[string]string{"value": "disabled"}).wantErr(t, 404, engine.ErrNoSettingFound)
		for _, v := range []any{"maybe", "", "ENABLED "} {
			b := e.put(e.tok("admin"), "/settings/sideMenu", map[string]any{"value": v})
			if v == "ENABLED " {
				b.wantErr(t, 400, engine.ErrValidation)
				continue
			}
			fb := b.wantErr(t, 400, engine.ErrValidation)
			if fb.Fields["value"] == "" {
				t.Fatalf("%+v", fb)
			}
		}
		e.put(e.tok("admin"), "/settings/sideMenu", map[string]any{"value": true}).wantErr(t, 400, engine.ErrInvalidJSON)

		e.pub.take()
		var st engine.Setting
		r = e.put(e.tok("admin"), "/settings/sideMenu", map[string]string{"value": " disabled "})
		r.wantStatus(t, 200)
		r.json(t, &st)
		if st != (engine.Setting{Key: "sideMenu", Value: "disabled"}) {
			t.Fatalf("%+v", st)
		}
		ev := e.pub.take()
		if len(ev) != 1 || ev[0].Company != co1 || ev[0].Name != "settings" || ev[0].Payload["action"] != "update" {
			t.Fatalf("events %+v", ev)
		}
		if s, _ := ev[0].Payload["setting"].(map[string]any); s["key"] != "sideMenu" || s["value"] != "disabled" {
			t.Fatalf("payload %+v", ev[0].Payload)
		}
		e.get(e.tok("ana"), "/settings").json(t, &list)
		if list[1] != (engine.Setting{Key: "sideMenu", Value: "disabled"}) {
			t.Fatalf("%v", list)
		}
		// Company 2 keeps its own value.
		e.get(e.tok("user2"), "/settings").json(t, &list)
		if list[1].Value != "enabled" {
			t.Fatalf("company 2 sees company 1's setting: %v", list)
		}
		e.get("", "/settings").wantErr(t, 401, engine.ErrSessionExpired)
		_ = httpapi.UsersPageSize
	})
}
