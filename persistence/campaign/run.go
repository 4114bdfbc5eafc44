package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"atende/engine"
	"atende/goroutine"
	"atende/persistence/db"
)

// StepResult says what a connection's part of a campaign does next.
type StepResult struct {
	// Done: nothing is left for this connection (or the campaign is paused,
	// cancelled or finished); its job ends.
	Done bool
	// Next is when the next send is due (the pacing, tomorrow 00:00 in the tenant's
	// zone after dailyMax, a while after the connection was found down).
	Next time.Time
	// Sent and Failed count this step's outcomes.
	Sent, Failed int
}

// staleClaim is how long a claimed send may stay without an outcome before another
// run claims it again (its node died after the claim): it is then sent again under
// the same message id, which the channel de-duplicates, or, on a channel that cannot,
// the connection's attempt log refuses (ERR_CHANNEL_OUTCOME_UNKNOWN, recorded error).
const staleClaim = 2 * time.Minute

// downRetry is how often sends of a connection found down are tried again.
const downRetry = 15 * time.Second

// claimed is a send taken by this run.
type claimed struct {
	id        engine.ID
	contactID engine.ID
	seq       int
	number    string
	name      string
	params    []string
	messageID engine.ID
}

// Step sends the next due sends of connection connID in campaign id: one when the
// campaign is paced, up to Config.Batch at once when it is not. It is what a
// campaign job runs in a loop; tests call it directly with a fake clock.
//
// Exactly one run takes each send: a send is claimed by a conditional UPDATE from
// pending (or from a claim older than staleClaim) to sending; the outcome is written
// only on the claim it belongs to. The connection's day count (dailyMax) and the
// tenant's credits (broadcasts) are taken by conditional UPDATEs before the claim
// and given back for sends that did not go out.
func (s *Store) Step(ctx context.Context, companyID, id, connID engine.ID) (StepResult, error) {
	if s.cfg.Sender == nil {
		return StepResult{}, errors.New("campaign: Config.Sender is required to run")
	}
	now := s.cfg.Clock.Now()
	c, err := s.Get(ctx, companyID, id)
	if engine.CodeOf(err) == engine.ErrNoCampaignFound {
		return StepResult{Done: true}, nil
	}
	if err != nil {
		return StepResult{}, err
	}
	switch c.Status {
	case engine.CampaignScheduled:
		if c.StartAt.After(now) {
			return StepResult{Next: c.StartAt}, nil
		}
		if _, err := s.db.SQL.ExecContext(ctx, `UPDATE campaigns SET status = 'running', updated_at = $1
			WHERE id = $2 AND status = 'scheduled'`, micros(now), id); err != nil {
			return StepResult{}, err
		}
		c.Status = engine.CampaignRunning
		s.changed(c)
	case engine.CampaignRunning:
	default:
		return StepResult{Done: true}, nil
	}
	conn, err := s.cfg.Connections.Get(ctx, companyID, connID)
	if engine.CodeOf(err) == engine.ErrNoWappFound {
		// The connection was deleted: its sends cannot go out.
		return s.failAll(ctx, c, connID, now)
	}
	if err != nil {
		return StepResult{}, err
	}
	paced := s.interval(c) > 0
	want := 1
	if !paced {
		want = s.cfg.Batch
	}
	loc := s.zone(ctx, companyID)
	day := now.In(loc).Format(time.DateOnly)
	// The day's quota of the connection.
	got, err := s.take(ctx, `campaign_quota`, connID, day, conn.DailyMax, want)
	if err != nil {
		return StepResult{}, err
	}
	if got == 0 {
		next := nextMidnight(now, loc)
		s.wait(ctx, c, connID, engine.ErrDailyMaxReached, next)
		return StepResult{Next: next}, nil
	}
	credits := 0
	if c.Kind == engine.KindBroadcast {
		if credits, err = s.takeCredits(ctx, companyID, got); err != nil {
			return StepResult{}, err
		}
		if credits == 0 {
			s.giveBack(ctx, connID, day, got, companyID, 0)
			next := now.Add(time.Minute)
			s.wait(ctx, c, connID, engine.ErrNoCredits, next)
			return StepResult{Next: next}, nil
		}
		if credits < got {
			s.giveBack(ctx, connID, day, got-credits, companyID, 0)
			got = credits
		}
	}
	batch, err := s.claim(ctx, id, connID, got, now)
	if err != nil {
		s.giveBack(ctx, connID, day, got, companyID, credits)
		return StepResult{}, err
	}
	if len(batch) < got {
		s.giveBack(ctx, connID, day, got-len(batch), companyID, min(credits, got-len(batch)))
	}
	if len(batch) == 0 {
		return s.idle(ctx, c, connID, now)
	}
	outs := s.send(ctx, c, connID, loc, batch, now)
	res, err := s.record(ctx, c, connID, day, batch, outs, paced)
	if err != nil {
		return res, err
	}
	return res, nil
}

