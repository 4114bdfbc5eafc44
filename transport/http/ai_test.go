package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"atende/engine"
	"atende/persistence/aiconfig"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/transport/ai"
	"atende/transport/ai/fakeai"
	httpapi "atende/transport/http"
)

// GetMessages lets the world answer single messages, as the read model does.
func (w *world) GetMessages(ctx context.Context, companyID engine.ID, ids []engine.ID) ([]engine.Message, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []engine.Message
	for _, ms := range w.msgs {
		for _, m := range ms {
			for _, id := range ids {
				if m.ID == id && m.CompanyID == companyID {
					out = append(out, m)
				}
			}
		}
	}
	return out, nil
}

// aiEnv is a ticketEnv whose server also has the AI routes, on a real config store
// and the real client against the fake provider.
type aiEnv struct {
	*ticketEnv
	fake    *fakeai.Fake
	configs *aiconfig.Store
	base    string
}

func newAIEnv(t *testing.T, d *db.DB) *aiEnv {
	t.Helper()
	fake := fakeai.New("sk-good")
	srv := httptest.NewServer(fake.Handler())
	t.Cleanup(srv.Close)
	seal, err := aiconfig.NewSealer("test-key")
	if err != nil {
		t.Fatal(err)
	}
	configs := aiconfig.New(d, seal, nil)
	prev := extraTicketDeps
	extraTicketDeps = func(deps *httpapi.Deps) {
		deps.AIDeps = httpapi.AIDeps{AI: ai.New(configs, ai.Config{}), AIConfigs: configs}
	}
	te := newTicketEnv(t, d)
	extraTicketDeps = prev
	return &aiEnv{ticketEnv: te, fake: fake, configs: configs, base: srv.URL + "/v1"}
}

func (e *aiEnv) configure(t *testing.T) {
	t.Helper()
	e.put(e.tok("admin"), "/iaconfig", map[string]any{"baseUrl": e.base, "apiKey": "sk-good", "model": "gpt-test"}).wantStatus(t, http.StatusOK)
}

func TestAIConfigRoutes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		e := newAIEnv(t, d)
		admin, ana := e.tok("admin"), e.tok("ana")
		var v engine.AIConfigView
		e.get(ana, "/iaconfig").json(t, &v)
		if v.Configured {
			t.Fatalf("configured before saving: %+v", v)
		}
		// Only ai:manage saves, tests and edits intents.
		e.put(ana, "/iaconfig", map[string]any{"baseUrl": e.base, "model": "m"}).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		e.post(ana, "/iaconfig/test", map[string]any{"baseUrl": e.base, "model": "m"}).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		e.get(e.tok("superv"), "/intents").wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		b := e.put(admin, "/iaconfig", map[string]any{"baseUrl": "file:///etc/passwd", "model": ""}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		if b.Fields["baseUrl"] != engine.MsgInvalidValue || b.Fields["model"] != engine.MsgRequired {
			t.Fatalf("fields %v", b.Fields)
		}
		e.put(admin, "/iaconfig", `{"baseUrl": 5}`).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
		// The test button: a wrong key is the provider's refusal; the right one works.
		e.post(admin, "/iaconfig/test", map[string]any{"baseUrl": e.base, "apiKey": "sk-bad", "model": "m"}).wantErr(t, http.StatusBadGateway, engine.ErrAICredentials)
		e.post(admin, "/iaconfig/test", map[string]any{"baseUrl": e.base, "apiKey": "sk-good", "model": "m"}).wantStatus(t, http.StatusOK)
		e.configure(t)
		r := e.get(admin, "/iaconfig")
		r.json(t, &v)
		if !v.Configured || !v.HasKey || v.Model != "gpt-test" || strings.Contains(string(r.Body), "sk-good") {
			t.Fatalf("admin view %s", r.Body)
		}
		// The stored key fills an empty one in a test.
		e.post(admin, "/iaconfig/test", map[string]any{"baseUrl": e.base, "model": "m"}).wantStatus(t, http.StatusOK)
		r = e.get(ana, "/iaconfig")
		if strings.Contains(string(r.Body), e.base) || !strings.Contains(string(r.Body), `"configured":true`) {
			t.Fatalf("attendant view %s", r.Body)
		}
		// Another tenant is not configured by it.
		e.get(e.tok("admin2"), "/iaconfig").json(t, &v)
		if v.Configured {
			t.Fatalf("tenant 2 sees tenant 1's configuration")
		}
		found := false
		for _, ev := range e.pub.take() {
			found = found || ev.Name == "aiConfig"
		}
		if !found {
			t.Errorf("no aiConfig event")
		}

		// Intents: the queue must be the tenant's.
		var in engine.AIIntent
		e.post(admin, "/intents", map[string]any{"name": "Financeiro", "examples": []string{"boleto"}, "queueId": 11}).wantStatus(t, http.StatusCreated)
		e.post(admin, "/intents", map[string]any{"name": "Alheia", "examples": []string{"x"}, "queueId": 21}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		var list []engine.AIIntent
		e.get(admin, "/intents").json(t, &list)
		if len(list) != 1 {
			t.Fatalf("intents %+v", list)
		}
		in = list[0]
		e.put(e.tok("admin2"), "/intents/"+id(in.ID), map[string]any{"name": "Xx", "examples": []string{"x"}, "queueId": 21}).wantErr(t, http.StatusNotFound, engine.ErrNotFound)
		e.del(e.tok("admin2"), "/intents/"+id(in.ID)).wantErr(t, http.StatusNotFound, engine.ErrNotFound)
		e.del(admin, "/intents/"+id(in.ID)).wantStatus(t, http.StatusNoContent)
	})
}

