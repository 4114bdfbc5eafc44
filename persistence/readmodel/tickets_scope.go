package readmodel

import (
	"slices"
	"strings"

	"atende/engine"
)

// statusScope is what a ticket query admits of one status, over the two columns the
// indexes are keyed by: rows with
//
//	status = status AND (((queue_id IN queues) AND (user_id IN users)) OR (orMe AND user_id = me)
//	                     OR (guest AND I am a guest of it AND queue_id IN guestQueues AND user_id IN guestUsers))
//
// where a nil list means "any" and an empty one "none". The visibility rules and the
// queue and attendant filters of engine.TicketQuery all reduce to this shape. The
// guest part (engine.Ticket.HasGuest) is read from ticket_guests: a user is the guest
// of a handful of tickets, so it costs one seek of ticket_guests_user and a primary
// key lookup per ticket.
type statusScope struct {
	status string
	queues []engine.ID // nil: any queue (0 is "no queue")
	users  []engine.ID // nil: any user
	orMe   bool        // also the tickets assigned to me, whatever their queue
	me     engine.ID
	// guest: also the tickets I am a guest of, whose queue and user are in
	// guestQueues and guestUsers (nil: any).
	guest       bool
	guestQueues []engine.ID
	guestUsers  []engine.ID
	company     engine.ID // of ticket_guests' rows
}

// scopes computes the statusScopes of query q for principal p (see engine.TicketQuery
// for the rules). searching: a search is under way, which shows the whole tenant.
func scopes(p engine.Principal, q engine.TicketQuery, searching bool) []statusScope {
	privileged := p.Can(engine.ActShowAllTickets)
	showAll := q.ShowAll && privileged
	statuses := []string{engine.StatusOpen, engine.StatusPending, engine.StatusClosed}
	if q.Status != "" {
		statuses = []string{q.Status}
	}
	out := make([]statusScope, 0, len(statuses))
	for _, status := range statuses {
		if q.WithUnreadMessages && status == engine.StatusClosed {
			continue // closed tickets never have unread messages (engine.TicketState)
		}
		sc := statusScope{status: status, me: p.UserID, company: p.CompanyID}
		wholeTenant := searching || showAll || status == engine.StatusClosed ||
			(status == engine.StatusPending && privileged)
		mine := false // every row the scope admits is assigned to me
		if !wholeTenant {
			// Outside the whole tenant, the tickets I am a guest of join what my tab
			// shows (engine.ListsTicket): on my open tab whatever their queue, on the
			// pending tab under the queue checkboxes; both under the attendant filter.
			sc.guest = true
			if len(q.UserIDs) > 0 {
				sc.guestUsers = unique(q.UserIDs)
			}
			switch status {
			case engine.StatusOpen:
				sc.users, mine = []engine.ID{p.UserID}, true
			case engine.StatusPending:
				sc.queues = withNoQueue(p.QueueIDs)
				if len(q.QueueIDs) > 0 {
					sc.guestQueues = withNoQueue(q.QueueIDs)
				}
			}
		}
		if len(q.QueueIDs) > 0 && !mine {
			// Tickets with no queue and tickets assigned to me pass the queue filter.
			filter := withNoQueue(q.QueueIDs)
			if sc.queues == nil {
				sc.queues = filter
				sc.orMe = status != engine.StatusPending // pending tickets have no user
			} else {
				sc.queues = intersect(sc.queues, filter)
			}
		}
		if len(q.UserIDs) > 0 {
			if sc.users == nil {
				sc.users = unique(q.UserIDs)
			} else {
				sc.users = intersect(sc.users, q.UserIDs)
			}
			if !slices.Contains(q.UserIDs, p.UserID) {
				sc.orMe = false
			}
		}
		out = append(out, sc)
	}
	return out
}

