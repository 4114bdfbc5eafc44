package flowapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/flow"
	"atende/transport/channel/channeltest"
	"atende/transport/flowapi"
)

const okDoc = `{"nodes":[{"id":"s","type":"start"},{"id":"e","type":"end","data":{"text":"tchau"}}],"edges":[{"source":"s","target":"e"}]}`

type pub struct {
	mu  sync.Mutex
	got []string
}

func (p *pub) PublishTo(companyID engine.ID, event, permission string, payload any) {
	b, _ := json.Marshal(payload)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got = append(p.got, event+" "+permission+" "+string(b))
}

func do(t *testing.T, h http.Handler, method, path, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	out := map[string]any{}
	_ = json.Unmarshal(rec.Body.Bytes(), &out)
	return rec.Code, out
}

func TestFlowRoutes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		dbtest.MustExec(t, d, `INSERT INTO companies (id, name) VALUES (1, 'A'), (2, 'B')`)
		p := &pub{}
		svc := &flowapi.Service{Flows: flow.NewStore(d, nil), Publisher: p}
		router := func(pr engine.Principal) http.Handler {
			r := channeltest.NewRouter(pr)
			svc.Routes(r)
			return r.Mux
		}
		superv := router(engine.Principal{UserID: 1, CompanyID: 1, Profile: engine.ProfileSuperv})
		user := router(engine.Principal{UserID: 2, CompanyID: 1, Profile: engine.ProfileUser})
		other := router(engine.Principal{UserID: 3, CompanyID: 2, Profile: engine.ProfileAdmin})

		code, f := do(t, superv, "POST", "/flows", `{"name":"Boas-vindas","isActive":true,"dataJson":`+okDoc+`}`)
		if code != http.StatusCreated || f["name"] != "Boas-vindas" {
			t.Fatalf("create = %d %v", code, f)
		}
		id := int64(f["id"].(float64))
		path := "/flows/" + json.Number(strings.TrimSpace(string(mustJSON(id)))).String()
		if len(p.got) != 1 || !strings.HasPrefix(p.got[0], "flow flows:manage {\"action\":\"create\"") {
			t.Fatalf("published %v", p.got)
		}
		for _, tc := range []struct {
			name   string
			h      http.Handler
			method string
			path   string
			body   string
			status int
			code   string
			field  string
		}{
			{"attendants may not list", user, "GET", "/flows", "", 403, "ERR_NO_PERMISSION", ""},
			{"attendants may not create", user, "POST", "/flows", `{"name":"x1","dataJson":` + okDoc + `}`, 403, "ERR_NO_PERMISSION", ""},
			{"another tenant reads nothing", other, "GET", path, "", 404, "ERR_NO_FLOW_FOUND", ""},
			{"another tenant deletes nothing", other, "DELETE", path, "", 404, "ERR_NO_FLOW_FOUND", ""},
			{"bad id", superv, "GET", "/flows/abc", "", 404, "ERR_NO_FLOW_FOUND", ""},
			{"malformed body", superv, "POST", "/flows", `{"name":`, 400, "ERR_INVALID_JSON", ""},
			{"mistyped body", superv, "POST", "/flows", `{"name":5}`, 400, "ERR_INVALID_JSON", ""},
			{"no name", superv, "POST", "/flows", `{"dataJson":` + okDoc + `}`, 400, "ERR_VALIDATION", "name"},
			{"document not a graph", superv, "POST", "/flows", `{"name":"ab","dataJson":"hello"}`, 400, "ERR_VALIDATION", "dataJson"},
			{"unreachable node named", superv, "PUT", path, `{"name":"ab","dataJson":{"nodes":[{"id":"s","type":"start"},{"id":"e","type":"end"},{"id":"lost","type":"end"}],"edges":[{"source":"s","target":"e"}]}}`, 400, "ERR_FLOW_INVALID", "nodes.lost"},
			{"unknown kind named", superv, "POST", "/flows", `{"name":"ab","dataJson":{"nodes":[{"id":"s","type":"start"},{"id":"x","type":"rocket"}],"edges":[{"source":"s","target":"x"}]}}`, 400, "ERR_FLOW_INVALID", "nodes.x"},
			{"too large", superv, "POST", "/flows", `{"name":"ab","dataJson":{"nodes":[],"pad":"` + strings.Repeat("x", engine.FlowMaxBytes+20<<10) + `"}}`, 413, "ERR_BODY_TOO_LARGE", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				status, body := do(t, tc.h, tc.method, tc.path, tc.body)
				if status != tc.status || body["error"] != tc.code {
					t.Fatalf("%d %v, want %d %s", status, body, tc.status, tc.code)
				}
				if tc.field != "" {
					fields, _ := body["fields"].(map[string]any)
					if fields[tc.field] == nil {
						t.Fatalf("fields %v do not name %s", fields, tc.field)
					}
				}
			})
		}
		code, list := do(t, superv, "GET", "/flows", "")
		if code != 200 || list["count"].(float64) != 1 {
			t.Fatalf("list = %d %v", code, list)
		}
		if code, _ := do(t, superv, "DELETE", path, ""); code != http.StatusNoContent {
			t.Fatalf("delete = %d", code)
		}
		if len(p.got) != 2 || !strings.Contains(p.got[1], `"action":"delete"`) {
			t.Fatalf("published %v", p.got)
		}
	})
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
