package schedule

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"atende/engine"
)

// fireWorker is the River worker of fire jobs.
type fireWorker struct {
	river.WorkerDefaults[fireArgs]
	s *Scheduler
}

// fireTimeout bounds one fire: contact lookup, ticket open and the actor call.
const fireTimeout = 30 * time.Second

// Timeout implements river.Worker.
func (w *fireWorker) Timeout(*river.Job[fireArgs]) time.Duration { return fireTimeout }

// Work implements river.Worker: it fires the schedule the job names.
func (w *fireWorker) Work(ctx context.Context, job *river.Job[fireArgs]) error {
	return w.s.Fire(ctx, job.Args.CompanyID, job.Args.ScheduleID, job.Attempt, job.MaxAttempts)
}

// permanent reports errors a retry cannot cure: the schedule's contact, connection or
// ticket is gone or refuses the message for good.
func permanent(err error) bool {
	switch engine.CodeOf(err) {
	case engine.ErrNoContactFound, engine.ErrNoWappFound, engine.ErrNoDefWappFound, engine.ErrNoTicketFound,
		engine.ErrValidation, engine.ErrNoPermission, engine.ErrWappInvalidContact:
		return true
	}
	return false
}

// Fire sends schedule id if it is still pending. It is what a due job runs, and is
// safe to run more than once for the same schedule: the message id fixed in the row
// makes the ticket record and the channel send it once, and a schedule no longer
// pending is left alone. attempt and maxAttempts are the job's (1-based); a failure
// at the last attempt, or one a retry cannot cure, marks the schedule error with the
// failure's code as its error text; earlier failures keep it pending with the error
// text shown and are retried by River with backoff.
func (s *Scheduler) Fire(ctx context.Context, companyID, id engine.ID, attempt, maxAttempts int) error {
	if s.cfg.Sender == nil || s.cfg.Contacts == nil {
		return errors.New("schedule: Config.Sender and Config.Contacts are required to fire")
	}
	sc, err := s.Get(ctx, companyID, id)
	if engine.CodeOf(err) == engine.ErrNoScheduleFound {
		return nil // deleted: its job was cancelled with it, nothing to do
	}
	if err != nil {
		return err
	}
	if sc.Status != engine.SchedulePending {
		return nil
	}
	ticketID, err := s.deliver(ctx, sc)
	if err == nil {
		return s.finish(ctx, sc, engine.ScheduleSent, "", ticketID)
	}
	s.cfg.Log.Warn().Err(err).Int64("tenant", companyID).Int64("schedule_id", id).Int("attempt", attempt).
		Msg("fire schedule")
	text := string(engine.CodeOf(err))
	if permanent(err) || attempt >= maxAttempts {
		if ferr := s.finish(ctx, sc, engine.ScheduleError, text, 0); ferr != nil {
			return ferr
		}
		return river.JobCancel(err)
	}
	if ferr := s.finish(ctx, sc, engine.SchedulePending, text, 0); ferr != nil {
		return ferr
	}
	return err
}

// deliver finds (or creates) the contact, renders the message and hands it to the
// outbound path.
func (s *Scheduler) deliver(ctx context.Context, sc engine.Schedule) (engine.ID, error) {
	var (
		contact engine.Contact
		err     error
	)
	switch {
	case sc.ContactID != 0:
		contact, err = s.cfg.Contacts.Get(ctx, sc.CompanyID, sc.ContactID)
	case sc.PhoneNumber != "":
		// A number without a contact gets one, as an inbound message from it would.
		contact, _, err = s.cfg.Contacts.FindOrCreateByNumber(ctx, sc.CompanyID, sc.PhoneNumber, sc.PhoneNumber)
	case sc.TicketID == 0:
		err = engine.E(engine.ErrNoContactFound)
	}
	if err != nil {
		return 0, err
	}
	loc := s.cfg.Location
	if loc == nil {
		// The tenant's zone as it is now: a zone changed after scheduling renders the
		// date, hour and greeting where the tenant now is.
		if loc, err = engine.TenantZone(ctx, s.cfg.Settings, sc.CompanyID); err != nil {
			return 0, err
		}
	}
	vars := engine.MessageVars{ContactName: contact.Name, ContactEmail: contact.Email, ContactPhone: contact.Number,
		TicketID: sc.TicketID, Now: s.cfg.Clock.Now(), Location: loc}
	if sc.UserID != 0 {
		// {{user}}: the attendant who scheduled it, by the name they have now.
		_ = s.db.SQL.QueryRowContext(ctx, `SELECT name FROM users WHERE id = $1 AND company_id = $2`,
			sc.UserID, sc.CompanyID).Scan(&vars.UserName)
	}
	if sc.TicketID != 0 {
		// The ticket's own protocol number when it has one.
		_ = s.db.SQL.QueryRowContext(ctx, `SELECT protocol FROM tickets WHERE id = $1 AND company_id = $2`,
			sc.TicketID, sc.CompanyID).Scan(&vars.Protocol)
	}
	mediaType := ""
	if sc.ImagePath != "" {
		mediaType = engine.MediaImage
	}
	return s.cfg.Sender.DeliverScheduled(ctx, engine.ScheduledDelivery{
		CompanyID: sc.CompanyID, ConnectionID: sc.ConnectionID, ContactID: contact.ID, TicketID: sc.TicketID,
		MessageID: sc.MessageID, UserID: sc.UserID, Body: engine.RenderMessage(sc.Message, vars),
		MediaType: mediaType, MediaPath: sc.ImagePath,
	})
}

