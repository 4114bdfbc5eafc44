package readmodel

import (
	"context"
	"fmt"
	"strings"

	"atende/engine"
)

// ForceSearchPlan makes q read searches by walking the list ("walk") or from the
// matching set ("driven") whatever the statistics say, so tests cover both plans.
func ForceSearchPlan(q *Queries, plan string) {
	switch plan {
	case "walk":
		q.searchMode = searchModeWalk
	case "driven":
		q.searchMode = searchModeDriven
	default:
		q.searchMode = searchModeAuto
	}
}

// VisibilityMatrixQuery is one SELECT over company p.CompanyID's live tickets that
// answers, for each query of qs, whether the visibility scopes admit the ticket for p
// (only the scopes and the unread filter: no tags, date or search text): a row per
// ticket, its id and then two 0/1 columns per query, the first through the one
// predicate the counts and the unread list use, the second through the index walks the
// lists read (branches, with the queues p holds tickets in read from s as the lists
// read them).
func VisibilityMatrixQuery(s *Queries, p engine.Principal, qs []engine.TicketQuery, searching bool) (string, []any, error) {
	var a args
	cols := []string{"t.id"}
	for _, q := range qs {
		scs := scopes(p, q, searching)
		unread := ""
		if q.WithUnreadMessages {
			unread = "t.unread_messages > 0 AND "
		}
		var bs []branch
		err := s.read(context.Background(), func(c *call) (err error) {
			bs, err = c.expandHeld(context.Background(), p.CompanyID, branches(scs, !searching))
			return err
		})
		if err != nil {
			return "", nil, err
		}
		var parts []string
		for _, b := range bs {
			parts = append(parts, "("+b.where(&a)+")")
		}
		walks := "FALSE"
		if len(parts) > 0 {
			walks = "(" + strings.Join(parts, " OR ") + ")"
		}
		cols = append(cols,
			"CASE WHEN "+unread+scopesPredicate(&a, scs)+" THEN 1 ELSE 0 END",
			"CASE WHEN "+unread+walks+" THEN 1 ELSE 0 END")
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM tickets t WHERE t.company_id = " + a.add(p.CompanyID) +
		" AND t.deleted = FALSE ORDER BY t.id", a.list, nil
}

// VisibilityKey is the SQL and arguments of p's query q before the walks of p's
// tickets outside a queue filter are expanded (which depends only on them): equal
// keys give equal VisibilityMatrixQuery columns.
func VisibilityKey(p engine.Principal, q engine.TicketQuery, searching bool) string {
	var a args
	scs := scopes(p, q, searching)
	w := scopesPredicate(&a, scs)
	for _, b := range branches(scs, !searching) {
		w += " | " + b.where(&a)
		if b.outside != nil {
			w += " outside"
		}
	}
	return fmt.Sprint(q.WithUnreadMessages, w, a.list)
}

// GuestWalkQuery is the index walk of the guest part of p's list q (the first branch
// of its scopes that reads ticket_guests), as walk runs it for a first page of n
// tickets; "" when the list has no guest part.
func GuestWalkQuery(p engine.Principal, q engine.TicketQuery, n int) (string, []any) {
	for _, b := range branches(scopes(p, q, false), true) {
		var a args
		c := a.add(p.CompanyID)
		w := b.where(&a)
		if !strings.Contains(w, "ticket_guests") {
			continue
		}
		return "SELECT t.id, t.updated_at FROM tickets t WHERE t.company_id = " + c + " AND t.deleted = FALSE AND " + w +
			" ORDER BY t.updated_at DESC, t.id DESC LIMIT " + a.add(n), a.list
	}
	return "", nil
}

// FirstWalkQuery is the query that reads the first page of p's list q (no search) in
// one UNION ALL of its index walks, each branch expanded as ListTickets expands it.
func FirstWalkQuery(s *Queries, p engine.Principal, q engine.TicketQuery) (string, []any, error) {
	var query string
	var list []any
	err := s.read(context.Background(), func(c *call) error {
		bs, err := c.expandHeld(context.Background(), p.CompanyID, branches(scopes(p, q, false), true))
		if err != nil {
			return err
		}
		query, list = c.walkSQL(p.CompanyID, bs, c.filters(p.CompanyID, q, engine.TicketSearch{}), nil, engine.TicketPageSize+1)
		return nil
	})
	return query, list, err
}
