package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"atende/engine"
)

// selfForm is the top bar's profile dialog of a fixture user changing their own
// password.
func selfForm(name, email, password, current string) map[string]any {
	b := map[string]any{"name": name, "email": email, "password": password}
	if current != "" {
		b["currentPassword"] = current
	}
	return b
}

// Changing one's own password needs the current one, guesses of it count with the
// login's, and an administrator setting someone else's needs only their own token.
func TestOwnPasswordChangeNeedsTheCurrentOne(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ana := "/users/" + id(e.ids["ana"])
		fieldErr := func(r resp, field, msg string) {
			t.Helper()
			if b := r.wantErr(t, 400, engine.ErrValidation); b.Fields[field] != msg {
				t.Fatalf("fields %v, want %s %q", b.Fields, field, msg)
			}
		}
		unchanged := func() {
			t.Helper()
			_, _, lr := e.login("ana@example.com", testPassword)
			lr.wantStatus(t, http.StatusOK)
		}
		tok := e.tok("ana")
		fieldErr(e.put(tok, ana, selfForm("Ana User", "ana@example.com", "novaSenha-1", "")), "currentPassword", engine.MsgRequired)
		unchanged()
		fieldErr(e.put(tok, ana, selfForm("Ana User", "ana@example.com", "novaSenha-1", "not-it")), "currentPassword", engine.MsgWrongPassword)
		unchanged() // (a successful login forgets the failures)
		// Three wrong guesses (the env's free attempts), then a wait, even for the right one.
		for range 3 {
			fieldErr(e.put(tok, ana, selfForm("Ana User", "ana@example.com", "novaSenha-1", "guess")), "currentPassword", engine.MsgWrongPassword)
		}
		r := e.put(tok, ana, selfForm("Ana User", "ana@example.com", "novaSenha-1", testPassword))
		r.wantErr(t, 429, engine.ErrTooManyAttempts)
		if r.Header.Get("Retry-After") != "30" {
			t.Fatalf("Retry-After %q, want 30", r.Header.Get("Retry-After"))
		}
		// …and the login from that address waits too: the guesses were login guesses.
		e.do(req{method: "POST", path: "/auth/login", body: map[string]string{"email": "ana@example.com", "password": testPassword}}).
			wantErr(t, 429, engine.ErrTooManyAttempts)
		e.clock.Add(30 * time.Second)
		e.put(tok, ana, selfForm("Ana User", "ana@example.com", "novaSenha-1", testPassword)).wantStatus(t, http.StatusOK)
		_, _, lr := e.login("ana@example.com", "novaSenha-1")
		lr.wantStatus(t, http.StatusOK)

		// An administrator's own password needs it too…
		admin := "/users/" + id(e.ids["admin"])
		fieldErr(e.put(e.tok("admin"), admin, selfForm("Alice Admin", "admin@example.com", "outraSenha-2", "")), "currentPassword", engine.MsgRequired)
		// …but not someone else's.
		e.put(e.tok("admin"), "/users/"+id(e.ids["bruno"]), map[string]any{"name": "Bruno Plus", "email": "bruno@example.com",
			"password": "trocada-3"}).wantStatus(t, http.StatusOK)
		_, _, lr = e.login("bruno@example.com", "trocada-3")
		lr.wantStatus(t, http.StatusOK)
		// A supervisor setting an attendant's password does not need it either.
		e.put(e.tok("superv"), ana, map[string]any{"name": "Ana User", "email": "ana@example.com",
			"password": "da-supervisora-4"}).wantStatus(t, http.StatusOK)
		_, _, lr = e.login("ana@example.com", "da-supervisora-4")
		lr.wantStatus(t, http.StatusOK)
		// A name change without a new password needs no proof.
		e.put(e.tok("ana"), ana, selfForm("Ana Maria", "ana@example.com", "", "")).wantStatus(t, http.StatusOK)
	})
}

// In production mode new passwords on the common-password list are refused,
// whoever sets them; elsewhere they are accepted.
func TestCommonPasswordsRefused(t *testing.T) {
	common := func(t *testing.T, r resp) {
		t.Helper()
		if b := r.wantErr(t, 400, engine.ErrValidation); b.Fields["password"] != engine.MsgCommonPassword {
			t.Fatalf("fields %v", b.Fields)
		}
	}
	newUser := func(email, pw string) map[string]any {
		return map[string]any{"name": "Nova Pessoa", "email": email, "password": pw, "profile": "user"}
	}
	t.Run("production", func(t *testing.T) {
		eachEnv(t, func(t *testing.T, e *env) {
			admin := e.tok("admin")
			common(t, e.post(admin, "/users", newUser("nova@example.com", "Password1")))
			common(t, e.put(admin, "/users/"+id(e.ids["bruno"]), map[string]any{"name": "Bruno Plus",
				"email": "bruno@example.com", "password": "iloveyou"}))
			common(t, e.put(e.tok("ana"), "/users/"+id(e.ids["ana"]), selfForm("Ana User", "ana@example.com", "qwerty123", testPassword)))
			e.post(admin, "/users", newUser("nova@example.com", "cuiaba-azul-77")).wantStatus(t, http.StatusCreated)
		}, func(o *envOpts) { o.cfg.RefuseCommonPasswords = true })
	})
	t.Run("development", func(t *testing.T) {
		eachEnv(t, func(t *testing.T, e *env) {
			e.post(e.tok("admin"), "/users", newUser("nova@example.com", "Password1")).wantStatus(t, http.StatusCreated)
		})
	})
}
