package httpapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"atende/engine"
	"atende/persistence/connection"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
	httpapi "atende/transport/http"
	"atende/transport/media"
)

// recSender records the deliveries of the messaging API, as actors.ScheduleSender
// would receive them, and answers ticket 500 + the contact id.
type recSender struct {
	mu  sync.Mutex
	got []engine.ScheduledDelivery
	err error
}

func (s *recSender) DeliverScheduled(_ context.Context, d engine.ScheduledDelivery) (engine.ID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	s.got = append(s.got, d)
	return 500 + d.ContactID, nil
}

func (s *recSender) take() []engine.ScheduledDelivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.got
	s.got = nil
	return out
}

// apiEnv is an env with the messaging API wired: real token, contact, connection and
// media stores, and a recorded sender.
type apiEnv struct {
	*env
	tokens   *store.APITokens
	contacts *store.Contacts
	conns    *connection.Store
	sender   *recSender
	mediaDir string
	// Connections of co1: a default WhatsApp one and a web chat one; co2: a WhatsApp one.
	wa, web, wa2 engine.Connection
}

// newAPIEnv builds an apiEnv whose tokens may send rate calls a minute each.
func newAPIEnv(t *testing.T, d *db.DB, rate int) *apiEnv {
	t.Helper()
	ae := &apiEnv{sender: &recSender{}, mediaDir: t.TempDir()}
	ms, err := media.New(media.Config{Dir: ae.mediaDir, Secret: testSecret, MaxImage: testMaxImage, BaseURL: "/media"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ms.Close() })
	ae.env = newEnv(t, d, withDeps(func(e *env, deps *httpapi.Deps) {
		ae.tokens, ae.contacts, ae.conns = store.NewAPITokens(d, e.clock), store.NewContacts(d, e.clock), connection.New(d, e.clock)
		deps.RefDeps = httpapi.RefDeps{Contacts: ae.contacts}
		deps.TicketDeps = httpapi.TicketDeps{Media: removingStore{Store: ms, dir: ae.mediaDir}, IDs: db.NewIDs(d, 16)}
		deps.ConnectionDeps = httpapi.ConnectionDeps{Connections: ae.conns}
		deps.MessagingDeps = httpapi.MessagingDeps{APITokens: ae.tokens, APISender: ae.sender}
	}), func(o *envOpts) { o.cfg.APISendsPerMinute = rate })
	ctx := context.Background()
	mk := func(co engine.ID, in engine.ConnectionInput) engine.Connection {
		c, err := ae.conns.Create(ctx, co, in)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ae.wa = mk(co1, engine.ConnectionInput{Name: "Principal", IsDefault: true})
	ae.web = mk(co1, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
	ae.wa2 = mk(co2, engine.ConnectionInput{Name: "Outra", IsDefault: true})
	return ae
}

func eachAPIEnv(t *testing.T, rate int, fn func(t *testing.T, e *apiEnv)) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) { fn(t, newAPIEnv(t, d, rate)) })
}

// newToken creates a token as local (an admin) and answers its secret and id.
func (e *apiEnv) newToken(t *testing.T, local, name string) (string, engine.ID) {
	t.Helper()
	r := e.post(e.tok(local), "/apiTokens", map[string]any{"name": name})
	r.wantStatus(t, http.StatusCreated)
	var got struct {
		ID     engine.ID `json:"id"`
		Token  string    `json:"token"`
		Prefix string    `json:"prefix"`
	}
	r.json(t, &got)
	if !strings.HasPrefix(got.Token, "atk_") || !strings.HasPrefix(got.Token, got.Prefix) || got.ID == 0 {
		t.Fatalf("created %s", r.Body)
	}
	return got.Token, got.ID
}

func (e *apiEnv) send(secret string, body any, header map[string]string) resp {
	return e.do(req{method: "POST", path: "/api/messages/send", token: secret, body: body, header: header})
}

