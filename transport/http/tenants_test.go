package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"atende/engine"
	"atende/persistence/store"
	httpapi "atende/transport/http"
)

// withTenants wires the tenant store, the contacts and a cluster view.
func withTenants() func(*envOpts) {
	return withDeps(func(e *env, d *httpapi.Deps) {
		d.Tenants = store.NewCompanies(e.d, e.clock)
		d.Contacts = store.NewContacts(e.d, e.clock)
		d.Cluster = func(context.Context) (httpapi.ClusterView, error) {
			return httpapi.ClusterView{Mode: "single", Node: "n1", Members: []httpapi.ClusterMember{
				{ID: "n1", Address: "127.0.0.1:1", State: "alive", Self: true, Actors: map[string]int{"ticket": 2}}}}, nil
		}
	})
}

var newTenantBody = map[string]string{"name": "Loja Nova", "adminName": "Dona Maria", "email": "maria@loja.com", "password": "segredo-forte"}

func TestTenantRoutes(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		super := e.tok("super")

		t.Run("only super manages tenants", func(t *testing.T) {
			for _, who := range []string{"admin", "manager", "superv", "ana", "admin2"} {
				e.get(e.tok(who), "/tenants").wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
				e.post(e.tok(who), "/tenants", newTenantBody).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
				e.put(e.tok(who), "/tenants/2", map[string]bool{"disabled": true}).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			}
			e.get("", "/tenants").wantErr(t, http.StatusUnauthorized, engine.ErrSessionExpired)
			if _, err := e.users.ByEmail(context.Background(), "maria@loja.com"); engine.CodeOf(err) != engine.ErrNoUserFound {
				t.Fatalf("a refused create wrote the admin: %v", err)
			}
		})

		t.Run("validation", func(t *testing.T) {
			b := e.post(super, "/tenants", map[string]string{"name": "L", "adminName": "", "email": "x", "password": "123"}).
				wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			want := map[string]string{"name": "Too Short!", "adminName": "Required", "email": "Invalid email", "password": "Too Short!"}
			for k, v := range want {
				if b.Fields[k] != v {
					t.Fatalf("fields %v, want %v", b.Fields, want)
				}
			}
			for _, raw := range []string{`{"name":`, `[]`, `{"name": 5}`, strings.Repeat("x", 10)} {
				e.do(req{method: "POST", path: "/tenants", token: super, body: raw}).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
			}
			e.post(super, "/tenants", map[string]string{"name": "Outra Loja", "adminName": "Zeca", "email": "admin2@example.com",
				"password": "segredo-forte"}).wantErr(t, http.StatusConflict, engine.ErrEmailAlreadyExists)
		})

		var id engine.ID
		t.Run("create lists the tenant with its admin", func(t *testing.T) {
			r := e.post(super, "/tenants", newTenantBody)
			r.wantStatus(t, http.StatusCreated)
			var out struct {
				Tenant engine.TenantSummary `json:"tenant"`
				Admin  map[string]any       `json:"admin"`
			}
			r.json(t, &out)
			id = out.Tenant.ID
			if id <= co2 || out.Tenant.Name != "Loja Nova" || out.Admin["profile"] != "admin" || out.Admin["email"] != "maria@loja.com" {
				t.Fatalf("created %+v", out)
			}
			if _, ok := out.Admin["passwordHash"]; ok {
				t.Fatal("the answer carries the password hash")
			}
			var sent bool
			for _, ev := range e.pub.take() {
				if ev.Name == httpapi.EventTenant {
					tn, _ := ev.Payload["tenant"].(map[string]any)
					sent = ev.Company == co1 && ev.Payload["action"] == "create" && ev.Payload["_permission"] == engine.ActManageTenants &&
						tn["name"] == "Loja Nova"
				}
			}
			if !sent {
				t.Fatal("no tenant event to the super's tenant, held to tenants:manage")
			}
			e.post(super, "/tenants", map[string]string{"name": " loja NOVA ", "adminName": "Outro", "email": "outro@loja.com",
				"password": "segredo-forte"}).wantErr(t, http.StatusConflict, engine.ErrTenantNameDuplicated)
			var list struct {
				Tenants []engine.TenantSummary `json:"tenants"`
			}
			e.get(super, "/tenants").json(t, &list)
			if len(list.Tenants) != 3 || list.Tenants[2].ID != id || list.Tenants[2].Users != 1 || list.Tenants[0].Users != 6 {
				t.Fatalf("list %+v", list.Tenants)
			}
		})

		t.Run("the new admin sees only its own tenant", func(t *testing.T) {
			tok, _, r := e.login("maria@loja.com", "segredo-forte")
			r.wantStatus(t, http.StatusOK)
			var users struct {
				Users []map[string]any `json:"users"`
			}
			e.get(tok, "/users").json(t, &users)
			if len(users.Users) != 1 || users.Users[0]["email"] != "maria@loja.com" {
				t.Fatalf("new admin sees users %v", users.Users)
			}
			e.get(tok, "/users/"+itoa(e.ids["ana"])).wantErr(t, http.StatusNotFound, engine.ErrNoUserFound)
			var contacts struct {
				Contacts []any `json:"contacts"`
			}
			e.get(tok, "/contacts").json(t, &contacts)
			if len(contacts.Contacts) != 0 {
				t.Fatalf("new admin sees contacts %v", contacts.Contacts)
			}
			e.get(tok, "/tenants").wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			// And the demo tenant sees nothing of the new one.
			var demo struct {
				Users []map[string]any `json:"users"`
			}
			e.get(e.tok("admin"), "/users").json(t, &demo)
			for _, u := range demo.Users {
				if u["email"] == "maria@loja.com" {
					t.Fatal("tenant 1 sees the new tenant's admin")
				}
			}
		})

		t.Run("disable and enable", func(t *testing.T) {
			tok, cookie, r := e.login("maria@loja.com", "segredo-forte")
			r.wantStatus(t, http.StatusOK)
			e.put(super, "/tenants/"+itoa(co1), map[string]bool{"disabled": true}).wantErr(t, http.StatusConflict, engine.ErrTenantOwn)
			e.put(super, "/tenants/999", map[string]bool{"disabled": true}).wantErr(t, http.StatusNotFound, engine.ErrNoTenantFound)
			e.put(super, "/tenants/abc", map[string]bool{"disabled": true}).wantErr(t, http.StatusNotFound, engine.ErrNoTenantFound)
			e.put(super, "/tenants/"+itoa(id), map[string]any{}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			e.put(super, "/tenants/"+itoa(id), map[string]any{"disabled": "yes"}).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
			var got engine.TenantSummary
			r = e.put(super, "/tenants/"+itoa(id), map[string]bool{"disabled": true})
			r.wantStatus(t, http.StatusOK)
			r.json(t, &got)
			if !got.Disabled || got.ID != id {
				t.Fatalf("disabled %+v", got)
			}
			// The access token is refused at once, the refresh token ends the session,
			// and a login with the right password is told why.
			e.get(tok, "/users").wantErr(t, http.StatusForbidden, engine.ErrInvalidToken)
			e.do(req{method: "POST", path: "/auth/refresh_token", cookie: cookie}).wantErr(t, http.StatusUnauthorized, engine.ErrSessionExpired)
			_, _, r = e.login("maria@loja.com", "segredo-forte")
			r.wantErr(t, http.StatusForbidden, engine.ErrTenantDisabled)
			_, _, r = e.login("maria@loja.com", "wrong-password")
			r.wantErr(t, http.StatusUnauthorized, engine.ErrInvalidCredentials)
			// Other tenants are untouched.
			e.get(e.tok("admin2"), "/users").wantStatus(t, http.StatusOK)

			e.put(super, "/tenants/"+itoa(id), map[string]bool{"disabled": false}).wantStatus(t, http.StatusOK)
			tok, _, r = e.login("maria@loja.com", "segredo-forte")
			r.wantStatus(t, http.StatusOK)
			e.get(tok, "/users").wantStatus(t, http.StatusOK)
		})
	}, withTenants())
}

func TestClusterRoute(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		for _, who := range []string{"manager", "superv", "ana", "bruno"} {
			e.get(e.tok(who), "/cluster").wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		}
		for _, who := range []string{"admin", "super", "admin2"} {
			var v httpapi.ClusterView
			r := e.get(e.tok(who), "/cluster")
			r.wantStatus(t, http.StatusOK)
			r.json(t, &v)
			if v.Mode != "single" || len(v.Members) != 1 || !v.Members[0].Self || v.Members[0].Actors["ticket"] != 2 {
				t.Fatalf("cluster %+v", v)
			}
		}
	}, withTenants())
}

func TestClusterRouteUnwired(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		e.get(e.tok("admin"), "/cluster").wantErr(t, http.StatusServiceUnavailable, engine.ErrUnavailable)
		e.get(e.tok("super"), "/tenants").wantErr(t, http.StatusServiceUnavailable, engine.ErrUnavailable)
	})
}
