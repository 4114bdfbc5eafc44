package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	_ "time/tzdata" // America/Cuiaba must resolve on hosts without zoneinfo

	"atende/engine"
	"atende/persistence/db"
)

// Slots implements engine.SlotStore on either dialect: places, positions and the
// slots of the booking scheduler (migration 0540).
//
// Safe for concurrent use, and across nodes: a slot is booked by one conditional
// UPDATE (booking_id IS NULL), and a position's slot times are unique by index.
type Slots struct {
	refBase
	// ZoneOf is the tenant's time zone, in which slots are read and written; nil is
	// engine.BookingTimeZone for every tenant. Set before use.
	ZoneOf func(ctx context.Context, companyID engine.ID) (*time.Location, error)
}

var _ engine.SlotStore = (*Slots)(nil)

// NewSlots returns the booking scheduler store of d; a nil clock is the system clock.
func NewSlots(d *db.DB, clock engine.Clock) *Slots {
	return &Slots{refBase: newRefBase(d, clock)}
}

func (s *Slots) zone(ctx context.Context, companyID engine.ID) (*time.Location, error) {
	if s.ZoneOf != nil {
		return s.ZoneOf(ctx, companyID)
	}
	loc, err := time.LoadLocation(engine.BookingTimeZone)
	if err != nil {
		return nil, fmt.Errorf("load zone %s: %w", engine.BookingTimeZone, err)
	}
	return loc, nil
}

