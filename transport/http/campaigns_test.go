package httpapi_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"atende/engine"
	"atende/persistence/campaign"
	"atende/persistence/connection"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/schedule"
	"atende/persistence/store"
	httpapi "atende/transport/http"
	"atende/transport/media"
)

// campaignChannel records campaign sends and refuses the numbers in bad, as the
// WhatsApp adapter refuses a number not on WhatsApp.
type campaignChannel struct {
	mu   sync.Mutex
	sent map[engine.ID]string
	bad  map[string]bool
}

func (c *campaignChannel) SendCampaign(_ context.Context, _ engine.ID, m engine.CampaignOutbound) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bad[m.To] {
		return "", engine.Wrap(engine.ErrWappInvalidContact, fmt.Errorf("%s is not on WhatsApp", m.To))
	}
	c.sent[m.MessageID] = m.Body + "|" + m.MediaType + ":" + m.MediaPath
	return "p", nil
}

type campaignEnv struct {
	*env
	store *campaign.Store
	ch    *campaignChannel
}

func eachCampaignEnv(t *testing.T, fn func(t *testing.T, e *campaignEnv)) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ce := &campaignEnv{ch: &campaignChannel{sent: map[engine.ID]string{}, bad: map[string]bool{"5565900000003": true}}}
		ce.env = newEnv(t, d, withDeps(func(e *env, deps *httpapi.Deps) {
			s, err := campaign.New(d, campaign.Config{Contacts: store.NewContacts(d, e.clock), Connections: connection.New(d, e.clock),
				Sender: ce.ch, Clock: e.clock, Interval: -1})
			if err != nil {
				t.Fatal(err)
			}
			ce.store = s
			deps.Campaigns = s
			ms, err := media.New(media.Config{Dir: t.TempDir(), Secret: testSecret, MaxImage: testMaxImage, BaseURL: "/media"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ms.Close() })
			deps.Media = ms
		}))
		if err := schedule.Migrate(context.Background(), d); err != nil {
			t.Fatal(err)
		}
		dbtest.MustExec(t, d, `INSERT INTO connections (id, company_id, name, channel, status, is_default, token, created_at, updated_at) VALUES
			(1, 1, 'Vendas', 'whatsapp', 'CONNECTED', TRUE, 't1', 0, 0), (3, 2, 'Outra', 'whatsapp', 'CONNECTED', TRUE, 't3', 0, 0)`)
		const at = "2026-11-22T10:00:00Z"
		dbtest.MustExec(t, d, `INSERT INTO contacts (id, company_id, name, name_norm, number, search, created_at, updated_at) VALUES
			(101, 1, 'Maria', 'maria', '5565900000001', 'maria', '`+at+`', '`+at+`'),
			(102, 1, '=HYPERLINK("x")', 'x', '5565900000002', 'x', '`+at+`', '`+at+`'),
			(103, 1, 'Sem WhatsApp', 'sem', '5565900000003', 'sem', '`+at+`', '`+at+`'),
			(201, 2, 'Outro', 'outro', '5565900000009', 'outro', '`+at+`', '`+at+`')`)
		fn(t, ce)
	})
}