// interval is the pause between two sends of a connection for c.
func (s *Store) interval(c engine.Campaign) time.Duration {
	if c.Spec.IntervalMs != nil {
		return time.Duration(*c.Spec.IntervalMs) * time.Millisecond
	}
	return s.cfg.Interval
}

// nextMidnight is the start of the day after now's in loc (in UTC).
func nextMidnight(now time.Time, loc *time.Location) time.Time {
	l := now.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day()+1, 0, 0, 0, 0, loc).UTC()
}

// take reserves up to want of the connection's day count under limit (0: no limit)
// and returns how many it got. Compare-and-set, so that nodes racing for the last
// sends of a day never pass the limit.
func (s *Store) take(ctx context.Context, table string, connID engine.ID, day string, limit, want int) (int, error) {
	if limit <= 0 {
		return want, nil
	}
	if _, err := s.db.SQL.ExecContext(ctx, `INSERT INTO `+table+` (connection_id, day, sent) VALUES ($1, $2, 0)
		ON CONFLICT (connection_id, day) DO NOTHING`, connID, day); err != nil {
		return 0, fmt.Errorf("campaign quota: %w", err)
	}
	for range 20 {
		var sent int
		if err := s.db.SQL.QueryRowContext(ctx, `SELECT sent FROM `+table+` WHERE connection_id = $1 AND day = $2`, connID, day).Scan(&sent); err != nil {
			return 0, fmt.Errorf("campaign quota: %w", err)
		}
		n := min(want, limit-sent)
		if n <= 0 {
			return 0, nil
		}
		res, err := s.db.SQL.ExecContext(ctx, `UPDATE `+table+` SET sent = sent + $1 WHERE connection_id = $2 AND day = $3 AND sent = $4`,
			n, connID, day, sent)
		if err != nil {
			return 0, fmt.Errorf("campaign quota: %w", err)
		}
		if k, _ := res.RowsAffected(); k == 1 {
			return n, nil
		}
	}
	return 0, engine.E(engine.ErrConcurrentUpdate)
}

