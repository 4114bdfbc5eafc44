package readmodel

import (
	"context"
	"fmt"
	"time"

	"atende/engine"
)

var _ engine.WaitPanelQueries = (*Queries)(nil)

// WaitPanel implements engine.WaitPanelQueries. Its reads are bounded whatever the
// number of tickets: the counts are the cells of ticket_counts; each queue's longest
// wait is the first entry of tickets_pending_queue_since for the queue; the waiting
// list is the first entries of tickets_pending_since (pending_since: when the ticket
// entered pending, not moved by the customer's later messages). Queues and users are the
// tenant's reference rows. On PostgreSQL it reads one snapshot.
func (s *Queries) WaitPanel(ctx context.Context, companyID engine.ID) (engine.WaitPanel, error) {
	var out engine.WaitPanel
	err := s.read(ctx, func(c *call) error {
		var err error
		out, err = c.waitPanel(ctx, companyID)
		return err
	})
	if err != nil {
		return engine.WaitPanel{}, fmt.Errorf("wait panel: %w", err)
	}
	return out, nil
}

func (c *call) waitPanel(ctx context.Context, companyID engine.ID) (engine.WaitPanel, error) {
	w := engine.WaitPanel{Queues: []engine.WaitPanelQueue{}, Attendants: []engine.WaitPanelAttendant{},
		Waiting: []engine.WaitPanelTicket{}, At: time.Now().UTC()}

	// Counts per queue and per attendant, from the counters.
	type counts struct{ pending, open int }
	byQueue := map[engine.ID]*counts{}
	openByUser := map[engine.ID]int{}
	rows, err := c.query(ctx, `SELECT status, queue_id, user_id, n FROM ticket_counts
		WHERE company_id = $1 AND status IN ('pending', 'open') AND n <> 0`, []any{companyID})
	if err != nil {
		return w, err
	}
	for rows.Next() {
		var status string
		var queue, user engine.ID
		var n int
		if err := rows.Scan(&status, &queue, &user, &n); err != nil {
			rows.Close()
			return w, err
		}
		q := byQueue[queue]
		if q == nil {
			q = &counts{}
			byQueue[queue] = q
		}
		if status == engine.StatusPending {
			q.pending += n
			w.Pending += n
		} else {
			q.open += n
			w.Open += n
			openByUser[user] += n
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return w, err
	}

	// The tenant's queues, then "no queue" when it holds tickets; each queue's longest
	// wait.
	rows, err = c.query(ctx, `SELECT id, name, color FROM queues WHERE company_id = $1 ORDER BY name, id`, []any{companyID})
	if err != nil {
		return w, err
	}
	for rows.Next() {
		var q engine.WaitPanelQueue
		if err := rows.Scan(&q.ID, &q.Name, &q.Color); err != nil {
			rows.Close()
			return w, err
		}
		w.Queues = append(w.Queues, q)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return w, err
	}
	if n := byQueue[0]; n != nil && n.pending+n.open > 0 {
		w.Queues = append(w.Queues, engine.WaitPanelQueue{ID: 0})
	}
	longest, err := c.longestWaits(ctx, companyID)
	if err != nil {
		return w, err
	}
	for i := range w.Queues {
		q := &w.Queues[i]
		q.Online = []engine.ID{}
		if n := byQueue[q.ID]; n != nil {
			q.Pending, q.Open = n.pending, n.open
		}
		if tk, ok := longest[q.ID]; ok {
			q.LongestWait = &tk
		}
	}

	if w.Waiting, err = c.waiting(ctx, companyID, engine.WaitPanelWaitingLimit); err != nil {
		return w, err
	}

	// The attendants, with their queues and open tickets.
	rows, err = c.query(ctx, `SELECT id, name, profile FROM users WHERE company_id = $1 ORDER BY name_key, id LIMIT $2`,
		[]any{companyID, engine.WaitPanelAttendantLimit})
	if err != nil {
		return w, err
	}
	index := map[engine.ID]int{}
	for rows.Next() {
		a := engine.WaitPanelAttendant{QueueIDs: []engine.ID{}}
		if err := rows.Scan(&a.ID, &a.Name, &a.Profile); err != nil {
			rows.Close()
			return w, err
		}
		a.Open = openByUser[a.ID]
		index[a.ID] = len(w.Attendants)
		w.Attendants = append(w.Attendants, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return w, err
	}
	rows, err = c.query(ctx, `SELECT user_id, queue_id FROM user_queues WHERE company_id = $1 ORDER BY user_id, queue_id`, []any{companyID})
	if err != nil {
		return w, err
	}
	defer rows.Close()
	for rows.Next() {
		var user, queue engine.ID
		if err := rows.Scan(&user, &queue); err != nil {
			return w, err
		}
		if i, ok := index[user]; ok {
			w.Attendants[i].QueueIDs = append(w.Attendants[i].QueueIDs, queue)
		}
	}
	return w, rows.Err()
}

// longestWaits reads each queue's pending ticket that has waited longest, in one
// statement: for every queue whose pending cell counts tickets, the first entry of
// tickets_pending_queue_since for the queue.
func (c *call) longestWaits(ctx context.Context, companyID engine.ID) (map[engine.ID]engine.WaitPanelTicket, error) {
	rows, err := c.query(ctx, `SELECT t.id, t.queue_id, COALESCE(ct.name, ''), t.channel, t.unread_messages, t.pending_since
		FROM (SELECT (SELECT w.id FROM tickets w
				WHERE w.company_id = $1 AND w.status = 'pending' AND w.queue_id = q.queue_id AND NOT w.deleted
				ORDER BY w.pending_since, w.id LIMIT 1) AS id
			FROM (SELECT queue_id FROM ticket_counts WHERE company_id = $1 AND status = 'pending'
				GROUP BY queue_id HAVING SUM(n) > 0) q) l
		JOIN tickets t ON t.id = l.id
		LEFT JOIN contacts ct ON ct.id = t.contact_id AND ct.company_id = t.company_id`, []any{companyID})
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[engine.ID]engine.WaitPanelTicket{}
	for rows.Next() {
		var tk engine.WaitPanelTicket
		if err := rows.Scan(&tk.ID, &tk.QueueID, &tk.ContactName, &tk.Channel, &tk.UnreadMessages, timeCol{&tk.WaitingSince}); err != nil {
			return nil, err
		}
		out[tk.QueueID] = tk
	}
	return out, rows.Err()
}

// waiting reads the tenant's pending tickets that have waited longest.
func (c *call) waiting(ctx context.Context, companyID engine.ID, limit int) ([]engine.WaitPanelTicket, error) {
	rows, err := c.query(ctx, `SELECT t.id, t.queue_id, COALESCE(ct.name, ''), t.channel, t.unread_messages, t.pending_since
		FROM (SELECT * FROM tickets t WHERE t.company_id = $1 AND t.status = 'pending' AND NOT t.deleted
			ORDER BY t.pending_since, t.id LIMIT $2) t
		LEFT JOIN contacts ct ON ct.id = t.contact_id AND ct.company_id = t.company_id
		ORDER BY t.pending_since, t.id`, []any{companyID, limit})
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []engine.WaitPanelTicket{}
	for rows.Next() {
		var tk engine.WaitPanelTicket
		if err := rows.Scan(&tk.ID, &tk.QueueID, &tk.ContactName, &tk.Channel, &tk.UnreadMessages, timeCol{&tk.WaitingSince}); err != nil {
			return nil, err
		}
		out = append(out, tk)
	}
	return out, rows.Err()
}
