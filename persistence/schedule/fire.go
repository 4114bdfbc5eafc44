package schedule

import (
	"context"
	"database/sql"
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
	sc, fv, err := s.readFire(ctx, companyID, id)
	if engine.CodeOf(err) == engine.ErrNoScheduleFound {
		return nil // deleted: its job was cancelled with it, nothing to do
	}
	if err != nil {
		return err
	}
	if sc.Status != engine.SchedulePending {
		return nil
	}
	ticketID, err := s.deliver(ctx, sc, fv)
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
func (s *Scheduler) deliver(ctx context.Context, sc engine.Schedule, fv fireVars) (engine.ID, error) {
	contactID := sc.ContactID
	switch {
	case contactID != 0:
		if sc.Contact == nil {
			return 0, engine.Wrap(engine.ErrNoContactFound, fmt.Errorf("schedule %d: contact %d", sc.ID, contactID))
		}
		fv.vars.ContactName, fv.vars.ContactPhone = sc.Contact.Name, sc.Contact.Number
	case sc.PhoneNumber != "":
		// A number without a contact gets one, as an inbound message from it would.
		contact, _, err := s.cfg.Contacts.FindOrCreateByNumber(ctx, sc.CompanyID, sc.PhoneNumber, sc.PhoneNumber)
		if err != nil {
			return 0, err
		}
		contactID = contact.ID
		fv.vars.ContactName, fv.vars.ContactEmail, fv.vars.ContactPhone = contact.Name, contact.Email, contact.Number
		fv.currentRead = false // the read knew no contact to look the guard up for
	case sc.TicketID == 0:
		return 0, engine.E(engine.ErrNoContactFound)
	}
	mediaType := ""
	if sc.ImagePath != "" {
		mediaType = engine.MediaImage
	}
	return s.cfg.Sender.DeliverScheduled(ctx, engine.ScheduledDelivery{
		CompanyID: sc.CompanyID, ConnectionID: fv.connID, ContactID: contactID, TicketID: sc.TicketID,
		MessageID: sc.MessageID, UserID: sc.UserID, Body: engine.RenderMessage(sc.Message, fv.vars),
		MediaType: mediaType, MediaPath: sc.ImagePath, ContactNumber: fv.vars.ContactPhone, By: fv.by,
		Current: fv.current, CurrentRead: fv.currentRead,
	})
}

// sqlFire reads, in one round trip, a schedule (its row and its contact, as Get does)
// and what the variables of its message are rendered from as they are now: the
// contact's e-mail, the tenant's time zone setting ($3), the attendant who scheduled
// it (name, profile, and one row per queue of theirs), the protocol of its ticket;
// the tenant's default connection, which sends it when the schedule names none; and
// the contact's current ticket on the sending connection (the ticket guard's row,
// package connection). The sender gets the number, the attendant's profile and queues
// and the current ticket too, so that finding or opening the contact's ticket reads
// none of them again. A fire runs it once instead of a read per value.
const sqlFire = `SELECT ` + cols + `, c.email,
	(SELECT value FROM settings WHERE company_id = s.company_id AND key = $3),
	u.name, u.profile, uq.queue_id,
	(SELECT protocol FROM tickets t WHERE t.id = s.ticket_id AND t.company_id = s.company_id),
	d.id,
	(SELECT ticket_id FROM contact_tickets g WHERE g.contact_id = s.contact_id
		AND g.connection_id = COALESCE(NULLIF(s.connection_id, 0), d.id))
	FROM ` + from + `
	LEFT JOIN connections d ON d.company_id = s.company_id AND d.is_default
	LEFT JOIN users u ON u.id = s.user_id AND u.company_id = s.company_id
	LEFT JOIN user_queues uq ON uq.user_id = u.id AND uq.company_id = s.company_id
	WHERE s.id = $1 AND s.company_id = $2
	ORDER BY uq.queue_id`

// fireVars is what sqlFire read besides the schedule: the message's variables (the
// contact's filled in by deliver), the connection that sends it (the schedule's own,
// else the tenant's default), the scheduler as a principal (invalid when the user is
// gone) and (currentRead) the contact's current ticket on that connection, 0 for none.
type fireVars struct {
	vars        engine.MessageVars
	connID      engine.ID
	by          engine.Principal
	current     engine.ID
	currentRead bool
}

// readFire reads schedule id of companyID and its fireVars (sqlFire): a schedule that
// is gone is ErrNoScheduleFound.
func (s *Scheduler) readFire(ctx context.Context, companyID, id engine.ID) (engine.Schedule, fireVars, error) {
	var (
		sc                                engine.Schedule
		fv                                fireVars
		defaultConn, queue, current       sql.NullInt64
		email, zone, user, profile, proto sql.NullString
	)
	rows, err := s.db.SQL.QueryContext(ctx, sqlFire, id, companyID, engine.SettingTimeZone)
	if err != nil {
		return sc, fv, fmt.Errorf("read schedule %d to fire: %w", id, err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		if sc, _, err = scan(rows, &email, &zone, &user, &profile, &queue, &proto, &defaultConn, &current); err != nil {
			return sc, fv, fmt.Errorf("read schedule %d to fire: %w", id, err)
		}
		if queue.Valid {
			fv.by.QueueIDs = append(fv.by.QueueIDs, queue.Int64)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return sc, fv, fmt.Errorf("read schedule %d to fire: %w", id, err)
	}
	if n == 0 {
		return sc, fv, engine.E(engine.ErrNoScheduleFound)
	}
	if profile.Valid {
		fv.by.UserID, fv.by.CompanyID, fv.by.Profile = sc.UserID, sc.CompanyID, profile.String
	} else {
		fv.by.QueueIDs = nil
	}
	fv.connID = sc.ConnectionID
	if fv.connID == 0 && sc.TicketID == 0 {
		// A ticket names its own connection; otherwise the default sends it (0, none:
		// the sender answers that).
		fv.connID = defaultConn.Int64
	}
	fv.current, fv.currentRead = current.Int64, sc.TicketID == 0 && sc.ContactID != 0 && fv.connID != 0
	// The tenant's zone as it is now: a zone changed after scheduling renders the
	// date, hour and greeting where the tenant now is.
	loc := s.cfg.Location
	switch {
	case loc != nil:
	case s.cfg.Settings == nil:
		loc = engine.LoadZone(engine.TenantTimeZone)
	default:
		loc = engine.ZoneOrDefault(zone.String)
	}
	fv.vars = engine.MessageVars{ContactEmail: email.String, TicketID: sc.TicketID, Protocol: proto.String,
		UserName: user.String, Now: s.cfg.Clock.Now(), Location: loc}
	return sc, fv, nil
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