// takeCredits takes up to want of the tenant's credits and returns how many.
func (s *Store) takeCredits(ctx context.Context, companyID engine.ID, want int) (int, error) {
	for range 20 {
		var have int64
		err := s.db.SQL.QueryRowContext(ctx, `SELECT credits FROM campaign_credits WHERE company_id = $1`, companyID).Scan(&have)
		if isNoRows(err) {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		n := min(int64(want), have)
		if n <= 0 {
			return 0, nil
		}
		res, err := s.db.SQL.ExecContext(ctx, `UPDATE campaign_credits SET credits = credits - $1 WHERE company_id = $2 AND credits = $3`, n, companyID, have)
		if err != nil {
			return 0, err
		}
		if k, _ := res.RowsAffected(); k == 1 {
			return int(n), nil
		}
	}
	return 0, engine.E(engine.ErrConcurrentUpdate)
}

// giveBack returns quota and credits taken for sends that did not go out.
func (s *Store) giveBack(ctx context.Context, connID engine.ID, day string, quota int, companyID engine.ID, credits int) {
	if quota > 0 {
		if _, err := s.db.SQL.ExecContext(ctx, `UPDATE campaign_quota SET sent = sent - $1 WHERE connection_id = $2 AND day = $3 AND sent >= $1`,
			quota, connID, day); err != nil {
			s.cfg.Log.Warn().Err(err).Msg("campaign: give back quota")
		}
	}
	if credits > 0 {
		if _, err := s.db.SQL.ExecContext(ctx, `UPDATE campaign_credits SET credits = credits + $1 WHERE company_id = $2`, credits, companyID); err != nil {
			s.cfg.Log.Warn().Err(err).Msg("campaign: give back credits")
		}
	}
}

// claim takes up to n sends of the connection in id order: pending ones, and ones
// whose claim went stale.
func (s *Store) claim(ctx context.Context, id, connID engine.ID, n int, now time.Time) ([]claimed, error) {
	lock := ""
	if s.db.Dialect == db.Postgres {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	q := `UPDATE campaign_sends SET status = 'sending', claimed_at = $1
		WHERE id IN (SELECT id FROM campaign_sends WHERE campaign_id = $2 AND connection_id = $3
			AND (status = 'pending' OR (status = 'sending' AND claimed_at < $4)) ORDER BY id LIMIT $5` + lock + `)
		AND (status = 'pending' OR (status = 'sending' AND claimed_at < $4))
		RETURNING id, contact_id, seq, number, contact_name, params, message_id`
	var out []claimed
	err := inTx(ctx, s.db, func(tx txn) error {
		r, err := tx.query(ctx, q, micros(now), id, connID, micros(now.Add(-staleClaim)), n)
		if err != nil {
			return fmt.Errorf("claim campaign sends: %w", err)
		}
		defer r.Close()
		for r.Next() {
			var (
				c      claimed
				params string
			)
			if err := r.Scan(&c.id, &c.contactID, &c.seq, &c.number, &c.name, &params, &c.messageID); err != nil {
				return err
			}
			if params != "" {
				_ = json.Unmarshal([]byte(params), &c.params)
			}
			out = append(out, c)
		}
		return r.Err()
	})
	// RETURNING gives no order guarantee; sends of one contact go in sequence.
	sortClaimed(out)
	return out, err
}

func sortClaimed(c []claimed) {
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j].id < c[j-1].id; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
}

// outcome of one send.
type outcome struct {
	err error
}

// send hands the batch to the connection. Sends to different contacts go together;
// the messages of one contact go one after the other, in sequence order.
func (s *Store) send(ctx context.Context, c engine.Campaign, connID engine.ID, loc *time.Location, batch []claimed, now time.Time) []outcome {
	outs := make([]outcome, len(batch))
	msgs := map[int]engine.CampaignMessage{}
	for _, m := range c.Spec.Messages {
		msgs[m.Seq] = m
	}
	one := func(i int) {
		b := batch[i]
		m := msgs[b.seq]
		body := engine.RenderCampaignMessage(m.Body, b.params, engine.MessageVars{ContactName: b.name, ContactPhone: b.number,
			Now: now, Location: loc})
		_, err := s.cfg.Sender.SendCampaign(ctx, connID, engine.CampaignOutbound{MessageID: b.messageID, To: b.number,
			Body: body, MediaType: m.MediaType, MediaPath: m.MediaPath, Buttons: c.Spec.Buttons})
		outs[i] = outcome{err: err}
	}
	if len(batch) == 1 {
		one(0)
		return outs
	}
	// Group by contact: each group runs on its own goroutine.
	groups := map[engine.ID][]int{}
	var order []engine.ID
	for i, b := range batch {
		if _, ok := groups[b.contactID]; !ok {
			order = append(order, b.contactID)
		}
		groups[b.contactID] = append(groups[b.contactID], i)
	}
	var wg sync.WaitGroup
	for _, contact := range order {
		idx := groups[contact]
		wg.Add(1)
		goroutine.Go(func() {
			defer wg.Done()
			for _, i := range idx {
				one(i)
				if outs[i].err != nil && temporary(outs[i].err) {
					// The rest of this contact's messages wait for the next try, in order.
					for _, j := range idx {
						if j > i {
							outs[j] = outcome{err: outs[i].err}
						}
					}
					return
				}
			}
		})
	}
	wg.Wait()
	return outs
}

// temporary tells a failure worth trying again later (the connection is down or
// busy) from a refusal of the contact (not on the channel, invalid number).
func temporary(err error) bool {
	if errors.Is(err, engine.ErrChannelTemporary) {
		return true
	}
	var e *engine.Error
	if !errors.As(err, &e) {
		return true // a timeout, the cluster: the send may be tried again
	}
	switch e.Code {
	case engine.ErrUnavailable, engine.ErrWappNotInitialized, engine.ErrSendingWappMsg:
		return true
	}
	return false
}

// record writes the batch's outcomes and the campaign's progress in one
// transaction, gives back what temporary failures took, and says when to go on.
func (s *Store) record(ctx context.Context, c engine.Campaign, connID engine.ID, day string, batch []claimed, outs []outcome, paced bool) (StepResult, error) {
	now := s.cfg.Clock.Now()
	res := StepResult{}
	retry, retryCredits := 0, 0
	var firstTemp error
	var sentIDs []any
	err := inTx(ctx, s.db, func(tx txn) error {
		for i, b := range batch {
			var status, text string
			switch err := outs[i].err; {
			case err == nil:
				sentIDs = append(sentIDs, b.id)
				res.Sent++
				continue
			case temporary(err):
				status, text = engine.SendPending, string(engine.CodeOf(err))
				retry++
				if c.Kind == engine.KindBroadcast {
					retryCredits++
				}
				if firstTemp == nil {
					firstTemp = err
				}
			default:
				status, text = engine.SendError, errorText(err)
				res.Failed++
			}
			if _, err := tx.exec(ctx, `UPDATE campaign_sends SET status = $1, error = $2, claimed_at = 0
				WHERE id = $3 AND status = 'sending'`, status, text, b.id); err != nil {
				return fmt.Errorf("record campaign send: %w", err)
			}
		}
		// The sent ones in one statement per chunk: a send is one row update, not one
		// round trip.
		for chunk := range slices.Chunk(sentIDs, 500) {
			ph := make([]string, len(chunk))
			for i := range chunk {
				ph[i] = fmt.Sprintf("$%d", i+2)
			}
			args := append([]any{micros(now)}, chunk...)
			if _, err := tx.exec(ctx, `UPDATE campaign_sends SET status = 'sent', error = '', sent_at = $1, claimed_at = 0
				WHERE status = 'sending' AND id IN (`+strings.Join(ph, ", ")+`)`, args...); err != nil {
				return fmt.Errorf("record campaign sends: %w", err)
			}
		}
		next := now
		reason := ""
		switch {
		case firstTemp != nil:
			next, reason = now.Add(downRetry), string(engine.CodeOf(firstTemp))
		case paced:
			next = now.Add(s.pause(c))
		}
		res.Next = next
		if _, err := tx.exec(ctx, `UPDATE campaign_lanes SET next_send_at = $1, wait_reason = $2 WHERE campaign_id = $3 AND connection_id = $4`,
			micros(next), reason, c.ID, connID); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `UPDATE campaigns SET sent_count = sent_count + $1, error_count = error_count + $2,
			updated_at = $3 WHERE id = $4`, res.Sent, res.Failed, micros(now), c.ID)
		return err
	})
	if err != nil {
		return res, err
	}
	// Refused sends did not go out either: their quota and credits come back too.
	if c.Kind == engine.KindBroadcast {
		retryCredits += res.Failed
	}
	s.giveBack(ctx, connID, day, retry+res.Failed, c.CompanyID, retryCredits)
	// Finishing is idle's: the next step finds nothing to claim.
	if fresh, err := s.Get(ctx, c.CompanyID, c.ID); err == nil {
		s.changed(fresh)
	}
	return res, nil
}