// finish records the outcome of a fire, only while the schedule is still pending (an
// edit that raced the fire wins), and tells OnChange. Outcomes of fires running at the
// same time are committed together (see outcomes): a durable commit costs a disk
// flush, and one flush per fire would cap a node at a few hundred fires a second.
func (s *Scheduler) finish(ctx context.Context, sc engine.Schedule, status, text string, ticketID engine.ID) error {
	now := s.cfg.Clock.Now().UTC()
	o := &outcome{sc: sc, status: status, text: text, ticketID: ticketID, at: now.UnixMicro(), done: make(chan error, 1)}
	if err := s.outcomes.record(ctx, o, s.commitOutcomes); err != nil {
		return fmt.Errorf("record fire of schedule %d: %w", sc.ID, err)
	}
	if s.cfg.OnChange != nil {
		sc.Status, sc.ErrorMessage, sc.SentTicketID, sc.UpdatedAt = status, text, ticketID, now
		s.cfg.OnChange(sc)
	}
	return nil
}

// outcomeSQL records one fire's outcome while the row is still pending with the same
// message id. The tenant is compared as company_id + 0 on purpose: an expression no
// index covers. Written as a plain company_id = $6 next to status = 'pending', it let
// PostgreSQL serve the statement from the partial indexes schedules_*_pending (their
// leading column is company_id, their predicate status = 'pending') whenever the
// table's statistics were missing or stale, as after a bulk of new schedules: every
// UPDATE then walked all of the tenant's pending rows (about 100 ms with 100,000
// pending) and capped a node at a few dozen fires a second. Now only the primary key
// (or the unique message_id) can find the row. TestOutcomeUpdateUsesPrimaryKey
// checks the plan.
const outcomeSQL = `UPDATE schedules SET status = $1, error_message = $2, sent_ticket_id = $3, updated_at = $4
	WHERE id = $5 AND company_id + 0 = $6 AND status = 'pending' AND message_id = $7`

// commitOutcomes writes a batch of outcomes in one transaction.
func (s *Scheduler) commitOutcomes(ctx context.Context, batch []*outcome) error {
	return inTx(ctx, s.db, func(tx txn) error {
		for _, o := range batch {
			if _, err := tx.exec(ctx, outcomeSQL,
				o.status, o.text, o.ticketID, o.at, o.sc.ID, o.sc.CompanyID, o.sc.MessageID); err != nil {
				return err
			}
		}
		return nil
	})
}

// outcome is one fire's result waiting to be committed.
type outcome struct {
	sc       engine.Schedule
	status   string
	text     string
	ticketID engine.ID
	at       int64
	done     chan error // receives the commit's result once
}

// outcomes group-commits fire outcomes without a goroutine of its own: the first fire
// that finds no commit running commits everything queued, and keeps committing what
// queued meanwhile; the others wait for the commit that carries theirs.
type outcomes struct {
	mu       sync.Mutex // guards queue and flushing
	queue    []*outcome
	flushing bool
}

func (q *outcomes) record(ctx context.Context, o *outcome, commit func(context.Context, []*outcome) error) error {
	q.mu.Lock()
	q.queue = append(q.queue, o)
	if !q.flushing {
		q.flushing = true
		for len(q.queue) > 0 {
			batch := q.queue
			q.queue = nil
			q.mu.Unlock()
			// Not cancelled with this fire: the batch carries other fires' outcomes.
			err := commit(context.WithoutCancel(ctx), batch)
			for _, b := range batch {
				b.done <- err
			}
			q.mu.Lock()
		}
		q.flushing = false
	}
	q.mu.Unlock()
	select {
	case err := <-o.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
