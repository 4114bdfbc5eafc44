package readmodel

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"atende/engine"
)

// wordPlan chooses how a word search reads the list on PostgreSQL. Two plans answer
// it, and which is fast depends on how common the word is:
//
//   - walk: walk the list's index newest first and probe each ticket's words by
//     primary key, stopping after a page. Costs about TicketPageSize/p probes for a
//     word in a fraction p of the tickets: cheap for common words.
//   - driven: read every ticket with the word from the GIN index, then keep the page's
//     newest. Costs about p·N reads: cheap for rare words.
//
// The two meet near p·N = sqrt(TicketPageSize·N). PostgreSQL's own choice is not
// reliable here (it prices the walk's probes as cached and the GIN heap reads as
// random, and picked the walk for a word in 0.4% of 1M tickets: 0.6 s instead of
// tens of ms), so the choice is made here: the planner's row estimate for the rarest
// word (EXPLAIN, no execution) against that threshold, and, below it, the ticket ids
// read with a limit — more rows than the limit means the estimate was wrong and the
// word is walked after all. hits is nil for the walk; walk reports it.
func (s *Queries) wordPlan(ctx context.Context, company engine.ID, words []string) (hits []engine.ID, walk bool, err error) {
	switch s.wordMode {
	case wordModeWalk:
		return nil, true, nil
	case wordModeDriven:
		return s.wordHits(ctx, company, words, math.MaxInt32)
	}
	var tuples float64
	if err := s.db.SQL.QueryRowContext(ctx, `SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = 'ticket_words'::regclass`).
		Scan(&tuples); err != nil {
		return nil, false, fmt.Errorf("word plan: %w", err)
	}
	limit := max(minDrivenHits, int(math.Sqrt(engine.TicketPageSize*tuples)))
	rarest := math.MaxFloat64
	for i, w := range words {
		est, err := s.explainRows(ctx, `SELECT 1 FROM ticket_words w WHERE w.words @@ to_tsquery('simple', $1)`,
			tsTerm(w, i == len(words)-1))
		if err != nil {
			return nil, false, fmt.Errorf("word plan: %w", err)
		}
		rarest = min(rarest, est)
	}
	if rarest > 2*float64(limit) {
		return nil, true, nil
	}
	return s.wordHits(ctx, company, words, 4*limit)
}

// minDrivenHits: below this many tickets with the word, the driven plan is always
// cheap, whatever the table's size.
const minDrivenHits = 2000

// wordHits reads the tickets of company holding the rarest word (by the same
// estimate), up to limit; past limit it gives up and reports the walk.
func (s *Queries) wordHits(ctx context.Context, company engine.ID, words []string, limit int) ([]engine.ID, bool, error) {
	best, bestEst := 0, math.MaxFloat64
	if len(words) > 1 {
		for i, w := range words {
			est, err := s.explainRows(ctx, `SELECT 1 FROM ticket_words w WHERE w.words @@ to_tsquery('simple', $1)`,
				tsTerm(w, i == len(words)-1))
			if err != nil {
				return nil, false, fmt.Errorf("word hits: %w", err)
			}
			if est < bestEst {
				best, bestEst = i, est
			}
		}
	}
	rs, err := s.db.SQL.QueryContext(ctx, `SELECT ticket_id FROM ticket_words
		WHERE company_id = $1 AND words @@ to_tsquery('simple', $2) LIMIT $3`,
		company, tsTerm(words[best], best == len(words)-1), limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("word hits: %w", err)
	}
	defer rs.Close()
	hits := []engine.ID{}
	seen := map[engine.ID]bool{}
	n := 0
	for rs.Next() {
		var id engine.ID
		if err := rs.Scan(&id); err != nil {
			return nil, false, fmt.Errorf("word hits: %w", err)
		}
		if n++; n > limit {
			return nil, true, nil
		}
		if !seen[id] {
			seen[id] = true
			hits = append(hits, id)
		}
	}
	if err := rs.Err(); err != nil {
		return nil, false, fmt.Errorf("word hits: %w", err)
	}
	return hits, false, nil
}

// explainRows is the planner's estimate of the rows query returns (nothing runs).
func (s *Queries) explainRows(ctx context.Context, query string, args ...any) (float64, error) {
	var raw []byte
	if err := s.db.SQL.QueryRowContext(ctx, `EXPLAIN (FORMAT JSON) `+query, args...).Scan(&raw); err != nil {
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