// holders is the scope's condition on queue_id and user_id over alias t, without its
// guest part ("" for none: any row of the status).
func (sc statusScope) holders(a *args) string {
	var inner []string
	if sc.queues != nil {
		inner = append(inner, a.inList("t.queue_id", sc.queues))
	}
	if sc.users != nil {
		inner = append(inner, a.inList("t.user_id", sc.users))
	}
	switch {
	case len(inner) == 0:
		return ""
	case sc.orMe:
		return "((" + strings.Join(inner, " AND ") + ") OR t.user_id = " + a.add(sc.me) + ")"
	default:
		return strings.Join(inner, " AND ")
	}
}

// predicate is the scope as a condition over alias t (tickets, or ticket_counts when
// withGuests is false: its cells know nothing of guests).
func (sc statusScope) predicate(a *args, withGuests bool) string {
	w := "t.status = " + a.add(sc.status)
	h := sc.holders(a)
	switch {
	case h == "":
	case withGuests && sc.guest:
		w += " AND (" + h + " OR (" + sc.guestCond(a) + "))"
	default:
		w += " AND " + h
	}
	return w
}

// guestCond is the guest part of the scope without its status: tickets I am a guest
// of, in guestQueues and guestUsers.
func (sc statusScope) guestCond(a *args) string {
	w := "t.id IN (SELECT g.ticket_id FROM ticket_guests g WHERE g.company_id = " + a.add(sc.company) +
		" AND g.user_id = " + a.add(sc.me) + ")"
	if sc.guestQueues != nil {
		w += " AND " + a.inList("t.queue_id", sc.guestQueues)
	}
	if sc.guestUsers != nil {
		w += " AND " + a.inList("t.user_id", sc.guestUsers)
	}
	return w
}

// guestOnly is what the guest part adds to the scope: the rows of its status the
// guest part admits and its holders do not (so that they are counted or walked once).
func (sc statusScope) guestOnly(a *args) string {
	w := "t.status = " + a.add(sc.status) + " AND " + sc.guestCond(a)
	if h := sc.holders(a); h != "" {
		w += " AND NOT " + h
	}
	return w
}

// scopesPredicate is the disjunction of every scope's predicate over tickets t,
// guests included; FALSE for none (a closed list of unread tickets admits nothing).
func scopesPredicate(a *args, scs []statusScope) string {
	return disjunction(a, scs, true)
}

// cellsPredicate is scopesPredicate without the guest parts, over ticket_counts t
// (guestsOnlyPredicate is the rest).
func cellsPredicate(a *args, scs []statusScope) string {
	return disjunction(a, scs, false)
}

