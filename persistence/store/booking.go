package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// Bookings implements engine.BookingStore (the agenda's bookings and the kanban
// board) on either dialect.
//
// Safe for concurrent use, and across nodes: default columns are inserted with ON
// CONFLICT DO NOTHING and a move is one conditional UPDATE.
type Bookings struct {
	refBase
}

var _ engine.BookingStore = (*Bookings)(nil)

// NewBookings returns the booking store of d; a nil clock is the system clock.
func NewBookings(d *db.DB, clock engine.Clock) *Bookings {
	return &Bookings{refBase: newRefBase(d, clock)}
}

// defaultKanbanColumns is the board a tenant starts with: twelve columns for the
// 'large' board; the six marked short make the 'short' board. The last two conclude
// and cancel a card. Names are tenant data, in the product's default language.
var defaultKanbanColumns = []struct {
	name  string
	kind  string
	short bool
}{
	{"Novo", engine.KanbanOpen, true},
	{"Contato feito", engine.KanbanOpen, false},
	{"Qualificado", engine.KanbanOpen, false},
	{"Agendado", engine.KanbanOpen, false},
	{"Confirmado", engine.KanbanOpen, true},
	{"Em atendimento", engine.KanbanOpen, true},
	{"Retorno", engine.KanbanOpen, true},
	{"Proposta", engine.KanbanOpen, false},
	{"Negociação", engine.KanbanOpen, false},
	{"Aguardando", engine.KanbanOpen, false},
	{engine.BookingLabelWon, engine.KanbanWon, true},
	{engine.BookingLabelLost, engine.KanbanLost, true},
}

// ensureColumns inserts the default columns of a tenant that has none. Two callers
// racing both insert; the unique (company_id, position) keeps one set.
func (s *Bookings) ensureColumns(ctx context.Context, companyID engine.ID) error {
	var n int
	if err := s.db.SQL.QueryRowContext(ctx, `SELECT count(*) FROM kanban_columns WHERE company_id = $1`,
		companyID).Scan(&n); err != nil {
		return fmt.Errorf("count kanban columns of %d: %w", companyID, err)
	}
	if n > 0 {
		return nil
	}
	return s.db.Tx(ctx, func(tx *sql.Tx) error {
		for i, c := range defaultKanbanColumns {
			if _, err := tx.ExecContext(ctx, `INSERT INTO kanban_columns (company_id, position, name, kind, short)
				VALUES ($1, $2, $3, $4, $5) ON CONFLICT (company_id, position) DO NOTHING`,
				companyID, i+1, c.name, c.kind, c.short); err != nil {
				return fmt.Errorf("insert kanban column of %d: %w", companyID, err)
			}
		}
		return nil
	})
}

// bookingSelect reads a booking with its user's and contact's names.
const bookingSelect = `SELECT b.id, b.column_id, b.booking_name, b.booking_type_name, b.booking_type_info,
	b.starts_at, b.ends_at, COALESCE(b.user_id, 0), COALESCE(u.name, ''), b.description, b.tag_json,
	b.position_name, b.position_color, COALESCE(b.contact_id, 0), COALESCE(c.name, ''), COALESCE(c.number, ''),
	b.contact_cpf, b.contact_dob, COALESCE(c.profile_pic_url, ''), b.distance, b.status, b.label, b.archived,
	b.created_at, b.updated_at, COALESCE(sl.id, 0), COALESCE(sl.position_id, 0), COALESCE(p.user_id, 0)
	FROM bookings b
	LEFT JOIN users u ON u.id = b.user_id
	LEFT JOIN contacts c ON c.id = b.contact_id
	LEFT JOIN slots sl ON sl.id = (SELECT MIN(x.id) FROM slots x WHERE x.company_id = b.company_id AND x.booking_id = b.id)
	LEFT JOIN positions p ON p.id = sl.position_id`

func scanBooking(row refScanner) (engine.Booking, error) {
	var b engine.Booking
	var slot engine.BookingSlot
	err := row.Scan(&b.ID, &b.ColumnID, &b.BookingName, &b.BookingTypeName, &b.BookingTypeInfo,
		refTime{&b.BookingTzidFrom}, refTime{&b.BookingTzidTo}, &b.UserID, &b.Username, &b.Description, &b.TagJSON,
		&b.PositionName, &b.PositionColor, &b.ContactID, &b.Name, &b.ContactNumber,
		&b.ContactCpf, &b.ContactDob, &b.ProfilePicURL, &b.Distance, &b.Status, &b.Label, &b.Archived,
		refTime{&b.CreatedAt}, refTime{&b.UpdatedAt}, &slot.SlotID, &slot.PositionID, &slot.UserID)
	b.BookingID = b.ID
	if slot.SlotID != 0 {
		b.Slot = &slot
	}
	return b, err
}

