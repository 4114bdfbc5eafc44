package httpapi

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"atende/engine"
)

// Limits of the message routes.
const (
	// MaxMessageBodyRunes bounds a message body typed by an attendant (text, caption
	// or whisper): ERR_VALIDATION {body: "Too Long!"} beyond it. Twice the longest
	// quick answer (engine.LongTextMax), so that a quick answer with the signature the
	// web app prefixes and a few words of the attendant's still fits.
	MaxMessageBodyRunes = 2 * engine.LongTextMax
	// MaxMessageFiles bounds the files of one multipart POST /messages/{ticketId}:
	// ERR_VALIDATION {medias: "Too Long!"} beyond it.
	MaxMessageFiles = 10
)

// messagePageView is the answer of GET /messages/{ticketId}.
type messagePageView struct {
	Messages   []engine.Message `json:"messages"`
	HasMore    bool             `json:"hasMore"`
	NextCursor string           `json:"nextCursor"`
	Ticket     *engine.Ticket   `json:"ticket,omitempty"`
}

// listMessages: GET /messages/{ticketId}?pageNumber=&cursor= → {messages, hasMore,
// nextCursor, ticket}: engine.MessagePageSize messages, page 1 the newest, each page
// oldest to newest (the chat prepends older pages). cursor (the previous answer's
// nextCursor) wins over pageNumber and costs the same at any depth. Media URLs are
// signed links valid for MediaURLTTL.
//
// Reading marks read: when the caller is the attendant holding the open ticket and
// asks for its newest page, the ticket's unread count is set to zero (MarkRead)
// before the page is read, as whaticket does on opening a chat. Anybody else reading
// — a supervisor looking in, an attendant spying on a pending ticket — leaves the
// count for the attendant who will work it. A failed mark is logged, never refused.
func (s *Server) listMessages(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := pathID(r, "ticketId", engine.ErrNoTicketFound)
	if err != nil {
		return err
	}
	q := engine.MessageQuery{Cursor: queryString(r, "cursor")}
	if q.Cursor == "" {
		if q.PageNumber, err = queryInt(r, "pageNumber", 1); err != nil {
			return err
		}
		if q.PageNumber < 1 || q.PageNumber > engine.MaxMessagePageNumber {
			return fieldError("pageNumber", engine.MsgInvalidValue)
		}
	}
	t, err := s.deps.TicketQueries.GetTicket(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	if q.Cursor == "" && q.PageNumber == 1 && s.deps.Tickets != nil &&
		t.Status == engine.StatusOpen && t.UserID == p.UserID && t.UnreadMessages > 0 {
		if _, pos, err := s.deps.Tickets.Do(r.Context(), p, id, engine.MarkRead{}); err != nil {
			s.reqLog(r).Warn().Err(err).Int64("ticket_id", id).Msg("mark read on opening messages")
		} else {
			s.waitRead(r, pos)
			t.UnreadMessages = 0
		}
	}
	page, err := s.deps.TicketQueries.ListMessages(r.Context(), p.CompanyID, id, q)
	if err != nil {
		return err
	}
	s.withContactLists(r, p, &t)
	out := messagePageView{Messages: s.presentMessages(p.CompanyID, page.Messages), HasMore: page.HasMore,
		NextCursor: page.NextCursor, Ticket: &t}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// allMessages: GET /allmessages/{ticketId} → {messages}: the whole conversation,
// oldest first, shaped as GET /messages shapes it. Reading it marks nothing read.
func (s *Server) allMessages(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := pathID(r, "ticketId", engine.ErrNoTicketFound)
	if err != nil {
		return err
	}
	msgs, err := s.deps.TicketQueries.AllMessages(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"messages": s.presentMessages(p.CompanyID, msgs)})
	return nil
}

// sendBody is the JSON body of POST /messages/{ticketId}. read and fromMe are
// accepted for the spec's client and ignored: a reply is always ours and read.
// whaticket's composer sends read: 1, so both take any flag form (flexBool).
type sendBody struct {
	Body        string     `json:"body"`
	QuotedMsg   *quotedRef `json:"quotedMsg"`
	QuotedMsgID idField    `json:"quotedMsgId"`
	Read        flexBool   `json:"read"`
	FromMe      flexBool   `json:"fromMe"`
	MediaURL    string     `json:"mediaUrl"`
}

// quotedRef is the quoted message of a reply; the client may send the whole message.
type quotedRef struct {
	ID idField `json:"id"`
}

// quotedID is the id of the quoted message (quotedMsg.id, else quotedMsgId).
func (b sendBody) quotedID() (engine.ID, error) {
	if b.QuotedMsg != nil && (b.QuotedMsg.ID.Bad || b.QuotedMsg.ID.ID != 0) {
		if b.QuotedMsg.ID.Bad {
			return 0, fieldError("quotedMsg", engine.MsgInvalidValue)
		}
		return b.QuotedMsg.ID.ID, nil
	}
	if b.QuotedMsgID.Bad {
		return 0, fieldError("quotedMsgId", engine.MsgInvalidValue)
	}
	return b.QuotedMsgID.ID, nil
}

// outgoing is one message to send.
type outgoing struct {
	body      string
	mediaType string
	mediaPath string // a stored file, "<companyId>/<file>"
	quoted    engine.ID
	whisper   bool // an internal note: mediaType "" (whisper) or chatgpt (an AI answer)
}

// sendMessage: POST /messages/{ticketId} → 201 and the message sent.
//
// JSON {body, quotedMsg: {id} | quotedMsgId, mediaUrl?, read, fromMe}: a reply, body
// required (ERR_VALIDATION {body: "Required"}) unless mediaUrl names a file of the
// tenant's media store (a stored path "<companyId>/<file>" or a media URL this server
// handed out) — anything else there is ERR_VALIDATION {mediaUrl: "Invalid value"}, so
// no client can make the server send a file that is not its tenant's.
//
// multipart/form-data with "medias" files (and body, quotedMsgId, fromMe): see
// sendFiles.
//
// The sender is the caller; the ticket must be open and, for profiles without
// tickets-manager:showall, theirs (the actor's rules).
func (s *Server) sendMessage(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	ticketID, err := pathID(r, "ticketId", engine.ErrNoTicketFound)
	if err != nil {
		return err
	}
	if isMultipart(r) {
		return s.sendFiles(w, r, p, ticketID)
	}
	var b sendBody
	if err := s.decodeJSON(r, &b); err != nil {
		return err
	}
	if err := checkFlags(map[string]flexBool{"read": b.Read, "fromMe": b.FromMe}); err != nil {
		return err
	}
	quoted, err := b.quotedID()
	if err != nil {
		return err
	}
	out := outgoing{body: b.Body, quoted: quoted}
	if strings.TrimSpace(b.MediaURL) != "" {
		if out.mediaPath, out.mediaType, err = s.storedMedia(r.Context(), p, b.MediaURL); err != nil {
			return err
		}
	}
	if err := checkBody(out.body, out.mediaPath == ""); err != nil {
		return err
	}
	msgs, _, err := s.send(r, p, ticketID, []outgoing{out})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, msgs[0])
	return nil
}

