package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"atende/engine"
	videocall "atende/transport/call"
	httpapi "atende/transport/http"
)

// callTokens adapts call.Tokens as cmd/atende does.
type callTokens struct{ t *videocall.Tokens }

func (c callTokens) Invite(tenant, ticket, user engine.ID) (httpapi.VideoCallInvite, error) {
	inv, err := c.t.Issue(tenant, ticket, user, time.Hour)
	return httpapi.VideoCallInvite{CallID: inv.Call, CustomerToken: inv.Customer, AttendantToken: inv.Attendant, ExpiresAt: inv.ExpiresAt}, err
}

// testVideoTokens signs and checks call links with the tests' one secret: any two of
// them verify each other's tokens, so parallel environments share no state.
func testVideoTokens(t *testing.T) *videocall.Tokens {
	tok, err := videocall.NewTokens([]byte("video call secret of the http tests"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func testVideoCalls(t *testing.T) httpapi.VideoCalls { return callTokens{testVideoTokens(t)} }

func TestStartVideoCall(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		e.fixtures(t)
		ana := e.tok("ana")
		var got struct {
			CallID, Token, URL string
			ExpiresAt          time.Time
			Message            engine.Message
		}
		r := e.post(ana, "/tickets/"+id(tOpenAna)+"/video-call", map[string]any{"text": "Entre na chamada de vídeo:"})
		r.wantStatus(t, http.StatusCreated)
		r.json(t, &got)
		c := e.oneCall(t)
		send, ok := c.Cmd.(engine.SendMessage)
		if !ok || c.Ticket != tOpenAna || send.SenderID != e.ids["ana"] {
			t.Fatalf("command %#v", c)
		}
		// The customer's link is sent through the ticket, after the text.
		if !strings.HasPrefix(send.Body, "Entre na chamada de vídeo:\nhttp") || !strings.HasSuffix(send.Body, got.URL) {
			t.Fatalf("message body %q, link %q", send.Body, got.URL)
		}
		i := strings.Index(got.URL, "/call/")
		if i < 0 {
			t.Fatalf("link %q", got.URL)
		}
		videoTokens := testVideoTokens(t)
		cust, err := videoTokens.Verify(got.URL[i+len("/call/"):])
		if err != nil || cust.Role != videocall.Customer || cust.Call != got.CallID || cust.Ticket != tOpenAna || cust.Tenant != e.company("ana") {
			t.Fatalf("customer token %+v, %v", cust, err)
		}
		att, err := videoTokens.Verify(got.Token)
		if err != nil || att.Role != videocall.Attendant || att.User != e.ids["ana"] || att.Call != got.CallID {
			t.Fatalf("attendant token %+v, %v", att, err)
		}
		if got.Message.ID != send.MessageID || got.ExpiresAt.Before(time.Now()) {
			t.Fatalf("answer %s", r.Body)
		}

		// Without a text the message is the link alone.
		e.post(ana, "/tickets/"+id(tOpenAna)+"/video-call", nil).wantStatus(t, http.StatusCreated)
		if c := e.oneCall(t); !strings.HasPrefix(c.Cmd.(engine.SendMessage).Body, "http") {
			t.Fatalf("command %#v", c)
		}
		// Bad input is refused before anything is sent.
		b := e.post(ana, "/tickets/"+id(tOpenAna)+"/video-call", map[string]any{"text": strings.Repeat("a", 501)}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		if b.Fields["text"] != engine.MsgTooLong {
			t.Fatalf("fields %v", b.Fields)
		}
		e.post(ana, "/tickets/"+id(tOpenAna)+"/video-call", `{"text":["x"]}`).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
		e.post(ana, "/tickets/abc/video-call", nil).wantErr(t, http.StatusNotFound, engine.ErrNoTicketFound)
		e.noCall(t)
		// Another attendant's ticket: the actor refuses the reply; another tenant's: 404.
		e.post(ana, "/tickets/"+id(tOpenBrun)+"/video-call", nil).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		e.post(e.tok("admin2"), "/tickets/"+id(tOpenAna)+"/video-call", nil).wantErr(t, http.StatusNotFound, engine.ErrNoTicketFound)
		e.post("", "/tickets/"+id(tOpenAna)+"/video-call", nil).wantStatus(t, http.StatusUnauthorized)
	})
}