func TestCampaignRoutes(t *testing.T) {
	eachCampaignEnv(t, func(t *testing.T, e *campaignEnv) {
		admin, admin2 := e.tok("admin"), e.tok("admin2")
		broadcast := map[string]any{"kind": "broadcast", "sendFrom": []int{1}, "contactIds": []int{101, 102, 103},
			"messages": []map[string]any{{"body": "Oi {{firstName}}"}}}

		// Only the business section's profiles (admin, super).
		for profile, local := range refProfiles {
			r := e.get(e.tok(local), "/campaigns?kind=broadcast")
			if profile == engine.ProfileAdmin || profile == engine.ProfileSuper {
				r.wantStatus(t, http.StatusOK)
				continue
			}
			r.wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			e.post(e.tok(local), "/campaigns", broadcast).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		}
		e.get(admin, "/campaigns?kind=spam").wantErr(t, http.StatusBadRequest, engine.ErrValidation)

		// Section 5, in order: channel, contacts, credits.
		e.post(admin, "/campaigns", map[string]any{"kind": "broadcast", "contactIds": []int{101},
			"messages": []map[string]any{{"body": "x"}}}).wantErr(t, http.StatusBadRequest, engine.ErrNoChannelSelected)
		e.post(admin, "/campaigns", map[string]any{"kind": "broadcast", "sendFrom": []int{1},
			"messages": []map[string]any{{"body": "x"}}}).wantErr(t, http.StatusBadRequest, engine.ErrNoContactsSelected)
		e.post(admin, "/campaigns", broadcast).wantErr(t, http.StatusPaymentRequired, engine.ErrNoCredits)
		e.put(e.tok("superv"), "/campaigns/credits", map[string]any{"credits": 10}).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		e.put(admin, "/campaigns/credits", map[string]any{"credits": -1}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		e.put(admin, "/campaigns/credits", map[string]any{"credits": 10}).wantStatus(t, http.StatusOK)
		// Another tenant's contacts are not reachable; its connection is not either.
		e.post(admin, "/campaigns", map[string]any{"kind": "broadcast", "sendFrom": []int{1}, "contactIds": []int{201},
			"messages": []map[string]any{{"body": "x"}}}).wantErr(t, http.StatusBadRequest, engine.ErrNoContactsSelected)
		e.post(admin, "/campaigns", map[string]any{"kind": "broadcast", "sendFrom": []int{3}, "contactIds": []int{101},
			"messages": []map[string]any{{"body": "x"}}}).wantErr(t, http.StatusNotFound, engine.ErrNoWappFound)
		e.pub.take()

		r := e.post(admin, "/campaigns", broadcast)
		r.wantStatus(t, http.StatusCreated)
		var c engine.Campaign
		r.json(t, &c)
		if c.Total != 3 || c.Pending != 3 || c.Status != engine.CampaignRunning {
			t.Fatalf("created %+v", c)
		}
		evs := e.pub.take()
		if len(evs) != 1 || evs[0].Name != "campaign" || evs[0].Payload["action"] != "create" || evs[0].Payload["_permission"] != engine.ActViewAdminMenu {
			t.Fatalf("events %+v", evs)
		}
		path := fmt.Sprintf("/campaigns/%d", c.ID)
		e.get(admin2, path).wantErr(t, http.StatusNotFound, engine.ErrNoCampaignFound)
		e.get(admin2, path+"/sends").wantErr(t, http.StatusNotFound, engine.ErrNoCampaignFound)
		e.post(admin2, path+"/pause", nil).wantErr(t, http.StatusNotFound, engine.ErrNoCampaignFound)
		e.del(admin2, path).wantErr(t, http.StatusNotFound, engine.ErrNoCampaignFound)
		e.del(admin, path).wantErr(t, http.StatusMethodNotAllowed, engine.ErrCampaignNotRemovable)
		e.get(admin, "/campaigns/abc").wantErr(t, http.StatusNotFound, engine.ErrNoCampaignFound)

		for res, err := e.store.Step(context.Background(), 1, c.ID, 1); !res.Done; res, err = e.store.Step(context.Background(), 1, c.ID, 1) {
			if err != nil {
				t.Fatal(err)
			}
		}
		r = e.get(admin, path)
		r.json(t, &c)
		if c.Status != engine.CampaignFinished || c.Sent != 2 || c.Errors != 1 {
			t.Fatalf("after sending: %+v", c)
		}
		r = e.get(admin, path+"/sends?status=error")
		r.wantStatus(t, http.StatusOK)
		var page struct {
			Sends   []engine.CampaignSend `json:"sends"`
			HasMore bool                  `json:"hasMore"`
		}
		r.json(t, &page)
		if len(page.Sends) != 1 || page.Sends[0].ContactID != 103 || !strings.Contains(page.Sends[0].Error, string(engine.ErrWappInvalidContact)) {
			t.Fatalf("error sends %+v", page)
		}
		for _, q := range []string{"?status=lost", "?limit=0", "?limit=5000", "?after=-1", "?after=x"} {
			e.get(admin, path+"/sends"+q).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		}
		r = e.get(admin, path+"/sends?limit=2")
		r.json(t, &page)
		if len(page.Sends) != 2 || !page.HasMore {
			t.Fatalf("page of 2: %+v", page)
		}

		r = e.get(admin, path+"/report.csv")
		r.wantStatus(t, http.StatusOK)
		rows, err := csv.NewReader(strings.NewReader(string(r.Body))).ReadAll()
		if err != nil || len(rows) != 4 || rows[0][5] != "status" {
			t.Fatalf("report %q %v", r.Body, err)
		}
		if rows[2][1] != `'=HYPERLINK("x")` || rows[2][5] != "sent" || rows[3][5] != "error" || rows[2][7] == "" {
			t.Fatalf("report rows %q", rows)
		}
		if credits := e.get(admin, "/campaigns/credits").obj(t)["credits"]; credits != float64(8) {
			t.Fatalf("credits %v, want 8 (two sent)", credits)
		}
		e.post(admin, path+"/pause", nil).wantErr(t, http.StatusConflict, engine.ErrCampaignTransition)
	})
}

func TestCampaignValidationAndLifecycle(t *testing.T) {
	eachCampaignEnv(t, func(t *testing.T, e *campaignEnv) {
		admin := e.tok("admin")
		r := e.post(admin, "/campaigns", map[string]any{"kind": "campaign"})
		b := r.wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		for _, f := range []string{"name", "contacts", "nameFilter", "channelFilter", "startAt", "messages"} {
			if b.Fields[f] == "" {
				t.Errorf("field %s missing in %v", f, b.Fields)
			}
		}
		e.post(admin, "/campaigns", map[string]any{"kind": "campaign", "name": "x", "contactIds": []int{101}, "nameFilter": "%",
			"channelFilter": "%", "startAt": "ontem", "messages": []map[string]any{{"body": "x"}}}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		e.post(admin, "/campaigns", map[string]any{"kind": "campaign", "name": "x", "contactIds": []int{101}, "nameFilter": "%",
			"channelFilter": "%", "startAt": "2026-11-22T12:00", "messages": []map[string]any{{"body": "x", "mediaPath": "2/secret.png"}}}).
			wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		e.post(admin, "/campaigns", `{"kind":"campaign","name":`).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)

		// A campaign that starts later (10:00 in Cuiabá is 14:00 UTC): scheduled, then
		// paused, resumed, cancelled.
		r = e.post(admin, "/campaigns", map[string]any{"kind": "campaign", "name": "Natal", "planName": "Plano A",
			"contactIds": []int{101, 102}, "nameFilter": "M%", "channelFilter": "whats%", "includeDefault": true,
			"startAt": "2026-11-22T10:00", "messages": []map[string]any{{"seq": 2, "body": "segunda"}, {"seq": 1, "body": "primeira @param1"}},
			"buttons": map[string]any{"url1Caption": "Site", "url1": "https://loja.example"}})
		r.wantStatus(t, http.StatusCreated)
		var c engine.Campaign
		r.json(t, &c)
		if c.Status != engine.CampaignScheduled || c.Total != 2 || c.StartAt.Hour() != 14 || c.PlanName != "Plano A" {
			t.Fatalf("created %+v", c) // nameFilter M% keeps Maria only: 1 contact × 2 messages
		}
		path := fmt.Sprintf("/campaigns/%d", c.ID)
		e.post(admin, path+"/resume", nil).wantErr(t, http.StatusConflict, engine.ErrCampaignTransition)
		e.post(admin, path+"/pause", nil).wantStatus(t, http.StatusOK)
		r = e.post(admin, path+"/resume", nil)
		r.json(t, &c)
		if c.Status != engine.CampaignScheduled {
			t.Fatalf("resumed before its start: %+v", c)
		}
		r = e.post(admin, path+"/cancel", nil)
		r.json(t, &c)
		if c.Status != engine.CampaignCancelled {
			t.Fatalf("cancelled: %+v", c)
		}
		var list struct {
			Campaigns []engine.Campaign `json:"campaigns"`
		}
		e.get(admin, "/campaigns").json(t, &list)
		if len(list.Campaigns) != 1 || list.Campaigns[0].ID != c.ID {
			t.Fatalf("list %+v", list)
		}
		e.get(e.tok("admin2"), "/campaigns").json(t, &list)
		if len(list.Campaigns) != 0 {
			t.Fatalf("tenant 2 lists %+v", list)
		}
	})
}

func TestCampaignCSVPreview(t *testing.T) {
	eachCampaignEnv(t, func(t *testing.T, e *campaignEnv) {
		admin := e.tok("admin")
		text := "numero;nome;p1\n5565900000001;Maria;fatura\nxx;ruim\n5565900000004;\"aberto\n"
		var out engine.CampaignCSV
		r := e.post(admin, "/campaigns/csv", map[string]any{"csv": text})
		r.wantStatus(t, http.StatusOK)
		r.json(t, &out)
		if len(out.Contacts) != 1 || out.Contacts[0].Params[0] != "fatura" || len(out.Errors) != 2 ||
			out.Errors[0].Line != 3 || out.Errors[1].Message != engine.MsgCSVFormat {
			t.Fatalf("preview %+v", out)
		}
		body, ct := multipartBody(t, formPart{name: "file", fileName: "c.csv", contentType: "text/csv", data: []byte("\x00\xff\xfe;;\n5565900000005\n")})
		r = e.do(req{method: "POST", path: "/campaigns/csv", token: admin, body: body, header: map[string]string{"Content-Type": ct}})
		r.wantStatus(t, http.StatusOK)
		r.json(t, &out)
		if len(out.Contacts) != 1 || out.Contacts[0].Number != "5565900000005" {
			t.Fatalf("binary preview %+v", out)
		}
		body, ct = multipartBody(t, formPart{name: "other", data: []byte("x")})
		e.do(req{method: "POST", path: "/campaigns/csv", token: admin, body: body, header: map[string]string{"Content-Type": ct}}).
			wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		e.post(e.tok("ana"), "/campaigns/csv", map[string]any{"csv": text}).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)

		// The preview's lines create a campaign; unknown numbers become contacts.
		r = e.post(admin, "/campaigns", map[string]any{"kind": "campaign", "name": "CSV", "csv": []map[string]any{
			{"number": "5565900000001", "params": []string{"fatura"}}, {"number": "5565900000077", "name": "Nova", "params": []string{"boleto"}}},
			"nameFilter": "%", "channelFilter": "%", "includeDefault": true, "startAt": "2026-11-22T12:00:00Z",
			"messages": []map[string]any{{"body": "Sua @param1, {{name}}"}}})
		r.wantStatus(t, http.StatusCreated)
		var c engine.Campaign
		r.json(t, &c)
		for res, err := e.store.Step(context.Background(), 1, c.ID, 1); !res.Done; res, err = e.store.Step(context.Background(), 1, c.ID, 1) {
			if err != nil {
				t.Fatal(err)
			}
		}
		bodies := map[string]bool{}
		e.ch.mu.Lock()
		for _, b := range e.ch.sent {
			bodies[b] = true
		}
		e.ch.mu.Unlock()
		if !bodies["Sua fatura, Maria|:"] || !bodies["Sua boleto, Nova|:"] || len(bodies) != 2 {
			t.Fatalf("bodies %v", bodies)
		}
	})
}

