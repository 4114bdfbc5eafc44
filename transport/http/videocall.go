package httpapi

import (
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"atende/engine"
)

// VideoCalls starts video calls (package call's Tokens, adapted by cmd/atende).
type VideoCalls interface {
	// Invite starts a call of tenant's ticket by user: the call id, the token of the
	// link sent to the customer, the attendant's token, and when both expire.
	Invite(tenant, ticket, user engine.ID) (VideoCallInvite, error)
}

// VideoCallInvite is a started call.
type VideoCallInvite struct {
	CallID         string
	CustomerToken  string
	AttendantToken string
	ExpiresAt      time.Time
}

// maxInviteTextRunes bounds the text that introduces the link.
const maxInviteTextRunes = 500

// videoCallBody is the body of POST /tickets/{ticketId}/video-call.
type videoCallBody struct {
	// Text introduces the link in the customer's message, in the attendant's
	// language ("Entre na chamada de vídeo:"); optional.
	Text string `json:"text"`
}

// videoCallView is the answer: what the attendant's call window needs.
type videoCallView struct {
	CallID    string         `json:"callId"`
	Token     string         `json:"token"` // the attendant's, for call.join on the socket
	URL       string         `json:"url"`   // the customer's link
	ExpiresAt time.Time      `json:"expiresAt"`
	Message   engine.Message `json:"message"`
}

// startVideoCall: POST /tickets/{ticketId}/video-call {text?} → 201 {callId, token,
// url, expiresAt, message}. The link to the public call page is sent to the
// customer as an ordinary outbound message of the ticket (so it works on every
// channel), which is why the caller must be allowed to reply on the ticket: open
// and theirs, or any with tickets-manager:showall (the actor's rules); another
// tenant's ticket is ERR_NO_TICKET_FOUND (404).
func (s *Server) startVideoCall(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	ticketID, err := pathID(r, "ticketId", engine.ErrNoTicketFound)
	if err != nil {
		return err
	}
	var b videoCallBody
	if r.ContentLength != 0 {
		if err := s.decodeJSON(r, &b); err != nil {
			return err
		}
	}
	text := strings.TrimSpace(b.Text)
	switch {
	case !utf8.ValidString(text) || strings.ContainsRune(text, 0):
		return fieldError("text", engine.MsgInvalidValue)
	case utf8.RuneCountInString(text) > maxInviteTextRunes:
		return fieldError("text", engine.MsgTooLong)
	}
	if s.deps.VideoCalls == nil {
		return engine.E(engine.ErrUnavailable)
	}
	// The ticket must be the caller's tenant's before anything is signed.
	if _, err := s.deps.TicketQueries.GetTicket(r.Context(), p.CompanyID, ticketID); err != nil {
		return err
	}
	inv, err := s.deps.VideoCalls.Invite(p.CompanyID, ticketID, p.UserID)
	if err != nil {
		return err
	}
	link := s.publicBase(r) + "/call/" + inv.CustomerToken
	body := link
	if text != "" {
		body = text + "\n" + link
	}
	msgs, _, err := s.send(r, p, ticketID, []outgoing{{body: body}})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, videoCallView{CallID: inv.CallID, Token: inv.AttendantToken, URL: link,
		ExpiresAt: inv.ExpiresAt.UTC(), Message: msgs[0]})
	return nil
}

// publicBase is the origin customers reach: Config.PublicURL, else the request's
// own (a LAN or a single host without PUBLIC_URL).
func (s *Server) publicBase(r *http.Request) string {
	if s.cfg.PublicURL != "" {
		return strings.TrimRight(s.cfg.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
