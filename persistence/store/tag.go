package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"

	"atende/engine"
	"atende/persistence/db"
)

// Tags implements engine.TagStore on either dialect.
//
// Safe for concurrent use.
type Tags struct {
	refBase
}

var _ engine.TagStore = (*Tags)(nil)

// NewTags returns the tag store of d; a nil clock is the system clock.
func NewTags(d *db.DB, clock engine.Clock) *Tags {
	return &Tags{refBase: newRefBase(d, clock)}
}

// TagPalette are the colours a tag created without one gets, picked by its folded
// name so that the same name always gets the same colour.
var TagPalette = []string{
	"#e53935", "#d81b60", "#8e24aa", "#5e35b1", "#3949ab", "#1e88e5",
	"#039be5", "#00acc1", "#00897b", "#43a047", "#7cb342", "#c0ca33",
	"#fdd835", "#ffb300", "#fb8c00", "#f4511e", "#6d4c41", "#546e7a",
}

func paletteColor(key string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(key))
	return TagPalette[h.Sum32()%uint32(len(TagPalette))]
}

const tagCols = `id, company_id, name, color`

func scanTag(row refScanner) (engine.Tag, error) {
	var t engine.Tag
	err := row.Scan(&t.ID, &t.CompanyID, &t.Name, &t.Color)
	return t, err
}

// List implements engine.TagStore.
func (s *Tags) List(ctx context.Context, companyID engine.ID, search string) ([]engine.Tag, error) {
	out := []engine.Tag{}
	query := `SELECT ` + tagCols + ` FROM tags WHERE company_id = $1`
	args := []any{companyID}
	if term := refFold(search); term != "" {
		if len([]rune(term)) > refMaxTerm {
			return out, nil
		}
		query += ` AND name_key LIKE $2 ESCAPE '\'`
		args = append(args, refLike(term))
	}
	rows, err := s.db.SQL.QueryContext(ctx, query+` ORDER BY name_key, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("list tags of %d: %w", companyID, err)
	}
	defer rows.Close()
	for rows.Next() {
		t, err := scanTag(rows)
		if err != nil {
			return nil, fmt.Errorf("list tags of %d: %w", companyID, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list tags of %d: %w", companyID, err)
	}
	return out, nil
}

// Get implements engine.TagStore.
func (s *Tags) Get(ctx context.Context, companyID, id engine.ID) (engine.Tag, error) {
	return s.get(ctx, s.db.SQL, companyID, id)
}

func (s *Tags) get(ctx context.Context, q refQuerier, companyID, id engine.ID) (engine.Tag, error) {
	t, err := scanTag(q.QueryRowContext(ctx, `SELECT `+tagCols+` FROM tags WHERE id = $1 AND company_id = $2`,
		id, companyID))
	if errors.Is(err, sql.ErrNoRows) {
		return t, engine.E(engine.ErrNoTagFound)
	}
	if err != nil {
		return t, fmt.Errorf("get tag %d: %w", id, err)
	}
	return t, nil
}

// Create implements engine.TagStore with one INSERT … ON CONFLICT DO NOTHING on the
// tenant's unique folded name, so two attendants typing the same new tag at once both
// get the one row.
func (s *Tags) Create(ctx context.Context, companyID engine.ID, in engine.TagInput) (engine.Tag, bool, error) {
	in, err := engine.ValidateTag(in)
	if err != nil {
		return engine.Tag{}, false, err
	}
	key := refFold(in.Name)
	if in.Color == "" {
		in.Color = paletteColor(key)
	}
	for range 3 {
		now := s.ts(s.now())
		t, err := scanTag(s.db.SQL.QueryRowContext(ctx, `INSERT INTO tags (company_id, name, name_key, color,
			created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
			ON CONFLICT (company_id, name_key) DO NOTHING RETURNING `+tagCols,
			companyID, in.Name, key, in.Color, now))
		switch {
		case err == nil:
			return t, true, nil
		case !errors.Is(err, sql.ErrNoRows):
			return t, false, fmt.Errorf("insert tag: %w", err)
		}
		t, err = scanTag(s.db.SQL.QueryRowContext(ctx, `SELECT `+tagCols+` FROM tags
			WHERE company_id = $1 AND name_key = $2`, companyID, key))
		switch {
		case err == nil:
			return t, false, nil
		case !errors.Is(err, sql.ErrNoRows):
			return t, false, fmt.Errorf("find tag: %w", err)
		}
		// Deleted between the conflict and the read: try again.
	}
	return engine.Tag{}, false, fmt.Errorf("create tag %q: row keeps vanishing", in.Name)
}

// Update implements engine.TagStore.
func (s *Tags) Update(ctx context.Context, companyID, id engine.ID, in engine.TagInput) (engine.Tag, error) {
	var out engine.Tag
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		old, err := s.get(ctx, tx, companyID, id)
		if err != nil {
			return err
		}
		in, err := engine.ValidateTag(in)
		if err != nil {
			return err
		}
		if in.Color == "" {
			in.Color = old.Color
		}
		_, err = tx.ExecContext(ctx, `UPDATE tags SET name = $1, name_key = $2, color = $3, updated_at = $4
			WHERE id = $5 AND company_id = $6`, in.Name, refFold(in.Name), in.Color, s.ts(s.now()), id, companyID)
		if db.IsUniqueViolation(err) {
			return &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{"name": engine.MsgAlreadyExists}, Cause: err}
		}
		if err != nil {
			return fmt.Errorf("update tag %d: %w", id, err)
		}
		out, err = s.get(ctx, tx, companyID, id)
		return err
	})
	return out, err
}

// Delete implements engine.TagStore. Ticket links to the tag go with it by their
// foreign key's ON DELETE.
func (s *Tags) Delete(ctx context.Context, companyID, id engine.ID) error {
	res, err := s.db.SQL.ExecContext(ctx, `DELETE FROM tags WHERE id = $1 AND company_id = $2`, id, companyID)
	if err != nil {
		return fmt.Errorf("delete tag %d: %w", id, err)
	}
	n, err := refAffected(res)
	if err != nil {
		return fmt.Errorf("delete tag %d: %w", id, err)
	}
	if n == 0 {
		return engine.E(engine.ErrNoTagFound)
	}
	return nil
}
