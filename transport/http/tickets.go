package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"atende/engine"
)

// ticketRoutes registers the ticket and message routes of spec section 7; routes calls
// it.
//
// Reads come from the read models (Deps.TicketQueries); changes are commands to the
// ticket actors (Deps.Tickets), which authorise them (engine.AuthorizeTicket) — a
// refusal comes back as the actor's *engine.Error and is answered as is. After a
// command the handler waits for its journal position (Deps.Waiter, bounded by
// WaitTimeout) and answers the read model's view, so a client reads its own writes.
// Realtime "ticket" and "appMessage" events are published from the journal by the
// socket gateway, not here (they would arrive twice); only tags created on the fly by
// POST /tags/sync publish a "tags" event, as POST /tags does.
//
// Routes (beyond the spec, marked +):
//
//	GET    /tickets                     list: {tickets, count, hasMore, nextCursor, countCapped}
//	GET    /tickets/counts           +  badges of the open tab: {open, pending, capped?}
//	GET    /tickets/unread           +  notification bell: {tickets, count}
//	GET    /tickets/{id}                the ticket with contact, user, queue and tags
//	PUT    /tickets/{id}                status / assignment change (see planUpdate)
//	DELETE /tickets/{id}                delete (ticket-options:deleteTicket) → 204
//	POST   /tickets                     open a ticket → 201 and the ticket
//	POST   /tickets/{id}                the ticket's history: [{id, createdAt, oldusername, …}]
//	GET    /messages/{ticketId}         a page: {messages, hasMore, nextCursor, ticket}
//	GET    /allmessages/{ticketId}      the whole conversation: {messages}
//	POST   /messages/{ticketId}         reply (JSON) or send files (multipart) → 201
//	POST   /messages/whisper/{ticketId} internal note → 201 and the note
//	POST   /tickets/{ticketId}/video-call start a video call: the link sent → 201 (videocall.go)
//	DELETE /messages/{id}               delete one's own message → 204
//	POST   /tags/sync                   replace the ticket's tags → the ticket
//	GET    /tickets-export-report       ?ticketId= → {url, name}: the ticket's PDF report
//	PUT    /ticketinvite/{id}           invite a colleague (ticket_invite.go), and + accept / decline
func (s *Server) ticketRoutes() {
	d := s.deps.TicketDeps
	if !d.ticketsWired() {
		s.log.Warn().Msg("ticket collaborators not wired: ticket and message routes not registered")
		return
	}
	if missing := d.unwiredTicketDeps(); len(missing) > 0 {
		s.log.Warn().Strs("deps", missing).Msg("some ticket collaborators not wired: their routes answer 503")
	}
	q, t := d.TicketQueries != nil, d.Tickets != nil
	ids, journal := d.IDs != nil, d.Journal != nil

	s.ticketRoute("GET /tickets", q, s.listTickets)
	s.ticketRoute("GET /tickets/counts", q, s.ticketCounts)
	s.ticketRoute("GET /tickets/unread", q, s.unreadTickets)
	s.ticketRoute("GET /tickets/{id}", q, s.getTicket)
	s.ticketRoute("PUT /tickets/{id}", q && t, s.updateTicket)
	s.ticketRoute("DELETE /tickets/{id}", t, s.deleteTicket)
	s.ticketRoute("POST /tickets", q && t, s.createTicket)
	s.ticketRoute("POST /tickets/{id}", journal, s.ticketHistory)

	s.ticketRoute("GET /messages/{ticketId}", q, s.listMessages)
	s.ticketRoute("GET /allmessages/{ticketId}", q, s.allMessages)
	s.ticketRoute("POST /messages/{ticketId}", q && t && ids, s.sendMessage)
	s.ticketRoute("POST /messages/whisper/{ticketId}", q && t && ids, s.sendWhisper)
	s.ticketRoute("POST /tickets/{ticketId}/video-call", q && t && ids, s.startVideoCall)
	s.ticketRoute("DELETE /messages/{id}", q && t, s.deleteMessage)

	s.ticketRoute("POST /tags/sync", q && t && s.deps.Tags != nil, s.syncTags)

	s.ticketRoute("GET /tickets-export-report", q && d.Media != nil, s.ticketReport)

	_, invites := d.TicketQueries.(engine.InviteQueries)
	s.ticketRoute("GET /ticketinvite", invites, s.pendingInvites)
	s.ticketRoute("GET /ticketinvite/{$}", invites, s.pendingInvites)
	s.ticketRoute("PUT /ticketinvite/{id}", q && t, s.inviteToTicket)
	s.ticketRoute("POST /ticketinvite/{id}/accept", q && t, s.answerInvite(true))
	s.ticketRoute("POST /ticketinvite/{id}/decline", t, s.answerInvite(false))
}

