package readmodel

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"atende/engine"
	"atende/persistence/db"
)

// A search can read the list two ways, and which is fast depends on how much it
// matches:
//
//   - walk: walk the list's index newest first, testing each ticket (a primary-key
//     probe of its words, a lookup of its contact) and stopping after a page. Costs
//     about TicketPageSize/p tests when a fraction p of the tickets match: cheap when
//     much matches.
//   - driven: read the few matching tickets (or contacts) from their own index once,
//     then read those tickets, sort them and keep the page. Costs about p·N reads:
//     cheap when little matches. It also gives the exact count.
//
// The two meet near p·N = sqrt(TicketPageSize·N) for N rows. PostgreSQL's own choice
// is not reliable here (it prices the walk's probes as cached and the index's heap
// reads as random: it walked 21,000 tickets for a word in 0.4% of 1M, 0.6 s instead of
// tens of ms), and a walk repeated per branch of a UNION repeats the search, so the
// choice is made here: the planner's row estimate (EXPLAIN, nothing runs) against
// that threshold, then, below it, the ids read with a limit — more rows than the limit
// means the estimate was wrong, and the walk is used after all. SQLite always walks
// (its databases are small and its planner materialises the subqueries once).

// driver is the set a driven page is read from: ticket ids (col t.id) or contact ids
// (col t.contact_id). For a word search, ids hold every word in one chunk, and split
// are tickets of several chunks that hold the rarest word, still to be checked word
// by word.
type driver struct {
	col   string
	ids   []engine.ID
	split []engine.ID
	words []string
	// or is a second set the page is also read from: a plain search is the tickets of
	// the matching contacts or those whose messages hold the words.
	or *driver
}

// sql is the driver's condition over alias t; it enforces the search itself.
func (d *driver) sql(a *args) string {
	cond := d.col + " = ANY(" + a.add(d.ids) + ")"
	if len(d.split) != 0 {
		cond = "(" + cond + " OR (t.id = ANY(" + a.add(d.split) + ") AND " + wordsSQL(a, d.words) + "))"
	}
	if d.or != nil {
		cond = "(" + cond + " OR " + d.or.sql(a) + ")"
	}
	return cond
}

// minDriven: up to this many matching rows, the driven plan is always cheap.
const minDriven = 2000

type searchMode int

const (
	searchModeAuto searchMode = iota
	searchModeWalk
	searchModeDriven
)

// planSearch returns the driver of a search on PostgreSQL, or nil for the walk.
// wordWalk reports a word search that walks (its count is not read, see count).
// contacts, when not nil, are the contacts a plain search matched, read already: a
// walk tests them by id instead of running the contact search again.
func (s *call) planSearch(ctx context.Context, company engine.ID, search engine.TicketSearch) (drv *driver, wordWalk bool, contacts []engine.ID, err error) {
	if s.db.Dialect != db.Postgres {
		return nil, false, nil, nil
	}
	switch search.Kind {
	case engine.SearchWord:
		drv, err = s.planWords(ctx, company, search.Words)
		return drv, err == nil && drv == nil, nil, err
	case engine.SearchContact, engine.SearchPhone:
		pat := likeContains(search.Text)
		where := `c.company_id = $1 AND c.search LIKE $2 ESCAPE '\'`
		if search.Kind == engine.SearchPhone {
			where += ` AND c.number LIKE $2 ESCAPE '\'`
		}
		// A walk that also tests the words of a plain search does not read its count
		// (as a word walk).
		wordsWalk := len(search.Words) > 0
		limit := math.MaxInt32
		switch s.searchMode {
		case searchModeWalk:
			return nil, wordsWalk, nil, nil
		case searchModeAuto:
			if limit, err = s.drivenLimit(ctx, "contacts", `SELECT 1 FROM contacts c WHERE `+where, company, pat); err != nil || limit == 0 {
				return nil, err == nil && wordsWalk, nil, err
			}
		}
		ids, err := s.readIDs(ctx, `SELECT c.id FROM contacts c WHERE `+where+` LIMIT $3`, limit, company, pat)
		if err != nil || ids == nil {
			return nil, err == nil && wordsWalk, nil, err
		}
		drv := &driver{col: "t.contact_id", ids: ids}
		if len(search.Words) == 0 {
			return drv, false, nil, nil
		}
		// A plain search: the tickets of those contacts, or of the messages' words.
		if drv.or, err = s.planWords(ctx, company, search.Words); err != nil {
			return nil, false, nil, err
		}
		if drv.or == nil {
			// Common words: walk, testing the contacts found by id (the contact
			// search inside the walk's OR made the planner leave the list's index:
			// ~0.7 s instead of a few ms on 100k tickets).
			return nil, true, ids, nil
		}
		return drv, false, nil, nil
	}
	return nil, false, nil, nil
}