// guestsOnlyPredicate is the disjunction of the scopes' guestOnly conditions over
// tickets t; "" when no scope has a guest part.
func guestsOnlyPredicate(a *args, scs []statusScope) string {
	var parts []string
	for _, sc := range scs {
		if sc.guest {
			parts = append(parts, "("+sc.guestOnly(a)+")")
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "(" + strings.Join(parts, " OR ") + ")"
}

func disjunction(a *args, scs []statusScope, withGuests bool) string {
	if len(scs) == 0 {
		return "FALSE"
	}
	parts := make([]string, len(scs))
	for i, sc := range scs {
		parts[i] = "(" + sc.predicate(a, withGuests) + ")"
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, " OR ") + ")"
}

// branch is one index walk of a ticket list: equality on status and on user_id,
// queue_id or both (the keys of the indexes of migrations 0210 and 0213), plus a
// residual condition. The branches of a query select disjoint sets of rows, so their
// pages merge by UNION ALL without duplicates.
type branch struct {
	status   string
	byUser   bool // t.user_id = user
	user     engine.ID
	byQueue  bool // t.queue_id = queue
	queue    engine.ID
	residual func(a *args) string // nil: none
	// outside, when not nil, makes the branch "user's tickets whose queue is not in
	// outside" (the tickets assigned to me that pass a queue filter whatever their
	// queue). No index serves a NOT IN in list order, so expandHeld replaces it with
	// one walk per queue the user holds tickets of the status in; unexpanded, its
	// residual tests the queue.
	outside []engine.ID
}

// maxBranchesPerScope: past this many values a scope is read as one walk with an IN
// list (the planner's choice) instead of one walk per value.
const maxBranchesPerScope = 12

// maxPairBranches: an attendant filter combined with a queue filter is read as one
// walk per (attendant, queue) pair up to this many pairs, else per attendant with the
// queues as a residual condition.
const maxPairBranches = 24

// branches splits the scopes into index walks. A scope's guest part is one more walk
// (ticket_guests_user, then the tickets' primary key) of the rows its holders do not
// admit. split: read an attendant and a queue filter together as (attendant, queue)
// walks and mark the walk of my tickets outside a queue filter for expandHeld. A
// search does not split: each walk of a search repeats its contact subquery, so more
// walks cost more than the rows they save (a plain search over ~35 walks took longer
// than the single walk over the supervisor's tickets).
func branches(scs []statusScope, split bool) []branch {
	var out []branch
	for _, sc := range scs {
		sc := sc
		if sc.guest {
			out = append(out, branch{status: sc.status, residual: func(a *args) string {
				w := sc.guestCond(a)
				if h := sc.holders(a); h != "" {
					w += " AND NOT " + h
				}
				return w
			}})
		}
		switch {
		case sc.users != nil && len(sc.users) <= maxBranchesPerScope:
			pairs := split && sc.queues != nil && len(sc.users)*len(sc.queues) <= maxPairBranches
			for _, u := range sc.users {
				b := branch{status: sc.status, byUser: true, user: u}
				switch {
				case sc.queues == nil || (sc.orMe && u == sc.me):
					out = append(out, b)
				case pairs:
					for _, q := range sc.queues {
						b.byQueue, b.queue = true, q
						out = append(out, b)
					}
				default:
					b.residual = func(a *args) string { return a.inList("t.queue_id", sc.queues) }
					out = append(out, b)
				}
			}
			if sc.orMe && !slices.Contains(sc.users, sc.me) {
				out = append(out, branch{status: sc.status, byUser: true, user: sc.me})
			}
		case sc.users == nil && sc.queues != nil && len(sc.queues) <= maxBranchesPerScope:
			for _, q := range sc.queues {
				out = append(out, branch{status: sc.status, byQueue: true, queue: q})
			}
			if sc.orMe {
				b := branch{status: sc.status, byUser: true, user: sc.me,
					residual: func(a *args) string { return "NOT (" + a.inList("t.queue_id", sc.queues) + ")" }}
				if split {
					b.outside = sc.queues
				}
				out = append(out, b)
			}
		default:
			b := branch{status: sc.status}
			if sc.users != nil || sc.queues != nil {
				b.residual = func(a *args) string { return sc.holders(a) }
			}
			out = append(out, b)
		}
	}
	return out
}

// where is the branch's condition over alias t, without the tenant.
func (b branch) where(a *args) string {
	w := "t.status = " + a.add(b.status)
	if b.byUser {
		w += " AND t.user_id = " + a.add(b.user)
	}
	if b.byQueue {
		w += " AND t.queue_id = " + a.add(b.queue)
	}
	if b.residual != nil {
		w += " AND " + b.residual(a)
	}
	return w
}

// withNoQueue is ids plus 0 ("no queue"), unique.
func withNoQueue(ids []engine.ID) []engine.ID {
	return unique(append(slices.Clone(ids), 0))
}

// unique sorts ids and drops repeats; never nil.
func unique(ids []engine.ID) []engine.ID {
	out := slices.Clone(ids)
	slices.Sort(out)
	out = slices.Compact(out)
	if out == nil {
		out = []engine.ID{}
	}
	return out
}

// intersect is the sorted set of ids in both lists; never nil.
func intersect(a, b []engine.ID) []engine.ID {
	out := []engine.ID{}
	for _, id := range unique(a) {
		if slices.Contains(b, id) {
			out = append(out, id)
		}
	}
	return out
}