// whisperBody is the body of POST /messages/whisper/{ticketId}.
type whisperBody struct {
	Body   string   `json:"body"`
	FromMe flexBool `json:"fromMe"`
}

// sendWhisper: POST /messages/whisper/{ticketId} {body} → 201 and the note (media
// type whisper): an internal note, never sent to the customer. Body required. Only on
// an open ticket the caller may reply on (the actor's rules).
func (s *Server) sendWhisper(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	ticketID, err := pathID(r, "ticketId", engine.ErrNoTicketFound)
	if err != nil {
		return err
	}
	var b whisperBody
	if err := s.decodeJSON(r, &b); err != nil {
		return err
	}
	if err := checkFlags(map[string]flexBool{"fromMe": b.FromMe}); err != nil {
		return err
	}
	if err := checkBody(b.Body, true); err != nil {
		return err
	}
	msgs, _, err := s.send(r, p, ticketID, []outgoing{{body: b.Body, whisper: true}})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, msgs[0])
	return nil
}

// deleteMessage: DELETE /messages/{id} → 204. Only the attendant who wrote a message
// may delete it (the actor's rule: ERR_NO_PERMISSION otherwise); it stays in the
// conversation marked isDeleted. The message's ticket is found through the read
// model (engine.MessageLocator); a client that knows it may pass ?ticketId= and save
// that lookup — the actor checks the message is on that ticket (ERR_NO_MESSAGE_FOUND).
func (s *Server) deleteMessage(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := pathID(r, "id", engine.ErrNoMessageFound)
	if err != nil {
		return err
	}
	var ticketID engine.ID
	if raw := queryString(r, "ticketId"); raw != "" {
		ticketID, err = strconv.ParseInt(raw, 10, 64)
		if err != nil || ticketID <= 0 {
			return fieldError("ticketId", engine.MsgInvalidValue)
		}
	} else {
		loc, ok := s.deps.TicketQueries.(engine.MessageLocator)
		if !ok {
			return engine.Wrap(engine.ErrUnavailable, fmt.Errorf("TicketQueries %T does not implement engine.MessageLocator", s.deps.TicketQueries))
		}
		if ticketID, err = loc.MessageTicket(r.Context(), p.CompanyID, id); err != nil {
			return err
		}
	}
	_, pos, err := s.deps.Tickets.Do(r.Context(), p, ticketID, engine.DeleteMessage{MessageID: id, ByUserID: p.UserID})
	if err != nil {
		return err
	}
	s.waitRead(r, pos)
	writeJSON(w, http.StatusNoContent, nil)
	return nil
}