func TestAskAIAndTranslate(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		e := newAIEnv(t, d)
		e.fixtures(t)
		ana := e.tok("ana")
		// Without a configuration: the code the composer shows as a toast.
		e.post(ana, "/messages/askgpt/"+id(tOpenAna), map[string]any{"body": "E agora?"}).wantErr(t, http.StatusConflict, engine.ErrAINotConfigured)
		e.configure(t)
		e.w.system(t, tOpenAna, engine.ReceiveMessage{MessageID: 77, ProviderID: "in-77", Body: "Meu pedido não chegou"})
		e.w.takeCalls()

		r := e.post(ana, "/messages/askgpt/"+id(tOpenAna), map[string]any{"body": "O que respondo?"})
		r.wantStatus(t, http.StatusCreated)
		var m engine.Message
		r.json(t, &m)
		if m.MediaType != engine.MediaChatGPT || !strings.HasPrefix(m.Body, "AI answer (2 turns): ") {
			t.Fatalf("answer %s", r.Body)
		}
		c := e.oneCall(t)
		if w, ok := c.Cmd.(engine.AddWhisper); !ok || w.MediaType != engine.MediaChatGPT || w.SenderID != e.ids["ana"] {
			t.Fatalf("command %#v: an AI answer must be recorded as a note, never sent", c.Cmd)
		}
		reqs := e.fake.Requests()
		if got := reqs[len(reqs)-1].Messages; len(got) != 3 || got[1].Content != "Customer: Meu pedido não chegou" {
			t.Fatalf("the provider got %+v", got)
		}
		// Someone else's open ticket, another tenant's, a closed one: refused before the provider is asked.
		before := len(e.fake.Requests())
		e.post(ana, "/messages/askgpt/"+id(tOpenBrun), map[string]any{"body": "x"}).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		e.post(e.tok("admin2"), "/messages/askgpt/"+id(tOpenAna), map[string]any{"body": "x"}).wantErr(t, http.StatusNotFound, engine.ErrNoTicketFound)
		e.post(ana, "/messages/askgpt/"+id(tClosed), map[string]any{"body": "x"}).wantErr(t, http.StatusConflict, engine.ErrInvalidTransition)
		e.post(ana, "/messages/askgpt/"+id(tOpenAna), map[string]any{"body": " "}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		if n := len(e.fake.Requests()); n != before {
			t.Fatalf("%d provider requests for refused questions", n-before)
		}
		// Provider failures become their codes and record nothing.
		e.post(ana, "/messages/askgpt/"+id(tOpenAna), map[string]any{"body": "x [fake:429]"}).wantErr(t, http.StatusTooManyRequests, engine.ErrAIRateLimited)
		e.post(ana, "/messages/askgpt/"+id(tOpenAna), map[string]any{"body": "x [fake:500]"}).wantErr(t, http.StatusBadGateway, engine.ErrAIUnavailable)
		e.noCall(t)

		// Translating the customer's message.
		r = e.put(ana, "/messages/77", map[string]any{"language": "es"})
		r.wantStatus(t, http.StatusOK)
		r.json(t, &m)
		if m.Translation != "[Spanish] Meu pedido não chegou" || m.TranslationLanguage != "es" || m.Body != "Meu pedido não chegou" {
			t.Fatalf("translated %s", r.Body)
		}
		if tr, ok := e.oneCall(t).Cmd.(engine.TranslateMessage); !ok || tr.MessageID != 77 || tr.Language != "es" {
			t.Fatalf("command %#v", tr)
		}
		b := e.put(ana, "/messages/77", map[string]any{"language": "fr"}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		if b.Fields["language"] != engine.MsgInvalidValue {
			t.Fatalf("fields %v", b.Fields)
		}
		e.put(ana, "/messages/77", map[string]any{}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		e.put(e.tok("admin2"), "/messages/77", map[string]any{"language": "gb"}).wantErr(t, http.StatusNotFound, engine.ErrNoMessageFound)
		e.put(ana, "/messages/999999", map[string]any{"language": "gb"}).wantErr(t, http.StatusNotFound, engine.ErrNoMessageFound)
		e.noCall(t)

		// The composer's translation toggle: the customer gets the translation.
		r = e.post(ana, "/messages/translated/"+id(tOpenAna), map[string]any{"body": "Já verifico", "language": "gb"})
		r.wantStatus(t, http.StatusCreated)
		if s, ok := e.oneCall(t).Cmd.(engine.SendMessage); !ok || s.Body != "[English] Já verifico" {
			t.Fatalf("sent %#v", s)
		}
	})
}

func TestTextToAudio(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		e := newAIEnv(t, d)
		e.fixtures(t)
		ana := e.tok("ana")
		e.configure(t)
		r := e.post(ana, "/messages/audio/"+id(tOpenAna), map[string]any{"body": "Seu pedido sai hoje"})
		r.wantStatus(t, http.StatusCreated)
		s, ok := e.oneCall(t).Cmd.(engine.SendMessage)
		if !ok || s.MediaType != engine.MediaAudio || !strings.HasPrefix(s.MediaURL, "1/") || !strings.HasSuffix(s.MediaURL, ".wav") {
			t.Fatalf("sent %#v", s)
		}
		if len(e.storedFiles(t, co1)) != 1 || e.fake.Speeches() != 1 {
			t.Fatalf("stored %v, speeches %d", e.storedFiles(t, co1), e.fake.Speeches())
		}
		e.post(ana, "/messages/audio/"+id(tOpenAna), map[string]any{"body": "x [fake:401]"}).wantErr(t, http.StatusBadGateway, engine.ErrAICredentials)
		e.noCall(t)
	})
}