func (s *Bookings) queryBookings(ctx context.Context, q refQuerier, where string, args ...any) ([]engine.Booking, error) {
	rows, err := q.QueryContext(ctx, bookingSelect+` WHERE `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []engine.Booking{}
	for rows.Next() {
		b, err := scanBooking(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// Board implements engine.BookingStore.
func (s *Bookings) Board(ctx context.Context, companyID engine.ID, size string) ([]engine.KanbanColumn, error) {
	if err := s.ensureColumns(ctx, companyID); err != nil {
		return nil, err
	}
	where := `company_id = $1`
	if size != engine.KanbanLarge {
		where += ` AND short = $2`
	}
	args := []any{companyID}
	if size != engine.KanbanLarge {
		args = append(args, true)
	}
	rows, err := s.db.SQL.QueryContext(ctx, `SELECT id, name, position, kind, short FROM kanban_columns
		WHERE `+where+` ORDER BY position`, args...)
	if err != nil {
		return nil, fmt.Errorf("list kanban columns of %d: %w", companyID, err)
	}
	cols := []engine.KanbanColumn{}
	index := map[engine.ID]int{}
	for rows.Next() {
		var c engine.KanbanColumn
		if err := rows.Scan(&c.ID, &c.Name, &c.Position, &c.Kind, &c.Short); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list kanban columns of %d: %w", companyID, err)
		}
		c.ConfirmedBooking = []engine.Booking{}
		index[c.ID] = len(cols)
		cols = append(cols, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list kanban columns of %d: %w", companyID, err)
	}
	list, err := s.queryBookings(ctx, s.db.SQL, `b.company_id = $1 AND b.archived = $2 ORDER BY b.starts_at, b.id`,
		companyID, false)
	if err != nil {
		return nil, fmt.Errorf("list bookings of %d: %w", companyID, err)
	}
	for _, b := range list {
		if i, ok := index[b.ColumnID]; ok {
			cols[i].ConfirmedBooking = append(cols[i].ConfirmedBooking, b)
		}
	}
	return cols, nil
}

// Create implements engine.BookingStore.
func (s *Bookings) Create(ctx context.Context, companyID engine.ID, in engine.BookingInput) (engine.Booking, error) {
	in, err := engine.ValidateBooking(in)
	if err != nil {
		return engine.Booking{}, err
	}
	if in.UserID == 0 {
		return engine.Booking{}, refFieldError("userId", engine.MsgRequired)
	}
	if err := s.ensureColumns(ctx, companyID); err != nil {
		return engine.Booking{}, err
	}
	var out engine.Booking
	err = s.db.Tx(ctx, func(tx *sql.Tx) error {
		// The user and the contact must be of this tenant: checked in the transaction
		// that inserts, and the foreign keys keep them from vanishing under it.
		if err := tenantRowExists(ctx, tx, "users", companyID, in.UserID, engine.ErrNoUserFound); err != nil {
			return err
		}
		var contact any
		if in.ContactID != 0 {
			if err := tenantRowExists(ctx, tx, "contacts", companyID, in.ContactID, engine.ErrNoContactFound); err != nil {
				return err
			}
			contact = in.ContactID
		}
		if in.SlotID != 0 {
			if in, err = s.slotBooking(ctx, tx, companyID, in); err != nil {
				return err
			}
		}
		now := s.ts(s.now())
		var id engine.ID
		if err := tx.QueryRowContext(ctx, `INSERT INTO bookings (company_id, column_id, user_id, contact_id,
			booking_name, booking_type_name, booking_type_info, description, tag_json, position_name,
			position_color, contact_cpf, contact_dob, distance, status, starts_at, ends_at, created_at, updated_at)
			VALUES ($1, (SELECT id FROM kanban_columns WHERE company_id = $1 ORDER BY position LIMIT 1), $2, $3,
			$4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17) RETURNING id`,
			companyID, in.UserID, contact, in.BookingName, in.BookingTypeName, in.BookingTypeInfo, in.Description,
			in.TagJSON, in.PositionName, in.PositionColor, in.ContactCpf, in.ContactDob, in.Distance, in.Status,
			s.ts(in.StartsAt), s.ts(in.EndsAt), now).Scan(&id); err != nil {
			return fmt.Errorf("insert booking: %w", err)
		}
		if in.SlotID != 0 {
			if err := s.claimSlot(ctx, tx, companyID, in.SlotID, id); err != nil {
				return err
			}
		}
		out, err = s.get(ctx, tx, companyID, id)
		return err
	})
	return out, err
}

// slotBooking fills a booking that takes a slot from the slot: its start, one grid
// step long, and the slot's position (name and colour). A slot of another tenant, or
// none, is ErrNoSlotFound. The read only fills fields: claimSlot decides who gets it.
func (s *Bookings) slotBooking(ctx context.Context, tx *sql.Tx, companyID engine.ID, in engine.BookingInput) (engine.BookingInput, error) {
	var at time.Time
	var name, color string
	err := tx.QueryRowContext(ctx, `SELECT sl.slot_at, p.name, p.color FROM slots sl
		JOIN positions p ON p.id = sl.position_id WHERE sl.id = $1 AND sl.company_id = $2`,
		in.SlotID, companyID).Scan(refTime{&at}, &name, &color)
	if errors.Is(err, sql.ErrNoRows) {
		return in, engine.E(engine.ErrNoSlotFound)
	}
	if err != nil {
		return in, fmt.Errorf("read slot %d: %w", in.SlotID, err)
	}
	in.StartsAt = at.UTC()
	in.EndsAt = in.StartsAt.Add(engine.GridStepMinutes * time.Minute)
	in.Duration = engine.GridStepMinutes
	in.PositionName, in.PositionColor = name, color
	return in, nil
}

// claimSlot gives the slot to the booking with one conditional UPDATE: only a free
// slot that has not started yet changes, so of any number of bookings racing for it,
// on one node or several, exactly one sees a row updated. The others get
// ErrSlotTaken (or slotId Invalid time for a slot already past) and their whole
// transaction, booking included, rolls back.
func (s *Bookings) claimSlot(ctx context.Context, tx *sql.Tx, companyID, slotID, bookingID engine.ID) error {
	now := s.now()
	res, err := tx.ExecContext(ctx, `UPDATE slots SET booking_id = $1
		WHERE id = $2 AND company_id = $3 AND booking_id IS NULL AND slot_at > $4`,
		bookingID, slotID, companyID, s.ts(now))
	if err != nil {
		return fmt.Errorf("claim slot %d: %w", slotID, err)
	}
	n, err := refAffected(res)
	if err != nil {
		return fmt.Errorf("claim slot %d: %w", slotID, err)
	}
	if n == 1 {
		return nil
	}
	var at time.Time
	var taken bool
	err = tx.QueryRowContext(ctx, `SELECT slot_at, booking_id IS NOT NULL FROM slots WHERE id = $1 AND company_id = $2`,
		slotID, companyID).Scan(refTime{&at}, &taken)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return engine.E(engine.ErrNoSlotFound)
	case err != nil:
		return fmt.Errorf("read slot %d: %w", slotID, err)
	case taken:
		return engine.E(engine.ErrSlotTaken)
	case !at.After(now):
		return refFieldError("slotId", engine.MsgInvalidTime)
	}
	return engine.E(engine.ErrSlotTaken)
}

// Get implements engine.BookingStore.
func (s *Bookings) Get(ctx context.Context, companyID, id engine.ID) (engine.Booking, error) {
	return s.get(ctx, s.db.SQL, companyID, id)
}

func (s *Bookings) get(ctx context.Context, q refQuerier, companyID, id engine.ID) (engine.Booking, error) {
	b, err := scanBooking(q.QueryRowContext(ctx, bookingSelect+` WHERE b.id = $1 AND b.company_id = $2`, id, companyID))
	if errors.Is(err, sql.ErrNoRows) {
		return b, engine.E(engine.ErrNotFound)
	}
	if err != nil {
		return b, fmt.Errorf("get booking %d: %w", id, err)
	}
	return b, nil
}

// Range implements engine.BookingStore.
func (s *Bookings) Range(ctx context.Context, companyID engine.ID, from, to time.Time) ([]engine.Booking, error) {
	list, err := s.queryBookings(ctx, s.db.SQL, fmt.Sprintf(`b.company_id = $1 AND b.starts_at < $2 AND b.ends_at > $3
		ORDER BY b.starts_at, b.id LIMIT %d`, engine.BookingRangeMax), companyID, s.ts(to.UTC()), s.ts(from.UTC()))
	if err != nil {
		return nil, fmt.Errorf("list bookings of %d: %w", companyID, err)
	}
	return list, nil
}

// Move implements engine.BookingStore: one UPDATE that changes the row only while it
// is still in From, not archived, owned by OwnerID when set, and To is a column of
// the same tenant. When it changes nothing, the row is read to say why.
func (s *Bookings) Move(ctx context.Context, companyID engine.ID, m engine.BookingMove) (engine.Booking, error) {
	if m.ID <= 0 {
		return engine.Booking{}, engine.E(engine.ErrNotFound)
	}
	for _, c := range []struct {
		field string
		id    engine.ID
	}{{"from", m.From}, {"to", m.To}} {
		switch {
		case c.id < 0:
			return engine.Booking{}, refFieldError(c.field, engine.MsgInvalidValue)
		case c.id == 0:
			return engine.Booking{}, refFieldError(c.field, engine.MsgRequired)
		}
	}
	var (
		n        int64
		released *engine.BookingSlot
	)
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		if n, err = s.move(ctx, tx, companyID, m); err != nil || n == 0 {
			return err
		}
		released, err = s.releaseIfCancelled(ctx, tx, companyID, m)
		return err
	})
	if err != nil {
		return engine.Booking{}, err
	}
	b, err := s.get(ctx, s.db.SQL, companyID, m.ID)
	if err != nil {
		return b, err
	}
	if n == 1 {
		b.ReleasedSlot = released
		return b, nil
	}
	switch {
	case m.OwnerID != 0 && b.UserID != m.OwnerID:
		return b, engine.E(engine.ErrNoPermission)
	case b.Archived || b.ColumnID != m.From:
		return b, engine.E(engine.ErrConcurrentUpdate)
	}
	return b, refFieldError("to", engine.MsgInvalidValue)
}

// releaseIfCancelled gives a cancelled booking's slot back, in the move's
// transaction, so the time is bookable again at once; a concluded booking keeps it
// (the appointment stands and still occupies the resource). It answers the slot
// freed, nil for none.
func (s *Bookings) releaseIfCancelled(ctx context.Context, tx *sql.Tx, companyID engine.ID, m engine.BookingMove) (*engine.BookingSlot, error) {
	var freed engine.BookingSlot
	err := tx.QueryRowContext(ctx, `UPDATE slots SET booking_id = NULL
		WHERE company_id = $1 AND booking_id = $2
		AND EXISTS (SELECT 1 FROM kanban_columns WHERE id = $3 AND company_id = $1 AND kind = 'lost')
		RETURNING id, position_id, (SELECT user_id FROM positions WHERE positions.id = slots.position_id)`,
		companyID, m.ID, m.To).Scan(&freed.SlotID, &freed.PositionID, &freed.UserID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("release slot of booking %d: %w", m.ID, err)
	}
	return &freed, nil
}

// move is Move's conditional UPDATE; it answers how many rows changed (0 or 1).
func (s *Bookings) move(ctx context.Context, tx *sql.Tx, companyID engine.ID, m engine.BookingMove) (int64, error) {
	res, err := tx.ExecContext(ctx, `UPDATE bookings SET column_id = $1,
		label = COALESCE((SELECT CASE kind WHEN 'won' THEN CAST($2 AS TEXT) WHEN 'lost' THEN CAST($3 AS TEXT) ELSE '' END
			FROM kanban_columns WHERE id = $1 AND company_id = $4), ''),
		archived = COALESCE((SELECT kind <> 'open' FROM kanban_columns WHERE id = $1 AND company_id = $4), archived),
		updated_at = $5
		WHERE id = $6 AND company_id = $4 AND column_id = $7 AND archived = $8
		AND (CAST($9 AS BIGINT) = 0 OR user_id = $9)
		AND EXISTS (SELECT 1 FROM kanban_columns WHERE id = $1 AND company_id = $4)`,
		m.To, engine.BookingLabelWon, engine.BookingLabelLost, companyID, s.ts(s.now()), m.ID, m.From, false, m.OwnerID)
	if err != nil {
		return 0, fmt.Errorf("move booking %d: %w", m.ID, err)
	}
	n, err := refAffected(res)
	if err != nil {
		return 0, fmt.Errorf("move booking %d: %w", m.ID, err)
	}
	return n, nil
}