// errorText is the text recorded on a refused send: the code and the channel's
// reason.
func errorText(err error) string {
	code := string(engine.CodeOf(err))
	var e *engine.Error
	if errors.As(err, &e) && e.Cause != nil {
		msg := e.Cause.Error()
		if len(msg) > 300 {
			msg = msg[:300]
		}
		return code + ": " + msg
	}
	return code
}

// pause is the pacing of c with its jitter.
func (s *Store) pause(c engine.Campaign) time.Duration {
	d := s.interval(c)
	if c.Spec.IntervalMs == nil && s.cfg.Jitter > 0 {
		d += time.Duration(rand.Int64N(int64(s.cfg.Jitter)))
	}
	return d
}

// wait records why a running campaign waits and until when.
func (s *Store) wait(ctx context.Context, c engine.Campaign, connID engine.ID, reason engine.Code, next time.Time) {
	res, err := s.db.SQL.ExecContext(ctx, `UPDATE campaign_lanes SET wait_reason = $1, next_send_at = $2
		WHERE campaign_id = $3 AND connection_id = $4 AND NOT (wait_reason = $1 AND next_send_at = $2)`,
		string(reason), micros(next), c.ID, connID)
	if err != nil {
		s.cfg.Log.Warn().Err(err).Msg("campaign: record wait")
		return
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return
	}
	if fresh, err := s.Get(ctx, c.CompanyID, c.ID); err == nil {
		s.changed(fresh)
	}
}

