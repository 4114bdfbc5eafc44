package httpapi_test

// Contract tests of the unmodified whaticket-community web client (React 16,
// socket.io-client 3) against Atende's REST API: each pins one thing that client sends
// or reads, named after the whaticket behaviour.

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"atende/engine"
)

// whaticket's MessageInput posts {read: 1, fromMe: true, mediaUrl: "", body,
// quotedMsg}: read is a number there, a boolean elsewhere.
func TestWhaticketClientSendsReadAsNumber(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		for _, read := range []any{1, 0, true, false, "1", "true", nil} {
			e.fixtures(t)
			r := e.post(e.tok("ana"), "/messages/"+id(tOpenAna), map[string]any{
				"read": read, "fromMe": true, "mediaUrl": "", "body": "Bom dia", "quotedMsg": nil})
			r.wantStatus(t, http.StatusCreated)
			if m := sent(t, e.w.takeCalls()); len(m) != 1 || m[0].Body != "Bom dia" {
				t.Fatalf("read %v: sent %+v", read, m)
			}
		}
		// What no client means is a field error, and nothing is sent.
		for _, bad := range []string{
			`{"body": "x", "read": {}}`, `{"body": "x", "read": [1]}`, `{"body": "x", "read": "maybe"}`,
			`{"body": "x", "fromMe": {"a": 1}}`,
		} {
			e.fixtures(t)
			b := e.post(e.tok("ana"), "/messages/"+id(tOpenAna), bad).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			if len(b.Fields) != 1 || (b.Fields["read"] != engine.MsgInvalidValue && b.Fields["fromMe"] != engine.MsgInvalidValue) {
				t.Fatalf("%s: fields %v", bad, b.Fields)
			}
			e.noCall(t)
		}
		// The whisper form sends fromMe the same way.
		e.fixtures(t)
		e.post(e.tok("ana"), "/messages/whisper/"+id(tOpenAna), map[string]any{"body": "nota", "fromMe": 1}).
			wantStatus(t, http.StatusCreated)
	})
}

// whaticket's UserModal keeps whatsappId false until a connection is chosen (and ""
// after "none"), and posts it as it is; a native select sends the id as a string.
func TestWhaticketUserFormSendsWhatsappIdFalse(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		form := func(email string, whatsappID any) map[string]any {
			return map[string]any{"name": "Pessoa Nova", "email": email, "password": "12345", "profile": "user",
				"queueIds": []int{}, "whatsappId": whatsappID}
		}
		var u userJSON
		r := e.post(e.tok("admin"), "/users", form("wt1@example.com", false))
		r.wantStatus(t, http.StatusCreated)
		r.json(t, &u)
		if u.ConnectionID != nil {
			t.Fatalf("whatsappId false created a user with connection %v", *u.ConnectionID)
		}
		path := "/users/" + id(u.ID)
		r = e.put(e.tok("admin"), path, form("wt1@example.com", "3"))
		r.wantStatus(t, http.StatusOK)
		r.json(t, &u)
		if u.ConnectionID == nil || *u.ConnectionID != 3 {
			t.Fatalf("whatsappId \"3\": %s", r.Body)
		}
		r = e.put(e.tok("admin"), path, form("wt1@example.com", false))
		r.wantStatus(t, http.StatusOK)
		r.json(t, &u)
		if u.ConnectionID != nil {
			t.Fatalf("whatsappId false kept connection %v", *u.ConnectionID)
		}
		for _, bad := range []any{true, map[string]any{"id": 3}, "three", -1} {
			b := e.put(e.tok("admin"), path, form("wt1@example.com", bad)).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			if b.Fields["whatsappId"] != engine.MsgInvalidValue {
				t.Fatalf("whatsappId %v: fields %v", bad, b.Fields)
			}
		}
	})
}

// whaticket's settings page reads userCreation and userApiToken from GET /settings
// and renders an empty page when a key is missing.
func TestWhaticketSettingsPageReadsUserApiToken(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		var list []engine.Setting
		r := e.get(e.tok("admin"), "/settings")
		r.wantStatus(t, http.StatusOK)
		r.json(t, &list)
		got := map[string]string{}
		for _, st := range list {
			got[st.Key] = st.Value
		}
		for _, key := range []string{"userCreation", "userApiToken"} {
			if _, ok := got[key]; !ok {
				t.Fatalf("GET /settings lacks %s: %s", key, r.Body)
			}
		}
		if got["userApiToken"] != "" || len(got) != len(list) {
			t.Fatalf("settings %s", r.Body)
		}
		// Atende has no token API: the key cannot be set.
		e.put(e.tok("admin"), "/settings/userApiToken", map[string]string{"value": "abc"}).
			wantErr(t, http.StatusNotFound, engine.ErrNoSettingFound)
	})
}

