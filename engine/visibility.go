package engine

// SeesTicket is the one rule of who may see a ticket (spec section 6): its row in a
// list and its live events on the socket (a chat box opened by id is authorised at
// join, docs/architecture.md). Profiles with tickets-manager:showall
// (superv and upward) see every ticket of their tenant; the others see closed tickets
// (the closed tab shows all), tickets with no queue (they wait for anybody), tickets in
// one of their queues, tickets assigned to them and tickets they are a guest of (they
// accepted an invitation to it, ticket_invite.go). Nobody sees another tenant's
// ticket, and an invalid principal sees nothing.
//
// Its copies are held equal to it by tests: the read model's SQL scopes
// (persistence/readmodel, TestScopesAgreeWithSeesTicket, through ListsTicket), the
// socket filter (transport/realtime calls it), AuthorizeTicket (reaches, below) and the
// web's seesTicket (web/src/app/rules.ts, against the golden file written by
// TestVisibilityGolden). docs/architecture.md ("One rule, its copies") lists them.
func SeesTicket(p Principal, t Ticket) bool {
	if !p.Valid() || t.CompanyID != p.CompanyID {
		return false
	}
	return p.Can(ActShowAllTickets) || t.Status == StatusClosed || reaches(p, t.QueueID, t.UserID) || t.HasGuest(p.UserID)
}

// HasGuest reports whether user accepted an invitation to the ticket (t.Guests).
func (t Ticket) HasGuest(user ID) bool {
	return user != 0 && containsID(t.Guests, user)
}

// reaches is the part of SeesTicket a profile without tickets-manager:showall keeps on
// a ticket that is not closed: the ticket has no queue, is in one of p's queues, or is
// assigned to p. AuthorizeTicket lets such a profile act only on what it reaches.
func reaches(p Principal, queueID, userID ID) bool {
	return queueID == 0 || p.InQueue(queueID) || (userID != 0 && userID == p.UserID)
}

// ListsTicket reports whether the ticket list of query q shows ticket t to p, leaving
// out the filters that do not ask who holds the ticket (tags, date, the search text):
// the rule the read model's SQL scopes implement (see TicketQuery). searching: a
// search is under way.
//
// Outside a search it is SeesTicket narrowed by the tab: the open tab shows the
// tickets assigned to p and those p is a guest of (every open ticket when a showall
// profile asks ShowAll), the pending tab the pending tickets in p's queues or in none
// and those p is a guest of (every pending ticket for a showall profile), the closed
// tab every closed ticket. A guest's ticket passes the queue checkboxes only as any
// ticket does (its own open tab ignores them). A search shows every ticket of
// the tenant (spec section 6): the one list that shows what SeesTicket does not. Then
// the filters narrow it: the queue checkboxes (tickets with no queue pass, and so do
// tickets assigned to p unless they are pending; on p's own open tab they change
// nothing), the attendant filter and WithUnreadMessages.
func ListsTicket(p Principal, q TicketQuery, searching bool, t Ticket) bool {
	if !p.Valid() || t.CompanyID != p.CompanyID {
		return false
	}
	switch t.Status {
	case StatusOpen, StatusPending, StatusClosed:
	default:
		return false
	}
	if q.Status != "" && t.Status != q.Status {
		return false
	}
	if q.WithUnreadMessages && (t.Status == StatusClosed || t.UnreadMessages <= 0) {
		return false
	}
	privileged := p.Can(ActShowAllTickets)
	showAll := q.ShowAll && privileged
	mine := t.UserID != 0 && t.UserID == p.UserID
	guest := t.HasGuest(p.UserID)
	pinned := false // the list is p's own open tab
	if !searching {
		if !SeesTicket(p, t) {
			return false
		}
		switch {
		case showAll:
		case t.Status == StatusOpen:
			if !mine && !guest {
				return false
			}
			pinned = true
		case t.Status == StatusPending && !privileged:
			if t.QueueID != 0 && !p.InQueue(t.QueueID) && !guest {
				return false // a pending ticket waits in its queue, whoever it names
			}
		}
	}
	if len(q.QueueIDs) > 0 && !pinned {
		inFilter := t.QueueID == 0 || containsID(q.QueueIDs, t.QueueID)
		if !inFilter && !(mine && t.Status != StatusPending) {
			return false
		}
	}
	if len(q.UserIDs) > 0 && !containsID(q.UserIDs, t.UserID) {
		return false
	}
	return true
}

func containsID(ids []ID, id ID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