// laneDone marks the connection's part of c done.
func (s *Store) laneDone(ctx context.Context, c engine.Campaign, connID engine.ID) error {
	_, err := s.db.SQL.ExecContext(ctx, `UPDATE campaign_lanes SET done = TRUE, wait_reason = '' WHERE campaign_id = $1 AND connection_id = $2`,
		c.ID, connID)
	return err
}

// idle: the connection has no send to claim. If claims of another run are still in
// flight, look again once they would be stale; else this connection is done.
func (s *Store) idle(ctx context.Context, c engine.Campaign, connID engine.ID, now time.Time) (StepResult, error) {
	var inFlight int
	if err := s.db.SQL.QueryRowContext(ctx, `SELECT COUNT(*) FROM campaign_sends WHERE campaign_id = $1 AND connection_id = $2
		AND status IN ('pending', 'sending')`, c.ID, connID).Scan(&inFlight); err != nil {
		return StepResult{}, err
	}
	if inFlight > 0 {
		return StepResult{Next: now.Add(staleClaim)}, nil
	}
	if err := s.laneDone(ctx, c, connID); err != nil {
		return StepResult{}, err
	}
	if err := s.finishIfDone(ctx, c.CompanyID, c.ID); err != nil {
		return StepResult{}, err
	}
	return StepResult{Done: true}, nil
}

// finishIfDone marks a running campaign finished once every send has an outcome.
func (s *Store) finishIfDone(ctx context.Context, companyID, id engine.ID) error {
	now := micros(s.cfg.Clock.Now())
	res, err := s.db.SQL.ExecContext(ctx, `UPDATE campaigns SET status = 'finished', updated_at = $1
		WHERE id = $2 AND status = 'running' AND sent_count + error_count >= total
		AND NOT EXISTS (SELECT 1 FROM campaign_sends WHERE campaign_id = $2 AND status IN ('pending', 'sending'))`, now, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		if c, err := s.Get(ctx, companyID, id); err == nil {
			s.changed(c)
		}
	}
	return nil
}

// failAll marks every unsent send of a deleted connection error.
func (s *Store) failAll(ctx context.Context, c engine.Campaign, connID engine.ID, now time.Time) (StepResult, error) {
	err := inTx(ctx, s.db, func(tx txn) error {
		n, err := tx.exec(ctx, `UPDATE campaign_sends SET status = 'error', error = $1 WHERE campaign_id = $2 AND connection_id = $3
			AND status IN ('pending', 'sending')`, string(engine.ErrNoWappFound), c.ID, connID)
		if err != nil {
			return err
		}
		_, err = tx.exec(ctx, `UPDATE campaigns SET error_count = error_count + $1, updated_at = $2 WHERE id = $3`, n, micros(now), c.ID)
		return err
	})
	if err != nil {
		return StepResult{}, err
	}
	if err := s.laneDone(ctx, c, connID); err != nil {
		return StepResult{}, err
	}
	return StepResult{Done: true}, s.finishIfDone(ctx, c.CompanyID, c.ID)
}