// A broadcast with media: the file is uploaded first (POST /campaigns/media) and the
// message names it; a path of another tenant is refused.
func TestCampaignBroadcastWithMedia(t *testing.T) {
	eachCampaignEnv(t, func(t *testing.T, e *campaignEnv) {
		admin := e.tok("admin")
		body, ct := multipartBody(t, formPart{name: "file", fileName: "promo.png", contentType: "image/png", data: pngFile})
		e.do(req{method: "POST", path: "/campaigns/media", token: e.tok("ana"), body: body, header: map[string]string{"Content-Type": ct}}).
			wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		r := e.do(req{method: "POST", path: "/campaigns/media", token: admin, body: body, header: map[string]string{"Content-Type": ct}})
		r.wantStatus(t, http.StatusCreated)
		up := r.obj(t)
		path, _ := up["mediaPath"].(string)
		if !strings.HasPrefix(path, "1/") || up["mediaType"] != engine.MediaImage {
			t.Fatalf("upload %v", up)
		}
		if err := e.store.SetCredits(context.Background(), 1, 5); err != nil {
			t.Fatal(err)
		}
		msg := map[string]any{"kind": "broadcast", "sendFrom": []int{1}, "contactIds": []int{101},
			"messages": []map[string]any{{"body": "Oferta", "mediaType": "image", "mediaPath": path}}}
		r = e.post(admin, "/campaigns", msg)
		r.wantStatus(t, http.StatusCreated)
		var c engine.Campaign
		r.json(t, &c)
		for res, err := e.store.Step(context.Background(), 1, c.ID, 1); !res.Done; res, err = e.store.Step(context.Background(), 1, c.ID, 1) {
			if err != nil {
				t.Fatal(err)
			}
		}
		e.ch.mu.Lock()
		got := fmt.Sprint(e.ch.sent)
		e.ch.mu.Unlock()
		if !strings.Contains(got, "Oferta|image:"+path) {
			t.Fatalf("sent %s", got)
		}
		e.post(e.tok("admin2"), "/campaigns", map[string]any{"kind": "broadcast", "sendFrom": []int{3}, "contactIds": []int{201},
			"messages": []map[string]any{{"body": "x", "mediaType": "image", "mediaPath": path}}}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
	})
}
