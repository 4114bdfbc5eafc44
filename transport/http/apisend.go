package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"atende/engine"
)

// DefaultAPISendsPerMinute is Config.APISendsPerMinute's zero value: sends a token
// may make per minute, as many at once.
const DefaultAPISendsPerMinute = 60

// apiSendInput is what one POST /api/messages/send carried.
type apiSendInput struct {
	Number       string
	Body         string
	ConnectionID engine.ID
	File         *engine.MediaFile // the stored media file, if one came
}

// apiSendJSON is the JSON form of the send. number may be a JSON string or number;
// whatsappId (the connection) a number, a numeric string, null or "".
type apiSendJSON struct {
	Number       json.RawMessage `json:"number"`
	Body         string          `json:"body"`
	ConnectionID idField         `json:"whatsappId"`
}

// saveFunc stores one uploaded file (the media store's Save for the request's tenant).
type saveFunc func(r io.Reader, name, contentType string) (engine.MediaFile, error)

// readAPISend reads the send from a JSON body (application/json, at most maxJSON
// bytes) or a multipart/form-data one (fields number, body, whatsappId and at most one
// file field medias, stored through save as it streams in). It checks the shape only:
// the number against its connection, and the body, are checked by the caller. On an
// error the file stored so far, if any, is returned too so that it can be removed.
func readAPISend(r *http.Request, maxJSON int64, save saveFunc) (apiSendInput, error) {
	if !isMultipart(r) {
		var in apiSendInput
		var j apiSendJSON
		if err := decodeJSONLimit(r, &j, maxJSON); err != nil {
			return in, err
		}
		if j.ConnectionID.Bad {
			return in, fieldError("whatsappId", engine.MsgInvalidValue)
		}
		number, ok := jsonNumberField(j.Number)
		if !ok {
			return in, engine.E(engine.ErrWappInvalidContact)
		}
		return apiSendInput{Number: number, Body: j.Body, ConnectionID: j.ConnectionID.ID}, nil
	}
	var in apiSendInput
	mr, err := r.MultipartReader()
	if err != nil {
		return in, engine.Wrap(engine.ErrInvalidJSON, fmt.Errorf("multipart: %w", err))
	}
	for parts := 0; ; parts++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return in, nil
		}
		if err != nil {
			return in, bodyError(err)
		}
		if parts >= maxUploadParts {
			_ = part.Close()
			return in, engine.Wrap(engine.ErrInvalidJSON, fmt.Errorf("more than %d parts", maxUploadParts))
		}
		err = readAPISendPart(part.FormName(), part.FileName(), part.Header.Get("Content-Type"), part, &in, save)
		_ = part.Close()
		if err != nil {
			return in, err
		}
	}
}

// readAPISendPart handles one form part.
func readAPISendPart(name, fileName, contentType string, part io.Reader, in *apiSendInput, save saveFunc) error {
	switch name {
	case "medias", "media":
		if in.File != nil {
			return fieldError("medias", engine.MsgTooLong) // one file per send
		}
		f, err := save(part, fileName, contentType)
		if err != nil {
			return uploadError(err)
		}
		in.File = &f
		return nil
	case "number", "body", "whatsappId":
		b, err := io.ReadAll(io.LimitReader(part, maxFieldBytes+1))
		if err != nil {
			return bodyError(err)
		}
		if len(b) > maxFieldBytes {
			if name == "body" {
				return fieldError("body", engine.MsgTooLong)
			}
			if name == "number" {
				return engine.E(engine.ErrWappInvalidContact)
			}
			return fieldError(name, engine.MsgInvalidValue)
		}
		switch name {
		case "number":
			in.Number = string(b)
		case "body":
			in.Body = string(b)
		default:
			id, ok := formID(string(b))
			if !ok {
				return fieldError("whatsappId", engine.MsgInvalidValue)
			}
			in.ConnectionID = id
		}
		return nil
	default:
		// Anything else (fromMe, a client's own fields): read past.
		if _, err := io.Copy(io.Discard, part); err != nil {
			return bodyError(err)
		}
		return nil
	}
}

// jsonNumberField reads number as a JSON string or a JSON number of digits; absent
// or null is "" (refused later as an invalid contact).
func jsonNumberField(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false
		}
		return s, true
	}
	if _, err := strconv.ParseUint(string(raw), 10, 64); err != nil {
		return "", false
	}
	return string(raw), true
}

// apiSendAnswer is the answer of a send.
type apiSendAnswer struct {
	Message   string    `json:"message"`
	MessageID engine.ID `json:"messageId"`
	TicketID  engine.ID `json:"ticketId"`
	ContactID engine.ID `json:"contactId"`
}

