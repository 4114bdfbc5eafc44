package readmodel

import (
	"context"
	"fmt"
	"strings"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// ListTickets implements engine.TicketQueries.
//
// How a page is read: the query's visibility and queue/attendant filters reduce to a
// few index walks (branches, see tickets_scope.go), each reading at most one page
// backwards from the cursor in (updated_at, id) order with the other filters as
// residual conditions; the walks merge by UNION ALL and the first page of the merge
// is the answer. A page therefore costs a handful of index seeks plus the rows read,
// at any depth, whatever the tenant's size. The tickets assigned to me that pass a
// queue filter from other queues are one walk per such queue I hold tickets in
// (tickets_held.go), not one walk of all my tickets testing the queue. PostgreSQL may
// still drive a walk from a more selective index (a rare word, a tag, a contact) when
// its statistics say so. docs/performance.md has the plans of each shape.
//
// Count: without tags, date, unread or search it is the exact sum of the query's
// cells of ticket_counts; otherwise the matching tickets are counted up to
// engine.TicketCountCap (CountCapped above) — on PostgreSQL only when the planner
// expects fewer than the cap; otherwise Count is the cap, CountCapped, without
// counting. A search read from a small driving set (tickets_driven.go) is counted
// exactly from that set. A word search for a word common enough to
// be searched by walking the list (see wordPlan) is not counted: it answers
// TicketCountCap, CountCapped — the statistics put the word in thousands of tickets.
func (s *Queries) ListTickets(ctx context.Context, p engine.Principal, q engine.TicketQuery) (engine.TicketPage, error) {
	var out engine.TicketPage
	err := s.read(ctx, func(c *call) (err error) {
		out, err = c.listTickets(ctx, p, q)
		return err
	})
	return out, err
}

func (s *call) listTickets(ctx context.Context, p engine.Principal, q engine.TicketQuery) (engine.TicketPage, error) {
	page := engine.TicketPage{Tickets: []engine.Ticket{}}
	if !p.Valid() {
		return page, errPrincipal(p)
	}
	if err := q.Validate(); err != nil {
		return page, err
	}
	var after *keyset
	if q.Cursor != "" {
		t, id, err := decodeTicketCursor(q.Cursor)
		if err != nil {
			return page, err
		}
		after = &keyset{t: t, id: id}
	}
	search := engine.ParseTicketSearch(q.SearchParam)
	if search.Kind == engine.SearchNothing {
		return page, nil
	}
	f := s.filters(p.CompanyID, q, search)
	var err error
	if f.driver, f.wordWalk, f.contacts, err = s.planSearch(ctx, p.CompanyID, search); err != nil {
		return page, fmt.Errorf("list tickets of company %d: %w", p.CompanyID, err)
	}
	scs := scopes(p, q, search.Kind != engine.SearchNone)
	offset := 0
	if after == nil && q.PageNumber > 1 {
		offset = (q.PageNumber - 1) * engine.TicketPageSize
	}
	var keys []keyset
	var bs []branch
	counted := false
	if f.driver != nil {
		keys, page.Count, err = s.drivenPage(ctx, p.CompanyID, f.driver, scs, f, after, offset, engine.TicketPageSize+1)
		counted = true
	} else if bs, err = s.expandHeld(ctx, p.CompanyID, branches(scs, search.Kind == engine.SearchNone)); err == nil {
		keys, err = s.pageKeys(ctx, p.CompanyID, bs, f, after, offset, engine.TicketPageSize+1)
	}
	if err != nil {
		return page, fmt.Errorf("list tickets of company %d: %w", p.CompanyID, err)
	}
	if len(keys) > engine.TicketPageSize {
		keys = keys[:engine.TicketPageSize]
		page.HasMore = true
		last := keys[len(keys)-1]
		page.NextCursor = encodeTicketCursor(last.t, last.id)
	}
	ids := make([]engine.ID, len(keys))
	for i, k := range keys {
		ids[i] = k.id
	}
	if page.Tickets, err = s.hydrate(ctx, p.CompanyID, ids); err != nil {
		return page, err
	}
	if !counted {
		if page.Count, page.CountCapped, err = s.count(ctx, p.CompanyID, scs, bs, f); err != nil {
			return page, err
		}
	}
	return page, nil
}

// CountsByStatus implements engine.TicketQueries.
func (s *Queries) CountsByStatus(ctx context.Context, p engine.Principal, q engine.TicketQuery) (engine.TicketCounts, error) {
	var out engine.TicketCounts
	err := s.read(ctx, func(c *call) (err error) {
		out, err = c.countsByStatus(ctx, p, q)
		return err
	})
	return out, err
}

func (s *call) countsByStatus(ctx context.Context, p engine.Principal, q engine.TicketQuery) (engine.TicketCounts, error) {
	var out engine.TicketCounts
	if !p.Valid() {
		return out, errPrincipal(p)
	}
	q.SearchParam, q.Cursor, q.PageNumber, q.Status = "", "", 0, ""
	if err := q.Validate(); err != nil {
		return out, err
	}
	f := s.filters(p.CompanyID, q, engine.TicketSearch{})
	for _, c := range []struct {
		status string
		n      *int
	}{{engine.StatusOpen, &out.Open}, {engine.StatusPending, &out.Pending}} {
		q.Status = c.status
		n, capped, err := s.count(ctx, p.CompanyID, scopes(p, q, false), nil, f)
		if err != nil {
			return out, err
		}
		*c.n = n
		out.Capped = out.Capped || capped
	}
	return out, nil
}

// UnreadTickets implements engine.TicketQueries: one walk of the partial index
// tickets_unread, which holds only tickets with unread messages.
func (s *Queries) UnreadTickets(ctx context.Context, p engine.Principal) ([]engine.Ticket, error) {
	var out []engine.Ticket
	err := s.read(ctx, func(c *call) (err error) {
		out, err = c.unreadTickets(ctx, p)
		return err
	})
	return out, err
}

func (s *call) unreadTickets(ctx context.Context, p engine.Principal) ([]engine.Ticket, error) {
	if !p.Valid() {
		return []engine.Ticket{}, errPrincipal(p)
	}
	scs := append(scopes(p, engine.TicketQuery{Status: engine.StatusOpen}, false),
		scopes(p, engine.TicketQuery{Status: engine.StatusPending}, false)...)
	var a args
	query := `SELECT t.id FROM tickets t WHERE t.company_id = ` + a.add(p.CompanyID) +
		` AND t.unread_messages > 0 AND t.deleted = FALSE AND ` + scopesPredicate(&a, scs) +
		` ORDER BY t.updated_at DESC, t.id DESC LIMIT ` + a.add(engine.UnreadTicketsLimit)
	rs, err := s.query(ctx, query, a.list)
	if err != nil {
		return nil, fmt.Errorf("unread tickets of user %d: %w", p.UserID, err)
	}
	defer rs.Close()
	var ids []engine.ID
	for rs.Next() {
		var id engine.ID
		if err := rs.Scan(&id); err != nil {
			return nil, fmt.Errorf("unread tickets of user %d: %w", p.UserID, err)
		}
		ids = append(ids, id)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("unread tickets of user %d: %w", p.UserID, err)
	}
	return s.hydrate(ctx, p.CompanyID, ids)
}

// keyset is a position in the ticket list order.
type keyset struct {
	t  time.Time
	id engine.ID
}

func (s *call) filters(company engine.ID, q engine.TicketQuery, search engine.TicketSearch) filters {
	f := filters{tags: q.TagIDs, unread: q.WithUnreadMessages, search: search, company: company, loc: s.loc}
	if q.Location != nil {
		f.loc = q.Location
	}
	if q.Date != "" {
		if day, ok := engine.TicketDateIn(q.Date, f.loc); ok {
			r := dayRange(day, f.loc)
			f.day = &r
		}
	}
	return f
}

// count counts what the scopes and filters select: exactly from ticket_counts when
// the filters are scope only, else by reading up to TicketCountCap+1 matching rows
// along the scopes' branches (bs, the page's expanded branches; nil: computed here).
func (s *call) count(ctx context.Context, company engine.ID, scs []statusScope, bs []branch, f filters) (int, bool, error) {
	f.counting = true
	if f.wordWalk {
		return engine.TicketCountCap, true, nil
	}
	if !f.dimensional() && s.db.Dialect == db.Postgres {
		// Counting up to the cap can cost as much as the page times the cap: when the
		// planner expects well over the cap, take its word for it.
		var a args
		query := `SELECT 1 FROM tickets t WHERE t.company_id = ` + a.add(company) + ` AND t.deleted = FALSE AND ` +
			scopesPredicate(&a, scs)
		if extra := f.sql(&a, s.db.Dialect, f.loc); extra != "" {
			query += " AND " + extra
		}
		est, err := s.explainRows(ctx, query, a.list...)
		if err != nil {
			return 0, false, fmt.Errorf("count tickets of company %d: %w", company, err)
		}
		if est >= engine.TicketCountCap {
			return engine.TicketCountCap, true, nil
		}
	}
	var a args
	var query string
	if f.dimensional() {
		// The cells count the holders' parts; a guest's tickets beyond them are
		// counted from ticket_guests (a handful of rows).
		query = `SELECT CAST(coalesce(sum(t.n), 0) AS BIGINT) FROM ticket_counts t WHERE t.company_id = ` +
			a.add(company) + " AND " + cellsPredicate(&a, scs)
		if g := guestsOnlyPredicate(&a, scs); g != "" {
			query = `SELECT (` + query + `) + (SELECT count(*) FROM tickets t WHERE t.company_id = ` +
				a.add(company) + ` AND t.deleted = FALSE AND ` + g + `)`
		}
	} else {
		if bs == nil {
			var err error
			if bs, err = s.expandHeld(ctx, company, branches(scs, f.search.Kind == engine.SearchNone)); err != nil {
				return 0, false, fmt.Errorf("count tickets of company %d: %w", company, err)
			}
		}
		if len(bs) == 0 {
			return 0, false, nil
		}
		c := a.add(company)
		extra := f.sql(&a, s.db.Dialect, f.loc)
		lim := a.add(engine.TicketCountCap + 1)
		parts := make([]string, len(bs))
		for i, b := range bs {
			w := "t.company_id = " + c + " AND " + b.where(&a) + " AND t.deleted = FALSE"
			if extra != "" {
				w += " AND " + extra
			}
			parts[i] = fmt.Sprintf("SELECT * FROM (SELECT t.id FROM tickets t WHERE %s LIMIT %s) AS b%d", w, lim, i)
		}
		query = "SELECT count(*) FROM (SELECT * FROM (" + strings.Join(parts, " UNION ALL ") + ") AS u LIMIT " + lim + ") AS n"
	}
	var n int64
	if err := s.queryRow(ctx, query, a.list).Scan(&n); err != nil {
		return 0, false, fmt.Errorf("count tickets of company %d: %w", company, err)
	}
	if n > engine.TicketCountCap && !f.dimensional() {
		return engine.TicketCountCap, true, nil
	}
	return int(n), false, nil
}