// send sends outs to ticket ticketID in order, one command each, and returns the
// messages as the read model shows them (see messagesAfter). Ids are allocated first.
// On a refusal the messages before it stay sent and n is how many were.
func (s *Server) send(r *http.Request, p engine.Principal, ticketID engine.ID, outs []outgoing) (msgs []engine.Message, n int, err error) {
	ids := make([]engine.ID, len(outs))
	for i := range outs {
		if ids[i], err = s.deps.IDs.Next(r.Context(), "message"); err != nil {
			return nil, 0, fmt.Errorf("allocate message id: %w", err)
		}
	}
	var last int64
	for i, o := range outs {
		var cmd engine.TicketCommand = engine.SendMessage{MessageID: ids[i], SenderID: p.UserID, Body: o.body,
			MediaType: o.mediaType, MediaURL: o.mediaPath, QuotedID: o.quoted}
		if o.whisper {
			cmd = engine.AddWhisper{MessageID: ids[i], SenderID: p.UserID, Body: o.body, MediaType: o.mediaType}
		}
		_, pos, err := s.deps.Tickets.Do(r.Context(), p, ticketID, cmd)
		if err != nil {
			return nil, i, err
		}
		last = max(last, pos)
	}
	return s.messagesAfter(r, p, ticketID, ids, outs, last), len(outs), nil
}

// messagesAfter answers the messages just sent: as the read model has them once it
// applied pos, else (or when a newer page pushed one out) as they were sent.
func (s *Server) messagesAfter(r *http.Request, p engine.Principal, ticketID engine.ID, ids []engine.ID, outs []outgoing, pos int64) []engine.Message {
	found := map[engine.ID]engine.Message{}
	if s.waitRead(r, pos) {
		page, err := s.deps.TicketQueries.ListMessages(r.Context(), p.CompanyID, ticketID, engine.MessageQuery{PageNumber: 1})
		if err != nil {
			s.reqLog(r).Warn().Err(err).Int64("ticket_id", ticketID).Msg("read back sent messages")
		}
		for _, m := range page.Messages {
			found[m.ID] = m
		}
	}
	now := s.clock.Now().UTC()
	msgs := make([]engine.Message, len(ids))
	for i, id := range ids {
		m, ok := found[id]
		if !ok {
			o := outs[i]
			m = engine.Message{ID: id, CompanyID: p.CompanyID, TicketID: ticketID, SenderID: p.UserID, Body: o.body,
				Read: true, FromMe: true, MediaURL: o.mediaPath, MediaType: o.mediaType, CreatedAt: now, UpdatedAt: now}
			if o.whisper {
				m.MediaType = engine.TicketWhisperAdded{MediaType: o.mediaType}.Media()
			}
			if o.quoted != 0 {
				m.QuotedMsg = &engine.QuotedMessage{ID: o.quoted}
			}
		}
		msgs[i] = m
	}
	return s.presentMessages(p.CompanyID, msgs)
}

// presentMessages replaces the stored media paths of msgs ("<companyId>/<file>") by
// signed URLs valid for MediaURLTTL. Other media URLs (links a channel gave) are left
// as they are. Without a media store nothing is changed.
func (s *Server) presentMessages(companyID engine.ID, msgs []engine.Message) []engine.Message {
	if msgs == nil {
		return []engine.Message{}
	}
	if s.deps.Media == nil {
		return msgs
	}
	prefix := strconv.FormatInt(companyID, 10) + "/"
	for i := range msgs {
		m := &msgs[i]
		if !strings.HasPrefix(m.MediaURL, prefix) {
			continue
		}
		if u, err := s.deps.Media.URL(companyID, m.MediaURL, s.deps.mediaURLTTL()); err == nil {
			m.MediaURL = u
		}
	}
	return msgs
}

// storedMedia reads the mediaUrl of a JSON send: a stored path "<companyId>/<file>" or
// a media URL this server signed (".../<grant>/<companyId>/<file>", or the earlier
// ".../<companyId>/<file>?exp=…"). It must name an
// existing file of p's tenant; the answer is its path and media type.
func (s *Server) storedMedia(ctx context.Context, p engine.Principal, raw string) (string, string, error) {
	bad := fieldError("mediaUrl", engine.MsgInvalidValue)
	if s.deps.Media == nil || len(raw) > 4096 {
		return "", "", bad
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", "", bad
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 2 || parts[len(parts)-2] != strconv.FormatInt(p.CompanyID, 10) {
		return "", "", bad
	}
	rel := parts[len(parts)-2] + "/" + parts[len(parts)-1]
	rc, f, err := s.deps.Media.Open(ctx, p.CompanyID, rel)
	if err != nil {
		if isNotFound(err) {
			return "", "", bad
		}
		return "", "", fmt.Errorf("open media %s: %w", rel, err)
	}
	_ = rc.Close()
	return rel, f.Type, nil
}

// checkBody validates a message body: storable text (valid UTF-8, no NUL), at most
// MaxMessageBodyRunes, and not blank when required.
func checkBody(body string, required bool) error {
	switch {
	case !utf8.ValidString(body) || strings.ContainsRune(body, 0):
		return fieldError("body", engine.MsgInvalidValue)
	case utf8.RuneCountInString(body) > MaxMessageBodyRunes:
		return fieldError("body", engine.MsgTooLong)
	case required && strings.TrimSpace(body) == "":
		return fieldError("body", engine.MsgRequired)
	}
	return nil
}

// isMultipart reports whether r's body is multipart/form-data.
func isMultipart(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "multipart/form-data"
}