// apiSend: POST /api/messages/send with "Authorization: Bearer <API token>"
// (whaticket's messaging API). JSON {number, body, whatsappId?} or multipart with
// fields number, body, whatsappId and one file medias. The message goes out through
// connection whatsappId, or the tenant's default one, to the contact with that
// number — created on a phone channel — on its current open or pending ticket, or a
// new pending one opened on behalf of the token's creator. With an Idempotency-Key
// header, a repeat of the key within a day sends nothing new and answers the first
// send. Answers 200 {message, messageId, ticketId, contactId}. Failures: no or bad
// token 401/403, over the token's rate 429 ERR_TOO_MANY_ATTEMPTS with Retry-After,
// a bad number 400 ERR_WAPP_INVALID_CONTACT, an unknown connection 404
// ERR_NO_WAPP_FOUND, no default connection 404 ERR_NO_DEF_WAPP_FOUND.
func (s *Server) apiSend(w http.ResponseWriter, r *http.Request) error {
	if s.deps.APITokens == nil || s.deps.APISender == nil || s.deps.Connections == nil ||
		s.deps.Contacts == nil || s.deps.IDs == nil || s.deps.Media == nil {
		return engine.Wrap(engine.ErrUnavailable, errors.New("messaging api not wired"))
	}
	raw, ok := bearer(r)
	if !ok {
		return engine.E(engine.ErrSessionExpired)
	}
	if !wellFormedAPIToken(raw) {
		return engine.E(engine.ErrInvalidToken)
	}
	tok, err := s.deps.APITokens.Authenticate(r.Context(), hashAPIToken(raw))
	if err != nil {
		return err
	}
	ri := infoOf(r)
	ri.userID, ri.companyID = tok.UserID, tok.CompanyID
	key := r.Header.Get("Idempotency-Key")
	if key != "" && !engine.ValidIdempotencyKey(key) {
		return fieldError("Idempotency-Key", engine.MsgInvalidValue)
	}
	if ok, wait, err := s.apiLimiter.Take(r.Context(), strconv.FormatInt(tok.ID, 10)); err != nil {
		return fmt.Errorf("api rate limit: %w", err)
	} else if !ok {
		w.Header().Set("Retry-After", strconv.FormatInt(int64((wait+time.Second-1)/time.Second), 10))
		return engine.E(engine.ErrTooManyAttempts)
	}

	r.Body = http.MaxBytesReader(w, r.Body, s.deps.maxUploadBytes())
	in, err := readAPISend(r, s.cfg.MaxBodyBytes, func(rd io.Reader, name, ct string) (engine.MediaFile, error) {
		return s.deps.Media.Save(r.Context(), tok.CompanyID, rd, name, ct)
	})
	answer, replayed, err := s.deliverAPISend(r.Context(), tok, key, in, err)
	if err != nil || replayed {
		if in.File != nil {
			s.discardMedia(r, engine.Principal{CompanyID: tok.CompanyID, UserID: tok.UserID},
				[]outgoing{{mediaPath: in.File.Path}})
		}
	}
	if err != nil {
		return err
	}
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeJSON(w, http.StatusOK, answer)
	return nil
}

// deliverAPISend checks a read send (readErr is the reading's failure) and delivers
// it. replayed tells that the key's earlier send is answered and nothing was sent.
func (s *Server) deliverAPISend(ctx context.Context, tok engine.APIToken, key string, in apiSendInput, readErr error) (a apiSendAnswer, replayed bool, err error) {
	if readErr != nil {
		return apiSendAnswer{}, false, readErr
	}
	if err := checkBody(in.Body, in.File == nil); err != nil {
		return apiSendAnswer{}, false, err
	}
	conn, err := s.apiConnection(ctx, tok.CompanyID, in.ConnectionID)
	if err != nil {
		return apiSendAnswer{}, false, err
	}
	number, create, err := engine.APIRecipient(conn.Channel, in.Number)
	if err != nil {
		return apiSendAnswer{}, false, err
	}
	var contact engine.Contact
	if create {
		contact, _, err = s.deps.Contacts.FindOrCreateByNumber(ctx, tok.CompanyID, number, number)
	} else {
		contact, err = s.deps.Contacts.FindByNumber(ctx, tok.CompanyID, number)
		if engine.CodeOf(err) == engine.ErrNoContactFound {
			err = engine.Wrap(engine.ErrWappInvalidContact, err)
		}
	}
	if err != nil {
		return apiSendAnswer{}, false, err
	}
	msgID, err := s.deps.IDs.Next(ctx, "message")
	if err != nil {
		return apiSendAnswer{}, false, fmt.Errorf("allocate message id: %w", err)
	}
	if key != "" {
		claim, existed, err := s.deps.APITokens.ClaimSend(ctx, tok.CompanyID, key, msgID, contact.ID)
		if err != nil {
			return apiSendAnswer{}, false, err
		}
		if existed && claim.TicketID != 0 {
			// Sent before: answer that send; this call's file is not needed.
			return apiSendAnswer{Message: "Message sent", MessageID: claim.MessageID, TicketID: claim.TicketID,
				ContactID: claim.ContactID}, true, nil
		}
		// New, or a first call that did not finish: deliver under the recorded
		// message id, which the ticket records once whichever call gets there.
		msgID = claim.MessageID
	}
	d := engine.ScheduledDelivery{CompanyID: tok.CompanyID, ConnectionID: conn.ID, ContactID: contact.ID,
		MessageID: msgID, UserID: tok.UserID, Body: in.Body}
	if in.File != nil {
		d.MediaType, d.MediaPath = in.File.Type, in.File.Path
		if strings.TrimSpace(d.Body) == "" && in.File.Type == engine.MediaDocument {
			d.Body = in.File.Name
		}
	}
	ticketID, err := s.deps.APISender.DeliverScheduled(ctx, d)
	if err != nil {
		return apiSendAnswer{}, false, err
	}
	if key != "" {
		if err := s.deps.APITokens.FinishSend(ctx, tok.CompanyID, key, ticketID); err != nil {
			return apiSendAnswer{}, false, err
		}
	}
	return apiSendAnswer{Message: "Message sent", MessageID: msgID, TicketID: ticketID, ContactID: contact.ID}, false, nil
}

// apiConnection is connection id of the tenant, or its default one when id is 0.
func (s *Server) apiConnection(ctx context.Context, companyID, id engine.ID) (engine.Connection, error) {
	if id != 0 {
		return s.deps.Connections.Get(ctx, companyID, id)
	}
	conns, err := s.deps.Connections.List(ctx, companyID)
	if err != nil {
		return engine.Connection{}, err
	}
	for _, c := range conns {
		if c.IsDefault {
			return c, nil
		}
	}
	return engine.Connection{}, engine.E(engine.ErrNoDefWappFound)
}
