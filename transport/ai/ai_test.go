package ai_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/transport/ai"
	"atende/transport/ai/fakeai"
)

// memStore is an engine.AIConfigStore of one map (the SQL store has its own tests).
type memStore struct {
	mu      sync.Mutex
	cfg     map[engine.ID]engine.AIConfig
	intents []engine.AIIntent
}

func (m *memStore) AIConfig(_ context.Context, id engine.ID) (engine.AIConfig, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.cfg[id]
	if !ok {
		return engine.AIConfig{CompanyID: id}, nil
	}
	return c, nil
}
func (m *memStore) PutAIConfig(_ context.Context, c engine.AIConfig) (engine.AIConfig, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cfg[c.CompanyID] = c
	return c, nil
}
func (m *memStore) Intents(context.Context, engine.ID) ([]engine.AIIntent, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.intents, nil
}
func (m *memStore) PutIntent(_ context.Context, in engine.AIIntent) (engine.AIIntent, error) {
	return in, nil
}
func (m *memStore) DeleteIntent(context.Context, engine.ID, engine.ID) error { return nil }

// rig is a fake provider and a client whose tenant 1 points at it with the right key.
func rig(t *testing.T, cfg ai.Config) (*fakeai.Fake, *ai.Client, *memStore, string) {
	t.Helper()
	fake := fakeai.New("sk-good")
	srv := httptest.NewServer(fake.Handler())
	t.Cleanup(srv.Close)
	store := &memStore{cfg: map[engine.ID]engine.AIConfig{
		1: {CompanyID: 1, BaseURL: srv.URL + "/v1", APIKey: "sk-good", Model: "gpt-test", SpeechModel: "tts-test", Voice: "alloy"},
	}}
	return fake, ai.New(store, cfg), store, srv.URL + "/v1"
}

func TestCompleteAndSpeakAgainstTheFake(t *testing.T) {
	fake, c, _, _ := rig(t, ai.Config{})
	ctx := context.Background()
	msgs := engine.AskPrompt([]engine.Message{{Body: "Meu pedido atrasou"}, {Body: "Vou verificar", FromMe: true}}, "O que ofereço?")
	answer, err := c.Complete(ctx, 1, msgs)
	if err != nil {
		t.Fatal(err)
	}
	if answer != "AI answer (3 turns): Attendant's question: O que ofereço?" {
		t.Errorf("answer %q", answer)
	}
	reqs := fake.Requests()
	if len(reqs) != 1 || reqs[0].Model != "gpt-test" || len(reqs[0].Messages) != 4 ||
		reqs[0].Messages[0].Role != "system" || reqs[0].Messages[1].Content != "Customer: Meu pedido atrasou" {
		t.Fatalf("the provider read %+v", reqs)
	}
	tr, err := c.Complete(ctx, 1, engine.TranslatePrompt("Bom dia", "es"))
	if err != nil || tr != "[Spanish] Bom dia" {
		t.Errorf("translation %q %v", tr, err)
	}
	audio, mt, err := c.Speak(ctx, 1, "Olá, tudo bem?")
	if err != nil {
		t.Fatal(err)
	}
	if mt != "audio/wav" || !bytes.HasPrefix(audio, []byte("RIFF")) || !bytes.Equal(audio[8:12], []byte("WAVE")) {
		t.Errorf("speech %s, %d bytes", mt, len(audio))
	}
	if fake.Speeches() != 1 {
		t.Errorf("speeches %d", fake.Speeches())
	}
}