// whaticket's public sign-up page posts {name, email, password} to /auth/signup and
// shows backendErrors.ERR_USER_CREATION_DISABLED when the server refuses.
func TestWhaticketSignupAnswersDisabled(t *testing.T) {
	form := map[string]any{"name": "Visitante", "email": "visit@example.com", "password": "12345"}
	t.Run("no sign-up tenant configured", func(t *testing.T) {
		eachEnv(t, func(t *testing.T, e *env) {
			e.post("", "/auth/signup", form).wantErr(t, http.StatusForbidden, engine.ErrUserCreationDisabled)
			if _, err := e.users.ByEmail(t.Context(), "visit@example.com"); engine.CodeOf(err) != engine.ErrNoUserFound {
				t.Fatalf("user created: %v", err)
			}
		})
	})
	signupCo1 := func(o *envOpts) { o.cfg.SignupCompany = co1 }
	t.Run("the tenant's setting says disabled", func(t *testing.T) {
		eachEnv(t, func(t *testing.T, e *env) {
			e.put(e.tok("admin"), "/settings/userCreation", map[string]string{"value": "disabled"}).wantStatus(t, http.StatusOK)
			e.post("", "/auth/signup", form).wantErr(t, http.StatusForbidden, engine.ErrUserCreationDisabled)
			if _, err := e.users.ByEmail(t.Context(), "visit@example.com"); engine.CodeOf(err) != engine.ErrNoUserFound {
				t.Fatalf("user created: %v", err)
			}
		}, signupCo1)
	})
	t.Run("enabled: creates a user as whaticket does, never above profile user", func(t *testing.T) {
		eachEnv(t, func(t *testing.T, e *env) {
			e.pub.take()
			body := map[string]any{"name": "Visitante", "email": "Visit@Example.com", "password": "12345",
				"profile": "admin", "queueIds": []int{11}, "whatsappId": 3}
			r := e.post("", "/auth/signup", body)
			r.wantStatus(t, http.StatusCreated)
			var u userJSON
			r.json(t, &u)
			if u.ID <= 0 || u.CompanyID != co1 || u.Profile != "user" || len(u.Queues) != 0 || u.ConnectionID != nil ||
				u.Email != "visit@example.com" {
				t.Fatalf("signed up %s", r.Body)
			}
			if ev := e.pub.take(); len(ev) != 1 || ev[0].Name != "user" || ev[0].Payload["action"] != "create" || ev[0].Company != co1 {
				t.Fatalf("events %+v", ev)
			}
			_, _, lr := e.login("visit@example.com", "12345")
			lr.wantStatus(t, http.StatusOK)
			// The form's rules and the unique e-mail hold as for POST /users.
			b := e.post("", "/auth/signup", map[string]any{"name": "V", "email": "nope", "password": "1"}).
				wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			if b.Fields["email"] == "" || b.Fields["password"] == "" || b.Fields["name"] == "" {
				t.Fatalf("fields %v", b.Fields)
			}
			e.post("", "/auth/signup", form).wantErr(t, http.StatusConflict, engine.ErrEmailAlreadyExists)
		}, signupCo1)
	})
	t.Run("attempts per address are limited", func(t *testing.T) {
		eachEnv(t, func(t *testing.T, e *env) {
			codes := map[int]int{}
			for i := range 8 {
				r := e.post("", "/auth/signup", map[string]any{"name": "Visitante", "email": fmt.Sprintf("v%d@example.com", i), "password": "12345"})
				codes[r.Status]++
			}
			if codes[http.StatusCreated] != 6 || codes[http.StatusTooManyRequests] != 2 {
				t.Fatalf("answers %v, want 6 created then 429", codes)
			}
		}, signupCo1)
	})
}

// whaticket's connections page asks for a new QR code with PUT /whatsappsession/{id}
// (its back end clears the session and starts it again); POST starts one.
func TestWhaticketNewQrCodeIsPutWhatsappSession(t *testing.T) {
	eachConnEnv(t, func(t *testing.T, e *connEnv) {
		admin := e.tok("admin")
		c := connOf(t, e.post(admin, "/whatsapp", map[string]any{"name": "Zap"}), http.StatusCreated)
		e.actors.take()
		if got := connOf(t, e.put(admin, fmt.Sprintf("/whatsappsession/%d", c.ID), nil), http.StatusOK); got.ID != c.ID {
			t.Fatalf("answered %+v", got)
		}
		e.wantCalls(t, fmt.Sprintf("wipe %d", c.ID), fmt.Sprintf("restart %d", c.ID))
		// The same rules as the other session routes.
		e.put(e.tok("ana"), fmt.Sprintf("/whatsappsession/%d", c.ID), nil).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		e.put(admin, "/whatsappsession/424242", nil).wantErr(t, http.StatusNotFound, engine.ErrNoWappFound)
		e.wantCalls(t)
	})
}