func TestAPITokenRoutes(t *testing.T) {
	eachAPIEnv(t, 1000, func(t *testing.T, e *apiEnv) {
		t.Run("only admin and super manage tokens", func(t *testing.T) {
			for _, local := range []string{"ana", "bruno", "superv", "manager"} {
				e.get(e.tok(local), "/apiTokens").wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
				e.post(e.tok(local), "/apiTokens", map[string]any{"name": "ERP"}).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
				e.del(e.tok(local), "/apiTokens/1").wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			}
			e.get("", "/apiTokens").wantErr(t, http.StatusUnauthorized, engine.ErrSessionExpired)
		})

		t.Run("validation", func(t *testing.T) {
			b := e.post(e.tok("admin"), "/apiTokens", map[string]any{"name": "x"}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			if b.Fields["name"] != engine.MsgTooShort {
				t.Fatalf("fields %v", b.Fields)
			}
			b = e.post(e.tok("admin"), "/apiTokens", map[string]any{}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			if b.Fields["name"] != engine.MsgRequired {
				t.Fatalf("fields %v", b.Fields)
			}
			e.post(e.tok("admin"), "/apiTokens", "{").wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
			e.post(e.tok("admin"), "/apiTokens", `["name"]`).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
		})

		secret, id := e.newToken(t, "admin", "ERP")
		e.pub.take()

		t.Run("the secret is shown once and not stored", func(t *testing.T) {
			r := e.get(e.tok("super"), "/apiTokens")
			r.wantStatus(t, http.StatusOK)
			if bytes.Contains(r.Body, []byte(secret)) || !bytes.Contains(r.Body, []byte(`"ERP"`)) {
				t.Fatalf("list %s", r.Body)
			}
			var n int
			if err := e.d.SQL.QueryRow(`SELECT count(*) FROM api_tokens WHERE token_hash = $1 OR prefix = $1 OR name = $1`, secret).Scan(&n); err != nil || n != 0 {
				t.Fatalf("secret found in the database: %d %v", n, err)
			}
		})

		t.Run("tenant isolation", func(t *testing.T) {
			r := e.get(e.tok("admin2"), "/apiTokens")
			r.wantStatus(t, http.StatusOK)
			if string(bytes.TrimSpace(r.Body)) != "[]" {
				t.Fatalf("other tenant sees %s", r.Body)
			}
			e.del(e.tok("admin2"), "/apiTokens/"+itoa(id)).wantErr(t, http.StatusNotFound, engine.ErrNoAPITokenFound)
			e.send(secret, map[string]any{"number": "5565999990000", "body": "oi"}, nil).wantStatus(t, http.StatusOK)
			if d := e.sender.take(); len(d) != 1 || d[0].CompanyID != co1 || d[0].ConnectionID != e.wa.ID {
				t.Fatalf("deliveries %+v", d)
			}
			// A co1 token cannot name co2's connection.
			e.send(secret, map[string]any{"number": "5565999990000", "body": "oi", "whatsappId": e.wa2.ID}, nil).
				wantErr(t, http.StatusNotFound, engine.ErrNoWappFound)
		})

		t.Run("revoked is refused at once, on another node too", func(t *testing.T) {
			// A second node: its own server over the same database.
			deps := e.built.deps
			deps.Metrics = prometheus.NewRegistry()
			other, err := httpapi.New(e.built.cfg, deps)
			if err != nil {
				t.Fatal(err)
			}
			onOther := func() resp {
				own := e.h
				e.h = other.Handler()
				defer func() { e.h = own }()
				return e.send(secret, map[string]any{"number": "5565999990000", "body": "oi"}, nil)
			}
			onOther().wantStatus(t, http.StatusOK)
			e.sender.take()
			e.pub.take()
			r := e.del(e.tok("admin"), "/apiTokens/"+itoa(id))
			r.wantStatus(t, http.StatusOK)
			if r.obj(t)["revokedAt"] == nil {
				t.Fatalf("revoke answered %s", r.Body)
			}
			evs := e.pub.take()
			if len(evs) != 1 || evs[0].Name != httpapi.EventAPIToken || evs[0].Payload["action"] != "update" {
				t.Fatalf("events %+v", evs)
			}
			e.send(secret, map[string]any{"number": "5565999990000", "body": "oi"}, nil).
				wantErr(t, http.StatusForbidden, engine.ErrInvalidToken)
			onOther().wantErr(t, http.StatusForbidden, engine.ErrInvalidToken)
			if d := e.sender.take(); len(d) != 0 {
				t.Fatalf("a revoked token sent %+v", d)
			}
			e.del(e.tok("admin"), "/apiTokens/abc").wantErr(t, http.StatusNotFound, engine.ErrNoAPITokenFound)
		})
	})
}

func TestAPISend(t *testing.T) {
	eachAPIEnv(t, 1000, func(t *testing.T, e *apiEnv) {
		secret, _ := e.newToken(t, "admin", "ERP")
		ctx := context.Background()

		t.Run("json creates the contact and sends through the default connection", func(t *testing.T) {
			r := e.send(secret, map[string]any{"number": "+55 (65) 98888-7777", "body": "Seu pedido saiu"}, nil)
			r.wantStatus(t, http.StatusOK)
			c, err := e.contacts.FindByNumber(ctx, co1, "5565988887777")
			if err != nil {
				t.Fatal(err)
			}
			d := e.sender.take()
			if len(d) != 1 || d[0].ContactID != c.ID || d[0].Body != "Seu pedido saiu" || d[0].ConnectionID != e.wa.ID ||
				d[0].UserID != e.ids["admin"] || d[0].MessageID == 0 {
				t.Fatalf("deliveries %+v (contact %d)", d, c.ID)
			}
			got := r.obj(t)
			if got["ticketId"] != float64(500+c.ID) || got["messageId"] != float64(d[0].MessageID) || got["contactId"] != float64(c.ID) {
				t.Fatalf("answer %s", r.Body)
			}
		})

		t.Run("a number as a JSON number", func(t *testing.T) {
			e.send(secret, `{"number": 5565988887777, "body": "oi"}`, nil).wantStatus(t, http.StatusOK)
			if d := e.sender.take(); len(d) != 1 {
				t.Fatalf("deliveries %+v", d)
			}
		})

		t.Run("invalid numbers", func(t *testing.T) {
			for _, body := range []string{
				`{"body": "oi"}`,
				`{"number": "", "body": "oi"}`,
				`{"number": "12345", "body": "oi"}`,
				`{"number": "55659999900001234", "body": "oi"}`,
				`{"number": "abc", "body": "oi"}`,
				`{"number": -5565988887777, "body": "oi"}`,
				`{"number": 1.5e12, "body": "oi"}`,
				`{"number": {"x": 1}, "body": "oi"}`,
				`{"number": "5565988887777@s.whatsapp.net", "body": "oi"}`,
			} {
				e.send(secret, body, nil).wantErr(t, http.StatusBadRequest, engine.ErrWappInvalidContact)
			}
			// On the web chat, only a customer who wrote first can be reached.
			e.send(secret, map[string]any{"number": "webchat:nobody", "body": "oi", "whatsappId": e.web.ID}, nil).
				wantErr(t, http.StatusBadRequest, engine.ErrWappInvalidContact)
			if d := e.sender.take(); len(d) != 0 {
				t.Fatalf("sent %+v", d)
			}
		})

		t.Run("a web chat customer by contact number", func(t *testing.T) {
			c, _, err := e.contacts.FindOrCreateByNumber(ctx, co1, "webchat:v1", "Visitante")
			if err != nil {
				t.Fatal(err)
			}
			e.send(secret, map[string]any{"number": "webchat:v1", "body": "Olá!", "whatsappId": e.web.ID}, nil).wantStatus(t, http.StatusOK)
			if d := e.sender.take(); len(d) != 1 || d[0].ContactID != c.ID || d[0].ConnectionID != e.web.ID {
				t.Fatalf("deliveries %+v", d)
			}
		})

		t.Run("body rules", func(t *testing.T) {
			b := e.send(secret, map[string]any{"number": "5565988887777", "body": "  "}, nil).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			if b.Fields["body"] != engine.MsgRequired {
				t.Fatalf("fields %v", b.Fields)
			}
			b = e.send(secret, map[string]any{"number": "5565988887777", "body": strings.Repeat("a", httpapi.MaxMessageBodyRunes+1)}, nil).
				wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			if b.Fields["body"] != engine.MsgTooLong {
				t.Fatalf("fields %v", b.Fields)
			}
			e.send(secret, "{", nil).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
			e.send(secret, `{"number":"5565988887777","body":"oi","whatsappId":"x"}`, nil).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			e.send(secret, "number=5565988887777", map[string]string{"Content-Type": "text/plain"}).
				wantErr(t, http.StatusUnsupportedMediaType, engine.ErrUnsupportedMediaType)
			e.send(secret, map[string]any{"number": "5565988887777", "body": "oi", "whatsappId": 9999}, nil).
				wantErr(t, http.StatusNotFound, engine.ErrNoWappFound)
			if d := e.sender.take(); len(d) != 0 {
				t.Fatalf("sent %+v", d)
			}
		})

		t.Run("bad credentials", func(t *testing.T) {
			e.send("", map[string]any{"number": "5565988887777", "body": "oi"}, nil).wantErr(t, http.StatusUnauthorized, engine.ErrSessionExpired)
			e.send("atk_"+strings.Repeat("A", 43), map[string]any{"number": "5565988887777", "body": "oi"}, nil).
				wantErr(t, http.StatusForbidden, engine.ErrInvalidToken)
			// A session token is not an API token.
			e.send(e.tok("admin"), map[string]any{"number": "5565988887777", "body": "oi"}, nil).
				wantErr(t, http.StatusForbidden, engine.ErrInvalidToken)
			e.send(secret+"x", map[string]any{"number": "5565988887777", "body": "oi"}, nil).
				wantErr(t, http.StatusForbidden, engine.ErrInvalidToken)
		})
	})
}

func TestAPISendMultipartMedia(t *testing.T) {
	eachAPIEnv(t, 1000, func(t *testing.T, e *apiEnv) {
		secret, _ := e.newToken(t, "admin", "ERP")
		img := image.NewRGBA(image.Rect(0, 0, 2, 2))
		var pngBytes bytes.Buffer
		if err := png.Encode(&pngBytes, img); err != nil {
			t.Fatal(err)
		}
		form := func(parts ...formPart) resp {
			body, ct := multipartBody(t, parts...)
			return e.send(secret, body, map[string]string{"Content-Type": ct})
		}

		r := form(formPart{name: "number", data: []byte("5565977776666")}, formPart{name: "body", data: []byte("Nota")},
			formPart{name: "fromMe", data: []byte("true")},
			formPart{name: "medias", fileName: "nota.png", contentType: "image/png", data: pngBytes.Bytes()})
		r.wantStatus(t, http.StatusOK)
		d := e.sender.take()
		if len(d) != 1 || d[0].MediaType != engine.MediaImage || d[0].MediaPath == "" || d[0].Body != "Nota" {
			t.Fatalf("deliveries %+v", d)
		}
		if _, _, err := e.built.deps.Media.Open(context.Background(), co1, d[0].MediaPath); err != nil {
			t.Fatalf("stored media: %v", err)
		}

		t.Run("a refused send keeps no file", func(t *testing.T) {
			form(formPart{name: "medias", fileName: "a.png", contentType: "image/png", data: pngBytes.Bytes()},
				formPart{name: "number", data: []byte("123")}).wantErr(t, http.StatusBadRequest, engine.ErrWappInvalidContact)
			form(formPart{name: "number", data: []byte("5565977776666")},
				formPart{name: "medias", fileName: "a.png", contentType: "image/png", data: pngBytes.Bytes()},
				formPart{name: "medias", fileName: "b.png", contentType: "image/png", data: pngBytes.Bytes()}).
				wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			if files := storedUnder(t, e.mediaDir, co1); len(files) != 1 {
				t.Fatalf("files kept %v", files)
			}
			if d := e.sender.take(); len(d) != 0 {
				t.Fatalf("sent %+v", d)
			}
		})

		t.Run("text without a file", func(t *testing.T) {
			form(formPart{name: "number", data: []byte("5565977776666")}, formPart{name: "body", data: []byte("oi")}).wantStatus(t, http.StatusOK)
			form(formPart{name: "number", data: []byte("5565977776666")}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			form(formPart{name: "number", data: []byte("5565977776666")}, formPart{name: "body", data: []byte("oi")},
				formPart{name: "whatsappId", data: []byte("abc")}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		})
	})
}

func TestAPISendIdempotencyAndRate(t *testing.T) {
	eachAPIEnv(t, 5, func(t *testing.T, e *apiEnv) {
		secret, _ := e.newToken(t, "admin", "ERP")
		key := map[string]string{"Idempotency-Key": "pedido-42"}
		body := map[string]any{"number": "5565966665555", "body": "Pedido 42 enviado"}

		first := e.send(secret, body, key)
		first.wantStatus(t, http.StatusOK)
		d := e.sender.take()
		if len(d) != 1 {
			t.Fatalf("deliveries %+v", d)
		}
		again := e.send(secret, body, key)
		again.wantStatus(t, http.StatusOK)
		if got := e.sender.take(); len(got) != 0 {
			t.Fatalf("a retry sent again: %+v", got)
		}
		if !bytes.Equal(first.Body, again.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("retry answered %s, first %s", again.Body, first.Body)
		}

		t.Run("a first call that failed is retried under its message id", func(t *testing.T) {
			k := map[string]string{"Idempotency-Key": "pedido-43"}
			e.sender.err = engine.E(engine.ErrSendingWappMsg)
			e.send(secret, body, k).wantErr(t, http.StatusBadGateway, engine.ErrSendingWappMsg)
			e.sender.err = nil
			e.send(secret, body, k).wantStatus(t, http.StatusOK)
			var firstID engine.ID
			if err := e.d.SQL.QueryRow(`SELECT message_id FROM api_sends WHERE idem_key = 'pedido-43'`).Scan(&firstID); err != nil {
				t.Fatal(err)
			}
			if got := e.sender.take(); len(got) != 1 || got[0].MessageID != firstID {
				t.Fatalf("retry delivered %+v, want message %d", got, firstID)
			}
		})

		t.Run("bad keys", func(t *testing.T) {
			b := e.send(secret, body, map[string]string{"Idempotency-Key": "com espaço"}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			if b.Fields["Idempotency-Key"] != engine.MsgInvalidValue {
				t.Fatalf("fields %v", b.Fields)
			}
		})

		t.Run("rate limit per token", func(t *testing.T) {
			// The calls so far took 4 of this token's 5 (a refused key takes none);
			// a new token has its own bucket.
			e.send(secret, body, nil).wantStatus(t, http.StatusOK)
			r := e.send(secret, body, nil)
			r.wantErr(t, http.StatusTooManyRequests, engine.ErrTooManyAttempts)
			if ra := r.Header.Get("Retry-After"); ra == "" || ra == "0" {
				t.Fatalf("Retry-After %q", ra)
			}
			other, _ := e.newToken(t, "super", "CRM")
			e.send(other, body, nil).wantStatus(t, http.StatusOK)
			e.clock.Add(60_000_000_000) // a minute refills the bucket
			e.send(secret, body, nil).wantStatus(t, http.StatusOK)
		})
	})
}

// storedUnder lists the files the media folder dir holds for a tenant.
func storedUnder(t *testing.T, dir string, company engine.ID) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, fmt.Sprint(company)))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, en := range entries {
		out = append(out, en.Name())
	}
	return out
}