func TestProviderFailuresMapToCodes(t *testing.T) {
	fake, c, store, base := rig(t, ai.Config{Timeout: 2 * time.Second, MaxBodyBytes: 256 << 10})
	ctx := context.Background()
	cases := []struct {
		failure string
		want    engine.Code
	}{
		{fakeai.FailUnauthorized, engine.ErrAICredentials},
		{fakeai.FailRateLimited, engine.ErrAIRateLimited},
		{fakeai.FailServer, engine.ErrAIUnavailable},
		{fakeai.FailTimeout, engine.ErrAIUnavailable},
		{fakeai.FailBadJSON, engine.ErrAIUnavailable},
		{fakeai.FailHuge, engine.ErrAIUnavailable},
	}
	for _, tc := range cases {
		t.Run("set "+tc.failure, func(t *testing.T) {
			fake.SetFailure(tc.failure)
			defer fake.SetFailure(fakeai.FailNone)
			if _, err := c.Complete(ctx, 1, []engine.AIMessage{{Role: engine.AIRoleUser, Content: "oi"}}); engine.CodeOf(err) != tc.want {
				t.Errorf("complete: %v, want %s", err, tc.want)
			}
			if _, _, err := c.Speak(ctx, 1, "oi"); engine.CodeOf(err) != tc.want {
				t.Errorf("speak: %v, want %s", err, tc.want)
			}
		})
		t.Run("marker "+tc.failure, func(t *testing.T) {
			_, err := c.Complete(ctx, 1, []engine.AIMessage{{Role: engine.AIRoleUser, Content: "oi [fake:" + tc.failure + "]"}})
			if engine.CodeOf(err) != tc.want {
				t.Errorf("complete: %v, want %s", err, tc.want)
			}
		})
	}
	// A wrong key is the provider's 401.
	_, _ = store.PutAIConfig(ctx, engine.AIConfig{CompanyID: 2, BaseURL: base, APIKey: "sk-bad", Model: "m", SpeechModel: "s", Voice: "alloy"})
	if _, err := c.Complete(ctx, 2, []engine.AIMessage{{Role: engine.AIRoleUser, Content: "oi"}}); engine.CodeOf(err) != engine.ErrAICredentials {
		t.Errorf("wrong key: %v", err)
	}
	if err := c.Check(ctx, engine.AIConfig{CompanyID: 2, BaseURL: base, APIKey: "sk-good", Model: "m"}); err != nil {
		t.Errorf("check with the right key: %v", err)
	}
	// A tenant without a configuration.
	if _, err := c.Complete(ctx, 3, nil); engine.CodeOf(err) != engine.ErrAINotConfigured {
		t.Errorf("unconfigured: %v", err)
	}
	if _, _, err := c.Speak(ctx, 3, "x"); engine.CodeOf(err) != engine.ErrAINotConfigured {
		t.Errorf("unconfigured speak: %v", err)
	}
	// Nobody listening.
	_, _ = store.PutAIConfig(ctx, engine.AIConfig{CompanyID: 4, BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	if _, err := c.Complete(ctx, 4, []engine.AIMessage{{Role: engine.AIRoleUser, Content: "oi"}}); engine.CodeOf(err) != engine.ErrAIUnavailable {
		t.Errorf("refused connection: %v", err)
	}
}

// hostile serves body with status 200 and content type ct to every request.
func hostile(t testing.TB, ct string, body []byte) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestHostileProviderAnswers(t *testing.T) {
	ctx := context.Background()
	cases := map[string]struct {
		ct   string
		body string
	}{
		"no choices":      {"application/json", `{"id":"x","choices":[]}`},
		"empty content":   {"application/json", `{"choices":[{"message":{"role":"assistant","content":"   "}}]}`},
		"not an object":   {"application/json", `[1,2,3]`},
		"html":            {"text/html", `<html>proxy error</html>`},
		"over the limit":  {"application/json", `{"choices":[{"message":{"content":"` + strings.Repeat("a", 70<<10) + `"}}]}`},
		"speech not json": {"application/json", `{"choices":[{"message":{"content":"NUL\u0000"}}]}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			base := hostile(t, tc.ct, []byte(tc.body))
			store := &memStore{cfg: map[engine.ID]engine.AIConfig{1: {CompanyID: 1, BaseURL: base, Model: "m", SpeechModel: "s", Voice: "alloy"}}}
			c := ai.New(store, ai.Config{MaxBodyBytes: 64 << 10})
			answer, err := c.Complete(ctx, 1, []engine.AIMessage{{Role: engine.AIRoleUser, Content: "oi"}})
			if name == "speech not json" {
				if err != nil || answer != "NUL" {
					t.Errorf("NUL not stripped: %q %v", answer, err)
				}
			} else if engine.CodeOf(err) != engine.ErrAIUnavailable {
				t.Errorf("answer %q, err %v", answer, err)
			}
			if _, _, err := c.Speak(ctx, 1, "oi"); engine.CodeOf(err) != engine.ErrAIUnavailable {
				t.Errorf("speak: %v", err)
			}
		})
	}
}

// FuzzProviderAnswer: whatever a provider answers, Complete gives an answer or an AI
// error code, and never panics.
func FuzzProviderAnswer(f *testing.F) {
	for _, s := range []string{`{"choices":[{"message":{"content":"ok"}}]}`, `{"choices":null}`, `{`, ``, `{"error":{"message":1}}`,
		`{"choices":[{"message":{"content":{"a":1}}}]}`} {
		f.Add([]byte(s))
	}
	var mu sync.Mutex
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		b := body
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}))
	defer srv.Close()
	store := &memStore{cfg: map[engine.ID]engine.AIConfig{1: {CompanyID: 1, BaseURL: srv.URL, Model: "m"}}}
	c := ai.New(store, ai.Config{MaxBodyBytes: 4 << 10})
	f.Fuzz(func(t *testing.T, b []byte) {
		mu.Lock()
		body = b
		mu.Unlock()
		answer, err := c.Complete(context.Background(), 1, []engine.AIMessage{{Role: engine.AIRoleUser, Content: "oi"}})
		if err != nil && engine.CodeOf(err) != engine.ErrAIUnavailable {
			t.Fatalf("code %s", engine.CodeOf(err))
		}
		if err == nil && (answer == "" || strings.ContainsRune(answer, 0)) {
			t.Fatalf("answer %q", answer)
		}
	})
}

func TestIntentQueue(t *testing.T) {
	fake, c, store, _ := rig(t, ai.Config{})
	ctx := context.Background()
	if q, ok, err := c.IntentQueue(ctx, 1, "boleto"); ok || err != nil || q != 0 {
		t.Fatalf("no intents: %d %v %v", q, ok, err)
	}
	store.intents = []engine.AIIntent{
		{ID: 1, Name: "Financeiro", Examples: []string{"segunda via do boleto"}, QueueID: 10},
		{ID: 2, Name: "Suporte", Examples: []string{"internet caiu"}, QueueID: 20},
	}
	before := len(fake.Requests())
	if q, ok, err := c.IntentQueue(ctx, 1, "minha internet caiu"); !ok || err != nil || q != 20 {
		t.Fatalf("by the model: %d %v %v", q, ok, err)
	}
	if len(fake.Requests()) != before+1 {
		t.Fatalf("the model was not asked")
	}
	// The provider fails: the keywords decide.
	fake.SetFailure(fakeai.FailServer)
	if q, ok, err := c.IntentQueue(ctx, 1, "quero a segunda via do boleto"); !ok || err != nil || q != 10 {
		t.Fatalf("keyword fallback: %d %v %v", q, ok, err)
	}
	fake.SetFailure(fakeai.FailNone)
	// A tenant without AI configured: keywords only.
	if q, ok, _ := c.IntentQueue(ctx, 3, "internet caiu"); !ok || q != 20 {
		t.Fatalf("unconfigured tenant: %d %v", q, ok)
	}
	if _, ok, _ := c.IntentQueue(ctx, 1, "bom dia"); ok {
		t.Fatalf("a greeting matched an intent")
	}
}
