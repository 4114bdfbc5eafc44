package httpapi_test

// Contract tests of the unmodified whaticket-community web client (React 16,
// socket.io-client 3) against Atende's REST API: each pins one thing that client sends
// or reads, named after the whaticket behaviour.

import (
	"net/http"
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
		if u.WhatsappID != nil {
			t.Fatalf("whatsappId false created a user with connection %v", *u.WhatsappID)
		}
		path := "/users/" + id(u.ID)
		r = e.put(e.tok("admin"), path, form("wt1@example.com", "3"))
		r.wantStatus(t, http.StatusOK)
		r.json(t, &u)
		if u.WhatsappID == nil || *u.WhatsappID != 3 {
			t.Fatalf("whatsappId \"3\": %s", r.Body)
		}
		r = e.put(e.tok("admin"), path, form("wt1@example.com", false))
		r.wantStatus(t, http.StatusOK)
		r.json(t, &u)
		if u.WhatsappID != nil {
			t.Fatalf("whatsappId false kept connection %v", *u.WhatsappID)
		}
		for _, bad := range []any{true, map[string]any{"id": 3}, "three", -1} {
			b := e.put(e.tok("admin"), path, form("wt1@example.com", bad)).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			if b.Fields["whatsappId"] != engine.MsgInvalidValue {
				t.Fatalf("whatsappId %v: fields %v", bad, b.Fields)
			}
		}
	})
}