// ticketRoute registers h behind authentication, or a 503 ERR_UNAVAILABLE answer when
// a collaborator it needs is not wired.
func (s *Server) ticketRoute(pattern string, wired bool, h authedFunc) {
	if !wired {
		h = func(http.ResponseWriter, *http.Request, engine.Principal) error {
			return engine.E(engine.ErrUnavailable)
		}
	}
	s.route(pattern, s.authed(h))
}

// ticketListView is the answer of GET /tickets. nextCursor is "" on the last page;
// countCapped says count stopped at engine.TicketCountCap (the web app shows "1000+").
type ticketListView struct {
	Tickets     []engine.Ticket `json:"tickets"`
	Count       int             `json:"count"`
	HasMore     bool            `json:"hasMore"`
	NextCursor  string          `json:"nextCursor"`
	CountCapped bool            `json:"countCapped"`
}

// listTickets: GET /tickets?searchParam&tags&users&pageNumber&status&date&showAll
// &queueIds&withUnreadMessages&cursor. Lists may come as JSON strings (queueIds=[1,2],
// what the web app sends), repeated or comma-separated. searchParam is handed to the
// read model untouched (engine.ParseTicketSearch reads its prefixes; the read model
// binds it as a parameter). Visibility per profile is the read model's (see
// engine.TicketQuery). cursor, the nextCursor of the previous page, wins over
// pageNumber and pages at constant cost at any depth.
func (s *Server) listTickets(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	q, err := ticketQuery(r)
	if err != nil {
		return err
	}
	if q.Location, err = s.tenantZone(r.Context(), p.CompanyID); err != nil {
		return err
	}
	page, err := s.deps.TicketQueries.ListTickets(r.Context(), p, q)
	if err != nil {
		return err
	}
	out := ticketListView{Tickets: page.Tickets, Count: page.Count, HasMore: page.HasMore,
		NextCursor: page.NextCursor, CountCapped: page.CountCapped}
	if out.Tickets == nil {
		out.Tickets = []engine.Ticket{}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// ticketCounts: GET /tickets/counts, with the filters of GET /tickets (status,
// pageNumber, cursor and searchParam are ignored) → {open, pending, capped?}: the
// badges of the open tab's "assigned" and "pending" sub-tabs. An Atende addition: the
// spec's client counted by listing each tab.
func (s *Server) ticketCounts(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	q, err := ticketQuery(r)
	if err != nil {
		return err
	}
	if q.Location, err = s.tenantZone(r.Context(), p.CompanyID); err != nil {
		return err
	}
	q.Status, q.PageNumber, q.Cursor, q.SearchParam = "", 0, "", ""
	c, err := s.deps.TicketQueries.CountsByStatus(r.Context(), p, q)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

// unreadTickets: GET /tickets/unread → {tickets, count}: the tickets with unread
// messages the caller works (open with them, or pending in their queues), newest
// first, at most engine.UnreadTicketsLimit — the notification bell. An Atende
// addition. Every profile may ask: the answer holds only the caller's own work.
func (s *Server) unreadTickets(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	ts, err := s.deps.TicketQueries.UnreadTickets(r.Context(), p)
	if err != nil {
		return err
	}
	if ts == nil {
		ts = []engine.Ticket{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"tickets": ts, "count": len(ts)})
	return nil
}

// getTicket: GET /tickets/{id} → the ticket with contact, user, queue and tags. Any
// member of staff of the tenant may read any of its tickets (the closed tab and search
// show them all, spec section 6); another tenant's is ERR_NO_TICKET_FOUND.
func (s *Server) getTicket(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := pathID(r, "id", engine.ErrNoTicketFound)
	if err != nil {
		return err
	}
	t, err := s.deps.TicketQueries.GetTicket(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	s.withContactLists(r, p, &t)
	writeJSON(w, http.StatusOK, t)
	return nil
}

// withContactLists fills the extra info and sales opportunities of t's contact from
// the contact store: the ticket read model holds the contact's row only, and the
// chat's contact drawer shows both lists (and marks opportunities won or lost from
// them). Without a contact store, or when the contact cannot be read, the lists stay
// empty and the ticket is still answered: the conversation matters more than them.
func (s *Server) withContactLists(r *http.Request, p engine.Principal, t *engine.Ticket) {
	if t.Contact == nil {
		return
	}
	if t.Contact.ExtraInfo == nil {
		t.Contact.ExtraInfo = []engine.ExtraInfo{}
	}
	if t.Contact.SalesOpps == nil {
		t.Contact.SalesOpps = []engine.SalesOpp{}
	}
	if s.deps.Contacts == nil {
		return
	}
	c, err := s.deps.Contacts.Get(r.Context(), p.CompanyID, t.Contact.ID)
	if err != nil {
		if engine.CodeOf(err) != engine.ErrNoContactFound {
			s.reqLog(r).Warn().Err(err).Int64("ticket_id", t.ID).Msg("read the lists of the ticket's contact")
		}
		return
	}
	if c.ExtraInfo != nil {
		t.Contact.ExtraInfo = c.ExtraInfo
	}
	if c.SalesOpps != nil {
		t.Contact.SalesOpps = c.SalesOpps
	}
}

// deleteTicket: DELETE /tickets/{id} → 204. Needs ticket-options:deleteTicket (admin,
// super): checked here to answer early, and again by the actor.
func (s *Server) deleteTicket(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActDeleteTicket); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoTicketFound)
	if err != nil {
		return err
	}
	_, pos, err := s.deps.Tickets.Do(r.Context(), p, id, engine.Delete{})
	if err != nil {
		return err
	}
	s.waitRead(r, pos)
	writeJSON(w, http.StatusNoContent, nil)
	return nil
}

// ticketQuery reads the filters of GET /tickets.
func ticketQuery(r *http.Request) (engine.TicketQuery, error) {
	var q engine.TicketQuery
	var err error
	q.SearchParam = r.URL.Query().Get("searchParam")
	q.Status = queryString(r, "status")
	q.Date = queryString(r, "date")
	q.Cursor = queryString(r, "cursor")
	if q.TagIDs, err = queryIDs(r, "tags"); err != nil {
		return q, err
	}
	if q.UserIDs, err = queryIDs(r, "users"); err != nil {
		return q, err
	}
	if q.QueueIDs, err = queryIDs(r, "queueIds"); err != nil {
		return q, err
	}
	if q.ShowAll, err = queryBool(r, "showAll", false); err != nil {
		return q, err
	}
	if q.WithUnreadMessages, err = queryBool(r, "withUnreadMessages", false); err != nil {
		return q, err
	}
	if q.Cursor == "" {
		if q.PageNumber, err = queryInt(r, "pageNumber", 1); err != nil {
			return q, err
		}
	}
	return q, q.Validate()
}

// waitRead waits, at most WaitTimeout, until the read models have applied pos. It
// reports whether they have: true for pos 0 (nothing was written), false without a
// Waiter or when the wait failed (logged).
func (s *Server) waitRead(r *http.Request, pos int64) bool {
	if pos <= 0 {
		return true
	}
	if s.deps.Waiter == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.deps.waitTimeout())
	defer cancel()
	if err := s.deps.Waiter.WaitFor(ctx, pos); err != nil {
		s.reqLog(r).Warn().Err(err).Int64("position", pos).Msg("read models behind: answering from the actor's state")
		return false
	}
	return true
}

// ticketAfter is the ticket to answer after a command on ticket id left it in state st
// at journal position pos: the read model's view once it has applied pos; when it has
// not (wait timed out, no Waiter), the read model's older view with the actor's state
// laid over it, or the bare state when the read model does not have the ticket yet.
func (s *Server) ticketAfter(r *http.Request, p engine.Principal, id engine.ID, st engine.TicketState, pos int64) (engine.Ticket, error) {
	caughtUp := s.waitRead(r, pos)
	t, err := s.deps.TicketQueries.GetTicket(r.Context(), p.CompanyID, id)
	switch {
	case err == nil && caughtUp:
		return t, nil
	case err == nil:
		return s.overlayState(r.Context(), t, st), nil
	case caughtUp || engine.CodeOf(err) != engine.ErrNoTicketFound || !st.Exists():
		return engine.Ticket{}, err
	default:
		t = st.Ticket()
		return s.overlayState(r.Context(), t, st), nil
	}
}

// overlayState lays the actor's state st over the read model's ticket t, filling the
// user and queue it names (their names looked up) and the tags it has.
func (s *Server) overlayState(ctx context.Context, t engine.Ticket, st engine.TicketState) engine.Ticket {
	if !st.Exists() || st.ID != t.ID {
		return t
	}
	t.Status, t.ConnectionID, t.UnreadMessages = st.Status, st.ConnectionID, st.UnreadMessages
	t.LastMessage, t.UpdatedAt = st.LastMessage, st.UpdatedAt
	t.Guests = slices.Clone(st.Guests)
	if t.UserID != st.UserID || (st.UserID != 0 && t.User == nil) {
		t.UserID, t.User = st.UserID, nil
		if st.UserID != 0 {
			if u, err := s.deps.Users.Get(ctx, st.CompanyID, st.UserID); err == nil {
				t.User = &engine.UserRef{ID: u.ID, Name: u.Name}
			}
		}
	}
	if t.QueueID != st.QueueID || (st.QueueID != 0 && t.Queue == nil) {
		t.QueueID, t.Queue = st.QueueID, nil
		if st.QueueID != 0 && s.deps.Queues != nil {
			if q, err := s.deps.Queues.Get(ctx, st.CompanyID, st.QueueID); err == nil {
				t.Queue = &engine.QueueRef{ID: q.ID, Name: q.Name, Color: q.Color}
			}
		}
	}
	known := make(map[engine.ID]engine.Tag, len(t.Tags))
	for _, tag := range t.Tags {
		known[tag.ID] = tag
	}
	t.Tags = make([]engine.Tag, len(st.TagIDs))
	for i, id := range st.TagIDs {
		tag, ok := known[id]
		if !ok {
			tag = engine.Tag{ID: id, CompanyID: st.CompanyID}
			if s.deps.Tags != nil {
				if got, err := s.deps.Tags.Get(ctx, st.CompanyID, id); err == nil {
					tag = got
				}
			}
		}
		t.Tags[i] = tag
	}
	return t
}

// idField is an id in a JSON body: a number or a numeric string. null, "", false and 0 mean
// "none" (ID 0). Set records that the field was present; Bad that its value was
// something else (a negative number, a fraction, text, an object), reported by the
// handler under the field's name.
type idField struct {
	Set bool
	Bad bool
	ID  engine.ID
}

func (f *idField) UnmarshalJSON(b []byte) error {
	*f = idField{Set: true}
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return nil
	}
	raw := string(b)
	if raw == "false" {
		return nil // whaticket's forms keep false for "none chosen"
	}
	if strings.HasPrefix(raw, `"`) {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			f.Bad = true
			return nil
		}
		raw = strings.TrimSpace(str)
		if raw == "" {
			return nil
		}
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id < 0 {
		f.Bad = true
		return nil
	}
	f.ID = id
	return nil
}

