package aiconfig_test

import (
	"context"
	"strings"
	"testing"

	"atende/engine"
	"atende/persistence/aiconfig"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

func sealer(t *testing.T, secret string) *aiconfig.Sealer {
	t.Helper()
	s, err := aiconfig.NewSealer(secret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConfigSealedAtRestAndPerTenant(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		st := aiconfig.New(d, sealer(t, "server-secret"), nil)
		none, err := st.AIConfig(ctx, 1)
		if err != nil || none.Configured() || none.CompanyID != 1 {
			t.Fatalf("unconfigured tenant: %+v %v", none, err)
		}
		got, err := st.PutAIConfig(ctx, engine.AIConfig{CompanyID: 1, BaseURL: "http://127.0.0.1:9/v1/", Model: "gpt-4o-mini", APIKey: "sk-tenant-one"})
		if err != nil {
			t.Fatal(err)
		}
		if got.APIKey != "sk-tenant-one" || got.BaseURL != "http://127.0.0.1:9/v1" || got.Voice != engine.DefaultVoice {
			t.Fatalf("saved %+v", got)
		}
		var raw string
		if err := d.SQL.QueryRowContext(ctx, `SELECT api_key FROM ai_configs WHERE company_id = 1`).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		if raw == "" || strings.Contains(raw, "sk-tenant-one") {
			t.Fatalf("key stored as %q", raw)
		}
		// An empty key keeps the stored one; other fields change.
		got, err = st.PutAIConfig(ctx, engine.AIConfig{CompanyID: 1, BaseURL: "http://127.0.0.1:9/v1", Model: "other", Voice: "nova"})
		if err != nil || got.APIKey != "sk-tenant-one" || got.Model != "other" || got.Voice != "nova" {
			t.Fatalf("update without key: %+v %v", got, err)
		}
		// The sealed key copied to another tenant's row does not open there.
		if _, err := d.SQL.ExecContext(ctx, `INSERT INTO ai_configs (company_id, base_url, api_key, model, speech_model, voice, updated_at)
			VALUES (2, 'http://x/v1', $1, 'm', 's', 'alloy', 0)`, raw); err != nil {
			t.Fatal(err)
		}
		if c2, err := st.AIConfig(ctx, 2); err != nil || c2.APIKey != "" {
			t.Fatalf("copied key opened for tenant 2: %q %v", c2.APIKey, err)
		}
		// Another server key reads no key rather than failing.
		other := aiconfig.New(d, sealer(t, "another-secret"), nil)
		if c, err := other.AIConfig(ctx, 1); err != nil || c.APIKey != "" || !c.Configured() {
			t.Fatalf("other server key: %+v %v", c, err)
		}
		if _, err := st.PutAIConfig(ctx, engine.AIConfig{CompanyID: 1, BaseURL: "javascript:alert(1)", Model: "m"}); engine.CodeOf(err) != engine.ErrValidation {
			t.Fatalf("bad url: %v", err)
		}
	})
}

func TestIntentsCRUDAndIsolation(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		st := aiconfig.New(d, sealer(t, "k"), nil)
		a, err := st.PutIntent(ctx, engine.AIIntent{CompanyID: 1, Name: "Financeiro", Examples: []string{"boleto"}, QueueID: 3})
		if err != nil || a.ID == 0 {
			t.Fatalf("create: %+v %v", a, err)
		}
		if _, err := st.PutIntent(ctx, engine.AIIntent{CompanyID: 1, Name: "FINANCEIRO", Examples: []string{"x"}, QueueID: 3}); engine.CodeOf(err) != engine.ErrValidation {
			t.Fatalf("duplicate name: %v", err)
		}
		if _, err := st.PutIntent(ctx, engine.AIIntent{CompanyID: 2, Name: "Financeiro", Examples: []string{"x"}, QueueID: 9}); err != nil {
			t.Fatalf("same name in another tenant: %v", err)
		}
		// Tenant 2 can neither change nor delete tenant 1's intent.
		if _, err := st.PutIntent(ctx, engine.AIIntent{ID: a.ID, CompanyID: 2, Name: "Roubado", Examples: []string{"x"}, QueueID: 9}); engine.CodeOf(err) != engine.ErrNotFound {
			t.Fatalf("cross-tenant update: %v", err)
		}
		if err := st.DeleteIntent(ctx, 2, a.ID); engine.CodeOf(err) != engine.ErrNotFound {
			t.Fatalf("cross-tenant delete: %v", err)
		}
		a.Examples = []string{"boleto", "pagamento"}
		if _, err := st.PutIntent(ctx, a); err != nil {
			t.Fatal(err)
		}
		list, err := st.Intents(ctx, 1)
		if err != nil || len(list) != 1 || len(list[0].Examples) != 2 || list[0].Name != "Financeiro" {
			t.Fatalf("list: %+v %v", list, err)
		}
		if err := st.DeleteIntent(ctx, 1, a.ID); err != nil {
			t.Fatal(err)
		}
		if list, _ := st.Intents(ctx, 1); len(list) != 0 {
			t.Fatalf("after delete: %+v", list)
		}
	})
}

func TestSealerRefusesWhatItDidNotSeal(t *testing.T) {
	s := sealer(t, "k")
	good, err := s.Seal("sk-123", "ai-config/1")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := s.Seal("sk-123", "ai-config/1"); again == good {
		t.Errorf("two seals of one value are equal: the nonce is not random")
	}
	if p, err := s.Open(good, "ai-config/1"); err != nil || p != "sk-123" {
		t.Fatalf("open: %q %v", p, err)
	}
	flipped := []byte(good)
	flipped[len(flipped)-2] ^= 1
	for name, v := range map[string]string{
		"other tenant": good, "no prefix": strings.TrimPrefix(good, "v1:"), "not base64": "v1:!!!!",
		"too short": "v1:AAAA", "tampered": string(flipped),
	} {
		aad := "ai-config/1"
		if name == "other tenant" {
			aad = "ai-config/2"
		}
		if _, err := s.Open(v, aad); err != aiconfig.ErrUnsealed {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := aiconfig.NewSealer(""); err == nil {
		t.Errorf("empty secret accepted")
	}
}

func FuzzSealerOpen(f *testing.F) {
	s, _ := aiconfig.NewSealer("k")
	good, _ := s.Seal("sk", "a")
	for _, seed := range []string{"", "v1:", good, "v1:" + strings.Repeat("A", 100), "v2:xx"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		p, err := s.Open(v, "a")
		if err == nil && v != "" && v != good && p == "sk" {
			t.Fatalf("forged %q opened", v)
		}
	})
}