// ListPlaces implements engine.SlotStore.
func (s *Slots) ListPlaces(ctx context.Context, companyID engine.ID) ([]engine.Place, error) {
	rows, err := s.db.SQL.QueryContext(ctx, `SELECT id, name, lat, lng FROM places WHERE company_id = $1 ORDER BY id`, companyID)
	if err != nil {
		return nil, fmt.Errorf("list places of %d: %w", companyID, err)
	}
	defer rows.Close()
	out := []engine.Place{}
	for rows.Next() {
		var p engine.Place
		if err := rows.Scan(&p.ID, &p.Name, &p.Lat, &p.Lng); err != nil {
			return nil, fmt.Errorf("list places of %d: %w", companyID, err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list places of %d: %w", companyID, err)
	}
	return out, nil
}

// CreatePlace implements engine.SlotStore.
func (s *Slots) CreatePlace(ctx context.Context, companyID engine.ID, in engine.PlaceInput) (engine.Place, error) {
	in, err := engine.ValidatePlace(in)
	if err != nil {
		return engine.Place{}, err
	}
	p := engine.Place{Name: in.Name, Lat: *in.Lat, Lng: *in.Lng}
	err = s.db.SQL.QueryRowContext(ctx, `INSERT INTO places (company_id, name, lat, lng, created_at)
		VALUES ($1, $2, $3, $4, $5) RETURNING id`, companyID, p.Name, p.Lat, p.Lng, s.ts(s.now())).Scan(&p.ID)
	if err != nil {
		return p, fmt.Errorf("insert place: %w", err)
	}
	return p, nil
}

// DeletePlace implements engine.SlotStore. The delete itself checks that no
// position is at the place, so a position created meanwhile either makes it fail or
// (on PostgreSQL) waits and then fails on the foreign key.
func (s *Slots) DeletePlace(ctx context.Context, companyID, placeID engine.ID) error {
	res, err := s.db.SQL.ExecContext(ctx, `DELETE FROM places WHERE id = $1 AND company_id = $2
		AND NOT EXISTS (SELECT 1 FROM positions WHERE place_id = $1)`, placeID, companyID)
	if err != nil {
		if isForeignKeyViolation(err) {
			return engine.E(engine.ErrPlaceInUse)
		}
		return fmt.Errorf("delete place %d: %w", placeID, err)
	}
	n, err := refAffected(res)
	if err != nil {
		return fmt.Errorf("delete place %d: %w", placeID, err)
	}
	if n == 1 {
		return nil
	}
	if err := s.placeExists(ctx, s.db.SQL, companyID, placeID); err != nil {
		return err
	}
	return engine.E(engine.ErrPlaceInUse)
}

func (s *Slots) placeExists(ctx context.Context, q refQuerier, companyID, placeID engine.ID) error {
	return tenantRowExists(ctx, q, "places", companyID, placeID, engine.ErrNoPlaceFound)
}

func (s *Slots) userExists(ctx context.Context, q refQuerier, companyID, userID engine.ID) error {
	return tenantRowExists(ctx, q, "users", companyID, userID, engine.ErrNoUserFound)
}

// isForeignKeyViolation: PostgreSQL's SQLSTATE 23503, or SQLite's FOREIGN KEY
// constraint failure (matched on the message, as db.IsUniqueViolation does).
func isForeignKeyViolation(err error) bool {
	var coder interface{ SQLState() string }
	if errors.As(err, &coder) {
		return coder.SQLState() == "23503"
	}
	return strings.Contains(err.Error(), "FOREIGN KEY constraint failed")
}

const positionCols = `id, place_id, user_id, name, color`

func scanPosition(row refScanner) (engine.Position, error) {
	var p engine.Position
	err := row.Scan(&p.ID, &p.PlaceID, &p.UserID, &p.Name, &p.Color)
	return p, err
}

// ListPositions implements engine.SlotStore.
func (s *Slots) ListPositions(ctx context.Context, companyID, userID engine.ID) ([]engine.Position, error) {
	if err := s.userExists(ctx, s.db.SQL, companyID, userID); err != nil {
		return nil, err
	}
	rows, err := s.db.SQL.QueryContext(ctx, `SELECT `+positionCols+` FROM positions
		WHERE company_id = $1 AND user_id = $2 ORDER BY id`, companyID, userID)
	if err != nil {
		return nil, fmt.Errorf("list positions of user %d: %w", userID, err)
	}
	return scanRows(rows, fmt.Sprintf("list positions of user %d", userID), scanPosition)
}

// position reads a position of a user of the tenant; ErrNoPositionFound otherwise.
func (s *Slots) position(ctx context.Context, q refQuerier, companyID, userID, positionID engine.ID) (engine.Position, error) {
	p, err := scanPosition(q.QueryRowContext(ctx, `SELECT `+positionCols+` FROM positions
		WHERE id = $1 AND company_id = $2 AND user_id = $3`, positionID, companyID, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return p, engine.E(engine.ErrNoPositionFound)
	}
	if err != nil {
		return p, fmt.Errorf("get position %d: %w", positionID, err)
	}
	return p, nil
}

// SavePosition implements engine.SlotStore. The user and the place must be the
// tenant's (ErrNoUserFound, ErrNoPlaceFound); an update must name a position of that
// user (ErrNoPositionFound).
func (s *Slots) SavePosition(ctx context.Context, companyID engine.ID, in engine.PositionInput) (engine.Position, error) {
	in, err := engine.ValidatePosition(in)
	if err != nil {
		return engine.Position{}, err
	}
	var out engine.Position
	err = s.db.Tx(ctx, func(tx *sql.Tx) error {
		if err := s.userExists(ctx, tx, companyID, in.UserID); err != nil {
			return err
		}
		if err := s.placeExists(ctx, tx, companyID, in.PlaceID); err != nil {
			return err
		}
		now := s.ts(s.now())
		if in.PositionID == 0 {
			p, err := scanPosition(tx.QueryRowContext(ctx, `INSERT INTO positions
				(company_id, user_id, place_id, name, color, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING `+positionCols,
				companyID, in.UserID, in.PlaceID, in.Name, in.Color, now))
			if err != nil {
				return fmt.Errorf("insert position: %w", err)
			}
			out = p
			return nil
		}
		p, err := scanPosition(tx.QueryRowContext(ctx, `UPDATE positions SET place_id = $1, name = $2, color = $3,
			updated_at = $4 WHERE id = $5 AND company_id = $6 AND user_id = $7 RETURNING `+positionCols,
			in.PlaceID, in.Name, in.Color, now, in.PositionID, companyID, in.UserID))
		if errors.Is(err, sql.ErrNoRows) {
			return engine.E(engine.ErrNoPositionFound)
		}
		if err != nil {
			return fmt.Errorf("update position %d: %w", in.PositionID, err)
		}
		out = p
		return nil
	})
	return out, err
}

// slotOf is a slot row read back in the tenant's zone.
func slotOf(id engine.ID, at time.Time, booked bool, loc *time.Location) engine.Slot {
	local := at.In(loc)
	return engine.Slot{ID: id, Date: local.Format("2006-01-02"), Hour: local.Format("15:04"), At: at.UTC(), Booked: booked}
}

// FutureSlots implements engine.SlotStore: slots starting at or after now.
func (s *Slots) FutureSlots(ctx context.Context, companyID, userID, positionID engine.ID) ([]engine.Slot, error) {
	loc, err := s.zone(ctx, companyID)
	if err != nil {
		return nil, err
	}
	if _, err := s.position(ctx, s.db.SQL, companyID, userID, positionID); err != nil {
		return nil, err
	}
	rows, err := s.db.SQL.QueryContext(ctx, `SELECT id, slot_at, booking_id IS NOT NULL FROM slots
		WHERE position_id = $1 AND company_id = $2 AND slot_at >= $3 ORDER BY slot_at`,
		positionID, companyID, s.ts(s.now()))
	if err != nil {
		return nil, fmt.Errorf("list slots of position %d: %w", positionID, err)
	}
	defer rows.Close()
	out := []engine.Slot{}
	for rows.Next() {
		var (
			id     engine.ID
			at     time.Time
			booked bool
		)
		if err := rows.Scan(&id, refTime{&at}, &booked); err != nil {
			return nil, fmt.Errorf("list slots of position %d: %w", positionID, err)
		}
		out = append(out, slotOf(id, at, booked, loc))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list slots of position %d: %w", positionID, err)
	}
	return out, nil
}

// gridCells lists the grid cells (UTC starts) from now to the end of the days-th day
// after today, in loc.
func gridCells(now time.Time, loc *time.Location, days int) []time.Time {
	local := now.In(loc)
	y, m, d := local.Date()
	var out []time.Time
	for day := 0; day <= days; day++ {
		for min := engine.GridFirstMinute; min <= engine.GridLastMinute; min += engine.GridStepMinutes {
			t := time.Date(y, m, d+day, min/60, min%60, 0, 0, loc)
			// A wall time a daylight-saving jump skips normalises to another hour:
			// not a cell.
			if t.Hour()*60+t.Minute() != min || !engine.IsGridCell(t) || t.Before(now) {
				continue
			}
			out = append(out, t.UTC())
		}
	}
	return out
}

func slotDays(days int) int {
	switch {
	case days <= 0:
		return engine.DefaultSlotDays
	case days > engine.MaxSlotDays:
		return engine.MaxSlotDays
	}
	return days
}

// AvailableSlots implements engine.SlotStore.
func (s *Slots) AvailableSlots(ctx context.Context, companyID, userID, positionID engine.ID, days int) ([]engine.Slot, error) {
	future, err := s.FutureSlots(ctx, companyID, userID, positionID)
	if err != nil {
		return nil, err
	}
	loc, err := s.zone(ctx, companyID)
	if err != nil {
		return nil, err
	}
	taken := make(map[time.Time]bool, len(future))
	for _, sl := range future {
		taken[sl.At] = true
	}
	out := []engine.Slot{}
	for _, at := range gridCells(s.now(), loc, slotDays(days)) {
		if !taken[at] {
			out = append(out, slotOf(0, at, false, loc))
		}
	}
	return out, nil
}

// insertSlot adds a free slot unless the position has one at that time; it reports
// whether a row was added. ON CONFLICT works the same on both dialects.
func (s *Slots) insertSlot(ctx context.Context, tx *sql.Tx, companyID, positionID engine.ID, at time.Time) (bool, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO slots (company_id, position_id, slot_at, created_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT (position_id, slot_at) DO NOTHING`,
		companyID, positionID, s.ts(at), s.ts(s.now()))
	if err != nil {
		return false, fmt.Errorf("insert slot: %w", err)
	}
	n, err := refAffected(res)
	return n == 1, err
}

// CreateSlots implements engine.SlotStore.
func (s *Slots) CreateSlots(ctx context.Context, companyID, userID, positionID engine.ID, days int) (int, error) {
	loc, err := s.zone(ctx, companyID)
	if err != nil {
		return 0, err
	}
	created := 0
	err = s.db.Tx(ctx, func(tx *sql.Tx) error {
		created = 0
		if _, err := s.position(ctx, tx, companyID, userID, positionID); err != nil {
			return err
		}
		for _, at := range gridCells(s.now(), loc, slotDays(days)) {
			added, err := s.insertSlot(ctx, tx, companyID, positionID, at)
			if err != nil {
				return err
			}
			if added {
				created++
			}
		}
		return nil
	})
	return created, err
}

// parsedEntry is an availability entry read and checked.
type parsedEntry struct {
	userID, positionID engine.ID
	insert, remove     []time.Time
	week               *time.Time // start of the replaced week, UTC
}

// parseEntries checks every entry before anything is written: ids, slot strings
// (grid cells, not in the past), the week start (a Monday), and the request size. The
// field of a failure names the entry: "0.toInsert".
func parseEntries(entries []engine.AvailabilityEntry, now time.Time, loc *time.Location) ([]parsedEntry, error) {
	if len(entries) == 0 {
		return nil, refFieldError("entries", engine.MsgRequired)
	}
	if len(entries) > engine.MaxAvailabilityEntries {
		return nil, refFieldError("entries", engine.MsgTooLong)
	}
	total := 0
	out := make([]parsedEntry, 0, len(entries))
	for i, e := range entries {
		field := func(name string) string { return fmt.Sprintf("%d.%s", i, name) }
		if e.UserID <= 0 {
			return nil, refFieldError(field("userId"), engine.MsgRequired)
		}
		if e.PositionID <= 0 {
			return nil, refFieldError(field("positionId"), engine.MsgRequired)
		}
		total += len(e.ToInsert) + len(e.ToRemove)
		if total > engine.MaxSlotsPerRequest {
			return nil, refFieldError(field("toInsert"), engine.MsgTooLong)
		}
		p := parsedEntry{userID: e.UserID, positionID: e.PositionID}
		read := func(name string, list []string) ([]time.Time, error) {
			seen := map[time.Time]bool{}
			var ts []time.Time
			for _, raw := range list {
				at, ok := engine.ParseSlot(raw, loc)
				if !ok {
					return nil, refFieldError(field(name), engine.MsgInvalidTime)
				}
				if at.Before(now) {
					return nil, refFieldError(field(name), engine.MsgInvalidTime)
				}
				if !seen[at] {
					seen[at] = true
					ts = append(ts, at)
				}
			}
			sort.Slice(ts, func(a, b int) bool { return ts[a].Before(ts[b]) })
			return ts, nil
		}
		var err error
		if p.insert, err = read("toInsert", e.ToInsert); err != nil {
			return nil, err
		}
		if p.remove, err = read("toRemove", e.ToRemove); err != nil {
			return nil, err
		}
		if e.WeekStart != "" {
			w, err := time.ParseInLocation("2006-01-02", e.WeekStart, loc)
			if err != nil || w.Format("2006-01-02") != e.WeekStart || w.Weekday() != time.Monday {
				return nil, refFieldError(field("weekStart"), engine.MsgInvalidValue)
			}
			end := w.AddDate(0, 0, 7)
			for _, at := range p.insert {
				if at.Before(w) || !at.Before(end) {
					return nil, refFieldError(field("toInsert"), engine.MsgInvalidValue)
				}
			}
			wu := w.UTC()
			p.week = &wu
		}
		out = append(out, p)
	}
	return out, nil
}

// SetAvailability implements engine.SlotStore. In one transaction, per entry: the
// position must be the user's; with a week start, the week's free future slots not in
// ToInsert are removed; ToRemove's slots are removed; ToInsert's are added (an existing
// one is kept). Removing a booked slot fails the whole request with ErrSlotTaken: the
// conditional DELETE … WHERE booking_id IS NULL cannot remove a slot a booking took
// meanwhile.
func (s *Slots) SetAvailability(ctx context.Context, companyID engine.ID, entries []engine.AvailabilityEntry) (engine.AvailabilityResult, error) {
	loc, err := s.zone(ctx, companyID)
	if err != nil {
		return engine.AvailabilityResult{}, err
	}
	now := s.now()
	parsed, err := parseEntries(entries, now, loc)
	if err != nil {
		return engine.AvailabilityResult{}, err
	}
	var res engine.AvailabilityResult
	err = s.db.Tx(ctx, func(tx *sql.Tx) error {
		res = engine.AvailabilityResult{}
		for _, e := range parsed {
			if _, err := s.position(ctx, tx, companyID, e.userID, e.positionID); err != nil {
				return err
			}
			remove := e.remove
			if e.week != nil {
				stale, err := s.weekSlotsNotIn(ctx, tx, companyID, e.positionID, *e.week, now, e.insert)
				if err != nil {
					return err
				}
				remove = append(remove, stale...)
			}
			for _, at := range remove {
				n, err := s.removeSlot(ctx, tx, companyID, e.positionID, at)
				if err != nil {
					return err
				}
				res.Removed += n
			}
			for _, at := range e.insert {
				added, err := s.insertSlot(ctx, tx, companyID, e.positionID, at)
				if err != nil {
					return err
				}
				if added {
					res.Inserted++
				}
			}
		}
		return nil
	})
	return res, err
}

// weekSlotsNotIn lists the future slot times of the position in the week starting
// at week (UTC) that keep is missing.
func (s *Slots) weekSlotsNotIn(ctx context.Context, tx *sql.Tx, companyID, positionID engine.ID, week, now time.Time, keep []time.Time) ([]time.Time, error) {
	from := week
	if now.After(from) {
		from = now
	}
	rows, err := tx.QueryContext(ctx, `SELECT slot_at FROM slots WHERE position_id = $1 AND company_id = $2
		AND slot_at >= $3 AND slot_at < $4`, positionID, companyID, s.ts(from), s.ts(week.AddDate(0, 0, 7)))
	if err != nil {
		return nil, fmt.Errorf("week slots of position %d: %w", positionID, err)
	}
	defer rows.Close()
	kept := make(map[time.Time]bool, len(keep))
	for _, t := range keep {
		kept[t] = true
	}
	var out []time.Time
	for rows.Next() {
		var at time.Time
		if err := rows.Scan(refTime{&at}); err != nil {
			return nil, fmt.Errorf("week slots of position %d: %w", positionID, err)
		}
		if !kept[at] {
			out = append(out, at)
		}
	}
	return out, rows.Err()
}

// removeSlot deletes the free slot of the position at at: 1 when deleted, 0 when
// there was none, ErrSlotTaken when a booking holds it.
func (s *Slots) removeSlot(ctx context.Context, tx *sql.Tx, companyID, positionID engine.ID, at time.Time) (int, error) {
	r, err := tx.ExecContext(ctx, `DELETE FROM slots WHERE position_id = $1 AND company_id = $2 AND slot_at = $3
		AND booking_id IS NULL`, positionID, companyID, s.ts(at))
	if err != nil {
		return 0, fmt.Errorf("delete slot: %w", err)
	}
	n, err := refAffected(r)
	if err != nil || n == 1 {
		return int(n), err
	}
	var one int
	err = tx.QueryRowContext(ctx, `SELECT 1 FROM slots WHERE position_id = $1 AND company_id = $2 AND slot_at = $3`,
		positionID, companyID, s.ts(at)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("get slot: %w", err)
	}
	return 0, engine.E(engine.ErrSlotTaken)
}

// Book implements engine.SlotStore with one conditional UPDATE: of two requests
// for the same free slot, on one node or two, the database lets exactly one set
// booking_id; the other updates nothing and gets ErrSlotTaken. Booking the same slot
// again for the same booking is also ErrSlotTaken: the caller knows it holds it.
func (s *Slots) Book(ctx context.Context, companyID, slotID, bookingID engine.ID) error {
	if bookingID <= 0 {
		return refFieldError("bookingId", engine.MsgRequired)
	}
	res, err := s.db.SQL.ExecContext(ctx, `UPDATE slots SET booking_id = $1
		WHERE id = $2 AND company_id = $3 AND booking_id IS NULL`, bookingID, slotID, companyID)
	if err != nil {
		return fmt.Errorf("book slot %d: %w", slotID, err)
	}
	n, err := refAffected(res)
	if err != nil {
		return fmt.Errorf("book slot %d: %w", slotID, err)
	}
	if n == 1 {
		return nil
	}
	return s.slotMissingOr(ctx, companyID, slotID, engine.ErrSlotTaken)
}

// Release implements engine.SlotStore.
func (s *Slots) Release(ctx context.Context, companyID, slotID, bookingID engine.ID) error {
	res, err := s.db.SQL.ExecContext(ctx, `UPDATE slots SET booking_id = NULL
		WHERE id = $1 AND company_id = $2 AND booking_id = $3`, slotID, companyID, bookingID)
	if err != nil {
		return fmt.Errorf("release slot %d: %w", slotID, err)
	}
	n, err := refAffected(res)
	if err != nil {
		return fmt.Errorf("release slot %d: %w", slotID, err)
	}
	if n == 0 {
		return engine.E(engine.ErrNoSlotFound)
	}
	return nil
}

// slotMissingOr is ErrNoSlotFound when the tenant has no slot slotID, else code.
func (s *Slots) slotMissingOr(ctx context.Context, companyID, slotID engine.ID, code engine.Code) error {
	var one int
	err := s.db.SQL.QueryRowContext(ctx, `SELECT 1 FROM slots WHERE id = $1 AND company_id = $2`, slotID, companyID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return engine.E(engine.ErrNoSlotFound)
	}
	if err != nil {
		return fmt.Errorf("get slot %d: %w", slotID, err)
	}
	return engine.E(code)
}
