package readmodel

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/db"
)

// ProjectionName is the Projection's checkpoint name. Changing it makes the Runner
// replay the journal from 0 into tables that still hold the old rows; to rebuild,
// use Runner.Reset("tickets") instead.
const ProjectionName = "tickets"

// TicketStreamPrefix starts the journal stream of every ticket (engine.TicketStream).
const TicketStreamPrefix = engine.TicketStreamPrefix

// Projection folds ticket events into the ticket and message read models. It
// implements the projection Runner's Projection and Resetter interfaces.
//
// Apply reads the rows of the batch's tickets once, folds the batch's events onto
// them in memory with engine.EvolveTicket, and writes each changed ticket once (its
// tags and its cell of ticket_counts with it); message events become inserts and
// updates of messages as they come. Events of other streams are ignored.
type Projection struct {
	// static after construction
	log zerolog.Logger
}

// NewProjection returns the projection; log receives the events it cannot place
// (events of a ticket whose opening it never saw).
func NewProjection(log zerolog.Logger) *Projection {
	return &Projection{log: log}
}

// Name implements projection.Projection.
func (p *Projection) Name() string { return ProjectionName }

// Reset empties every table of the read models (projection.Resetter), before a replay
// from position 0.
func (p *Projection) Reset(ctx context.Context, tx *sql.Tx, d *db.DB) error {
	stmts := []string{`DELETE FROM tickets`, `DELETE FROM ticket_tags`, `DELETE FROM ticket_counts`, `DELETE FROM messages`,
		`DELETE FROM ticket_invites`, `DELETE FROM ticket_guests`}
	if d.Dialect == db.SQLite {
		stmts = append(stmts, `INSERT INTO messages_fts (messages_fts) VALUES ('delete-all')`)
	} else {
		stmts = append(stmts, `DELETE FROM ticket_words`)
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("reset %s: %s: %w", ProjectionName, s, err)
		}
	}
	return nil
}

// ticketRow is one ticket of a batch: as stored before the batch, and as folded.
type ticketRow struct {
	state       engine.TicketState
	before      cell // the ticket_counts cell it counted in before the batch
	counted     bool // whether it counted anywhere before the batch
	dirty       bool // an event was folded in
	tagsChanged bool
	// pendingSince is when the ticket last entered pending, zero unless it is
	// pending (column pending_since).
	pendingSince time.Time
}

// cell is a key of ticket_counts.
type cell struct {
	company       engine.ID
	status        string
	queue, userID engine.ID
}

func (r *ticketRow) cell() (cell, bool) {
	s := r.state
	if s.Status == "" || s.Deleted {
		return cell{}, false
	}
	return cell{company: s.CompanyID, status: s.Status, queue: s.QueueID, userID: s.UserID}, true
}

// Apply implements projection.Projection.
func (p *Projection) Apply(ctx context.Context, tx *sql.Tx, d *db.DB, events []engine.RecordedEvent) error {
	var ids []engine.ID
	seen := map[engine.ID]bool{}
	for _, ev := range events {
		if id, ok := engine.ParseTicketStream(ev.StreamID); ok && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := loadTickets(ctx, tx, d.Dialect, ids)
	if err != nil {
		return err
	}
	msgs := &messageWriter{tx: tx, dialect: d.Dialect}
	if d.Dialect == db.Postgres {
		msgs.words = newWordIndex(tx)
	}
	for _, ev := range events {
		id, ok := engine.ParseTicketStream(ev.StreamID)
		if !ok {
			continue
		}
		row := rows[id]
		if row == nil {
			row = &ticketRow{}
			rows[id] = row
		}
		if ev.Version <= row.state.Version {
			continue // applied before: the batch is being replayed
		}
		te, err := engine.DecodeTicketEvent(ev.Type, ev.Data)
		if errors.Is(err, engine.ErrUnknownEventType) {
			// A type this build does not know (written by a newer one): it only
			// moves the version.
			row.state.Version, row.dirty = ev.Version, true
			continue
		}
		if err != nil {
			return fmt.Errorf("apply %s v%d (position %d): %w", ev.StreamID, ev.Version, ev.Position, err)
		}
		if _, opened := te.(engine.TicketOpened); !opened && row.state.Status == "" {
			p.log.Warn().Str("stream", ev.StreamID).Int64("version", ev.Version).Str("type", ev.Type).
				Msg("ticket event before its ticket.opened: ticket row not written")
		}
		company := row.state.CompanyID
		if company == 0 {
			company = ev.CompanyID
		}
		if err := msgs.apply(ctx, id, company, row.state.ContactID, ev.Version, te); err != nil {
			return fmt.Errorf("apply %s v%d (position %d): %w", ev.StreamID, ev.Version, ev.Position, err)
		}
		wasPending := row.state.Status == engine.StatusPending
		if err := applyInvite(ctx, tx, d.Dialect, id, company, te); err != nil {
			return fmt.Errorf("apply %s v%d (position %d): %w", ev.StreamID, ev.Version, ev.Position, err)
		}
		row.state = engine.EvolveTicket(row.state, te)
		row.pendingSince = nextPendingSince(row.pendingSince, wasPending, row.state)
		// The read model keeps the ticket row only; the aggregate's message index is
		// not needed here.
		row.state.Messages, row.state.ProviderIDs = nil, nil
		row.state.Version, row.dirty = ev.Version, true
		if _, ok := te.(engine.TicketTagsSet); ok {
			row.tagsChanged = true
		}
	}
	if err := msgs.flush(ctx); err != nil {
		return err
	}
	if msgs.words != nil {
		if err := msgs.words.flush(ctx); err != nil {
			return err
		}
	}
	return writeTickets(ctx, tx, d.Dialect, rows)
}

// nextPendingSince is pending_since after an event: the event's time (the state's
// updatedAt, which every status change sets) when the ticket has just entered
// pending, unchanged while it stays pending (a customer's new message, a transfer to
// another queue: the customer is still waiting), zero once it is not pending.
func nextPendingSince(since time.Time, wasPending bool, s engine.TicketState) time.Time {
	switch {
	case s.Status != engine.StatusPending:
		return time.Time{}
	case !wasPending || since.IsZero():
		return s.UpdatedAt
	default:
		return since
	}
}