// planWords drives a word search from the tickets holding every word. The GIN index
// intersects the words itself, so only those rows are read; but a ticket of more
// than one chunk (migration 0212) may hold the words in different chunks, so the
// multi-chunk rows holding the rarest word are read too (from the small partial
// index ticket_words_multi) and checked word by word in the page query.
func (s *call) planWords(ctx context.Context, company engine.ID, words []string) (*driver, error) {
	if s.searchMode == searchModeWalk {
		return nil, nil
	}
	terms := make([]string, len(words))
	for i, w := range words {
		terms[i] = tsTerm(w, i == len(words)-1)
	}
	all := strings.Join(terms, " & ")
	limit := math.MaxInt32
	if s.searchMode == searchModeAuto {
		l, err := s.drivenLimit(ctx, "ticket_words", `SELECT 1 FROM ticket_words w WHERE w.words @@ to_tsquery('simple', $1)`, all)
		if err != nil || l == 0 {
			return nil, err
		}
		limit = l
	}
	ids, err := s.readIDs(ctx, `SELECT ticket_id FROM ticket_words WHERE company_id = $1
		AND words @@ to_tsquery('simple', $2) LIMIT $3`, limit, company, all)
	if err != nil || ids == nil {
		return nil, err
	}
	drv := &driver{col: "t.id", ids: ids, words: words}
	if len(words) == 1 {
		return drv, nil
	}
	rarest, rarestEst := 0, math.MaxFloat64
	for i, term := range terms {
		est, err := s.explainRows(ctx, `SELECT 1 FROM ticket_words w WHERE w.multi AND w.words @@ to_tsquery('simple', $1)`, term)
		if err != nil {
			return nil, fmt.Errorf("word plan: %w", err)
		}
		if est < rarestEst {
			rarest, rarestEst = i, est
		}
	}
	split, err := s.readIDs(ctx, `SELECT ticket_id FROM ticket_words WHERE company_id = $1 AND multi
		AND words @@ to_tsquery('simple', $2) LIMIT $3`, limit, company, terms[rarest])
	if err != nil || split == nil {
		return nil, err
	}
	drv.split = split
	return drv, nil
}

// drivenLimit estimates query and returns how many ids a driven plan may read, or 0
// when the estimate says walk.
func (s *call) drivenLimit(ctx context.Context, table, query string, args ...any) (int, error) {
	est, err := s.explainRows(ctx, query, args...)
	if err != nil {
		return 0, fmt.Errorf("plan search: %w", err)
	}
	return s.threshold(ctx, table, est)
}

// threshold is 0 (walk) when est rows are past the meeting point of the two plans
// over table, else the most ids the driven plan may read (four times that point).
func (s *call) threshold(ctx context.Context, table string, est float64) (int, error) {
	var tuples float64
	if err := s.queryRow(ctx, `SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = $1::regclass`, []any{table}).
		Scan(&tuples); err != nil {
		return 0, fmt.Errorf("plan search: %w", err)
	}
	meet := max(minDriven, int(math.Sqrt(engine.TicketPageSize*tuples)))
	if est > float64(meet) {
		return 0, nil
	}
	return 4 * meet, nil
}

// readIDs runs query (its last placeholder is the limit) and returns the distinct
// ids, or nil when there are more than limit rows.
func (s *call) readIDs(ctx context.Context, query string, limit int, args ...any) ([]engine.ID, error) {
	rs, err := s.query(ctx, query, append(args, limit+1))
	if err != nil {
		return nil, fmt.Errorf("plan search: %w", err)
	}
	defer rs.Close()
	ids := []engine.ID{}
	n := 0
	for rs.Next() {
		var id engine.ID
		if err := rs.Scan(&id); err != nil {
			return nil, fmt.Errorf("plan search: %w", err)
		}
		if n++; n > limit {
			return nil, nil
		}
		ids = append(ids, id)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("plan search: %w", err)
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// drivenPage reads every ticket of the driver that the scopes and filters admit, in
// one pass, and pages and counts them here.
func (s *call) drivenPage(ctx context.Context, company engine.ID, drv *driver, scs []statusScope, f filters,
	after *keyset, offset, limit int) ([]keyset, int, error) {
	var a args
	query := `SELECT t.id, t.updated_at FROM tickets t WHERE t.company_id = ` + a.add(company) +
		` AND ` + drv.sql(&a) + ` AND t.deleted = FALSE AND ` + scopesPredicate(&a, scs)
	if extra := f.sql(&a, s.db.Dialect, f.loc); extra != "" {
		query += " AND " + extra
	}
	rs, err := s.query(ctx, query, a.list)
	if err != nil {
		return nil, 0, err
	}
	defer rs.Close()
	var all []keyset
	for rs.Next() {
		var k keyset
		if err := rs.Scan(&k.id, timeCol{&k.t}); err != nil {
			return nil, 0, err
		}
		all = append(all, k)
	}
	if err := rs.Err(); err != nil {
		return nil, 0, err
	}
	slices.SortFunc(all, func(x, y keyset) int { return -x.compare(y) })
	count := len(all)
	if after != nil {
		i, _ := slices.BinarySearchFunc(all, *after, func(x, target keyset) int { return -x.compare(target) })
		for i < len(all) && all[i].compare(*after) >= 0 {
			i++
		}
		all = all[i:]
	}
	all = all[min(offset, len(all)):]
	return all[:min(limit, len(all))], count, nil
}

// compare orders keysets by (t, id).
func (k keyset) compare(o keyset) int {
	if c := k.t.Compare(o.t); c != 0 {
		return c
	}
	return int(sign(k.id - o.id))
}

func sign(x int64) int64 {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// explainRows is the planner's estimate of the rows query returns (nothing runs).
func (s *call) explainRows(ctx context.Context, query string, args ...any) (float64, error) {
	var raw []byte
	if err := s.queryRow(ctx, `EXPLAIN (FORMAT JSON) `+query, args).Scan(&raw); err != nil {
		return 0, err
	}
	var plan []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal(raw, &plan); err != nil || len(plan) == 0 {
		return 0, fmt.Errorf("explain: unreadable plan %q: %v", raw, err)
	}
	return plan[0].Plan.Rows, nil
}

// covers reports whether the search's own condition is enforced by the driver.
func (d *driver) covers() bool { return d != nil }
