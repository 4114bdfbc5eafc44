package dashboard

import (
	"context"
	"database/sql"
	"fmt"

	"atende/engine"
	"atende/persistence/db"
)

// AppraisalProjectionName is the checkpoint name of the AppraisalProjection.
const AppraisalProjectionName = "appraisals"

// AppraisalProjection adds each ticket.rated answer to its contact's appraisalData
// (contacts.appraisal_sum and appraisal_count). The projection Runner applies a batch
// in the transaction that moves its checkpoint, so each journaled answer is added
// exactly once, whichever node applies it and however often a batch is retried; and
// the ticket records at most one answer (engine.DecideTicket), so a contact gains one
// answer per ticket. It has no Reset: the sums live on the contact, beside answers
// recorded before the journal (seeded or imported data).
type AppraisalProjection struct{}

// Name implements projection.Projection.
func (AppraisalProjection) Name() string { return AppraisalProjectionName }

// Apply implements projection.Projection.
func (AppraisalProjection) Apply(ctx context.Context, tx *sql.Tx, d *db.DB, events []engine.RecordedEvent) error {
	for _, ev := range events {
		if ev.Type != engine.EvTicketRated {
			continue
		}
		te, err := engine.DecodeTicketEvent(ev.Type, ev.Data)
		if err != nil {
			return fmt.Errorf("apply %s v%d (position %d): %w", ev.StreamID, ev.Version, ev.Position, err)
		}
		r := te.(engine.TicketRated)
		if r.Score < 1 || r.Score > 3 || r.ContactID <= 0 {
			continue // decide never writes these; a hand-made row must not skew the score
		}
		if _, err := tx.ExecContext(ctx, `UPDATE contacts SET appraisal_sum = appraisal_sum + $1,
			appraisal_count = appraisal_count + 1 WHERE id = $2 AND company_id = $3`,
			r.Score, r.ContactID, ev.CompanyID); err != nil {
			return fmt.Errorf("add appraisal of %s to contact %d: %w", ev.StreamID, r.ContactID, err)
		}
	}
	return nil
}