// whaticket's contacts page imports the phone's address book with POST
// /contacts/import (then reloads): the numbers the tenant lacks are added, named as
// the phone names them; a tenant without a WhatsApp connection gets a clear error.
func TestWhaticketImportContactsFromThePhone(t *testing.T) {
	eachConnEnv(t, func(t *testing.T, e *connEnv) {
		ana := e.tok("ana")
		admin := e.tok("admin")
		// Only a web chat: no address book to read.
		connOf(t, e.post(admin, "/whatsapp", map[string]any{"name": "Site", "channel": "socket", "isDefault": true}), http.StatusCreated)
		e.post(ana, "/contacts/import", nil).wantErr(t, http.StatusNotFound, engine.ErrNoDefWappFound)

		zap := connOf(t, e.post(admin, "/whatsapp", map[string]any{"name": "Zap", "channel": "whatsapp"}), http.StatusCreated)
		e.actors.take()
		// Not paired yet: the actor's answer reaches the client as it is.
		e.actors.bookErr = engine.E(engine.ErrWappNotInitialized)
		e.post(ana, "/contacts/import", nil).wantErr(t, http.StatusBadRequest, engine.ErrWappNotInitialized)
		e.wantCalls(t, fmt.Sprintf("contacts %d", zap.ID))

		e.post(admin, "/contacts", map[string]any{"name": "Já Conhecido", "number": "5565999990001"}).wantStatus(t, http.StatusCreated)
		e.actors.bookErr = nil
		e.actors.book = []engine.PhoneContact{
			{Number: "5565999990001", Name: "Outro nome"},            // known: left alone
			{Number: "5565988880002", Name: "Maria do Phone"},        // new
			{Number: "5565977770003", Name: "X"},                     // a name too short: the number
			{Number: "5565966660004", Name: strings.Repeat("é", 80)}, // cut to the form's limit
			{Number: "12", Name: "Curto"},                            // not a valid number: skipped
		}
		r := e.post(ana, "/contacts/import", nil)
		r.wantStatus(t, http.StatusOK)
		var res struct {
			Message  string `json:"message"`
			Imported int    `json:"imported"`
			Skipped  int    `json:"skipped"`
		}
		r.json(t, &res)
		if res.Message != "contacts imported" || res.Imported != 3 || res.Skipped != 2 {
			t.Fatalf("answer %s", r.Body)
		}
		var page struct {
			Contacts []engine.Contact `json:"contacts"`
		}
		e.get(ana, "/contacts?searchParam=55659").json(t, &page)
		names := map[string]string{}
		for _, c := range page.Contacts {
			names[c.Number] = c.Name
		}
		if names["5565999990001"] != "Já Conhecido" || names["5565988880002"] != "Maria do Phone" ||
			names["5565977770003"] != "5565977770003" || names["5565966660004"] != strings.Repeat("é", 50) || len(names) != 4 {
			t.Fatalf("contacts after import %v", names)
		}
	})
}

// whaticket's composer uploads files as FormData: fromMe, then for each file "medias"
// and "body" set to the file's name.
func TestWhaticketComposerUploadsOneBodyPerFile(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		e.fixtures(t)
		r := e.postForm(e.tok("ana"), "/messages/"+id(tOpenAna),
			formPart{name: "fromMe", data: []byte("true")},
			formPart{name: "medias", fileName: "foto.png", contentType: "image/png", data: pngFile},
			formPart{name: "body", data: []byte("foto.png")},
			formPart{name: "medias", fileName: "contrato.pdf", contentType: "application/pdf", data: pdfFile},
			formPart{name: "body", data: []byte("contrato.pdf")},
		)
		r.wantStatus(t, http.StatusCreated)
		ms := sent(t, e.w.takeCalls())
		if len(ms) != 2 || ms[0].MediaType != engine.MediaImage || ms[1].MediaType != engine.MediaDocument {
			t.Fatalf("sent %+v", ms)
		}
		// The image goes without a caption (its name is no caption), the document
		// named as documents are; neither takes the other's name.
		if ms[0].Body != "" || ms[1].Body != "contrato.pdf" {
			t.Fatalf("bodies %q, %q", ms[0].Body, ms[1].Body)
		}
		// One file with a real caption keeps it.
		e.fixtures(t)
		e.postForm(e.tok("ana"), "/messages/"+id(tOpenAna),
			formPart{name: "medias", fileName: "foto.png", contentType: "image/png", data: pngFile},
			formPart{name: "body", data: []byte("segue a foto")},
		).wantStatus(t, http.StatusCreated)
		if ms := sent(t, e.w.takeCalls()); len(ms) != 1 || ms[0].Body != "segue a foto" {
			t.Fatalf("sent %+v", ms)
		}
	})
}