// checkIDFields adds "Invalid value" for every bad idField, by field name.
func checkIDFields(fields map[string]idField) error {
	bad := map[string]string{}
	for name, f := range fields {
		if f.Bad {
			bad[name] = engine.MsgInvalidValue
		}
	}
	if len(bad) > 0 {
		return &engine.Error{Code: engine.ErrValidation, Fields: bad}
	}
	return nil
}

// checkUser answers ERR_NO_USER_FOUND unless id is a user of the caller's tenant
// (a ticket may be handed only to staff of its own tenant). The caller is one.
func (s *Server) checkUser(ctx context.Context, p engine.Principal, id engine.ID) error {
	if id == 0 || id == p.UserID {
		return nil
	}
	if _, err := s.deps.Users.Get(ctx, p.CompanyID, id); err != nil {
		return err
	}
	return nil
}

// checkQueue answers ERR_NO_QUEUE_FOUND unless id is a queue of the caller's tenant.
// Without a queue store the check is left to the actor.
func (s *Server) checkQueue(ctx context.Context, p engine.Principal, id engine.ID) error {
	if id == 0 || s.deps.Queues == nil {
		return nil
	}
	if _, err := s.deps.Queues.Get(ctx, p.CompanyID, id); err != nil {
		return err
	}
	return nil
}

// isNotFound reports whether err is one of the "no such row" codes.
func isNotFound(err error) bool {
	var e *engine.Error
	if !errors.As(err, &e) {
		return false
	}
	return e.Code.HTTPStatus() == http.StatusNotFound
}
