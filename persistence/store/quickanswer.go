package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"atende/engine"
	"atende/persistence/db"
)

// QuickAnswers implements engine.QuickAnswerStore on either dialect.
//
// Safe for concurrent use.
type QuickAnswers struct {
	refBase
}

var _ engine.QuickAnswerStore = (*QuickAnswers)(nil)

// NewQuickAnswers returns the quick answer store of d; a nil clock is the system clock.
func NewQuickAnswers(d *db.DB, clock engine.Clock) *QuickAnswers {
	return &QuickAnswers{refBase: newRefBase(d, clock)}
}

// maxQuickAnswerLimit caps QuickAnswerQuery.Limit.
const maxQuickAnswerLimit = 200

const quickAnswerCols = `id, company_id, shortcut, message, created_at, updated_at`

func scanQuickAnswer(row refScanner) (engine.QuickAnswer, error) {
	var a engine.QuickAnswer
	err := row.Scan(&a.ID, &a.CompanyID, &a.Shortcut, &a.Message, refTime{&a.CreatedAt}, refTime{&a.UpdatedAt})
	return a, err
}

// List implements engine.QuickAnswerStore.
func (s *QuickAnswers) List(ctx context.Context, companyID engine.ID, q engine.QuickAnswerQuery) ([]engine.QuickAnswer, int, bool, error) {
	out := []engine.QuickAnswer{}
	limit := q.Limit
	if limit <= 0 {
		limit = engine.QuickAnswerPageSize
	}
	limit = min(limit, maxQuickAnswerLimit)
	if q.Offset < 0 {
		return out, 0, false, refFieldError("pageNumber", engine.MsgInvalidValue)
	}
	where := `company_id = $1`
	args := []any{companyID}
	term := refFold(strings.TrimPrefix(strings.TrimSpace(q.Search), "/"))
	if len([]rune(term)) > refMaxTerm {
		return out, 0, false, nil
	}
	if term != "" {
		where += ` AND search LIKE $2 ESCAPE '\'`
		args = append(args, refLike(term))
	}
	var count int
	if err := s.db.SQL.QueryRowContext(ctx, `SELECT count(*) FROM quick_answers WHERE `+where, args...).Scan(&count); err != nil {
		return nil, 0, false, fmt.Errorf("count quick answers of %d: %w", companyID, err)
	}
	args = append(args, limit+1, q.Offset)
	rows, err := s.db.SQL.QueryContext(ctx, fmt.Sprintf(`SELECT %s FROM quick_answers WHERE %s
		ORDER BY shortcut_norm, id LIMIT $%d OFFSET $%d`, quickAnswerCols, where, len(args)-1, len(args)), args...)
	if err != nil {
		return nil, 0, false, fmt.Errorf("list quick answers of %d: %w", companyID, err)
	}
	defer rows.Close()
	for rows.Next() {
		a, err := scanQuickAnswer(rows)
		if err != nil {
			return nil, 0, false, fmt.Errorf("list quick answers of %d: %w", companyID, err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, false, fmt.Errorf("list quick answers of %d: %w", companyID, err)
	}
	hasMore := len(out) > limit
	if hasMore {
		out = out[:limit]
	}
	return out, count, hasMore, nil
}

// Get implements engine.QuickAnswerStore.
func (s *QuickAnswers) Get(ctx context.Context, companyID, id engine.ID) (engine.QuickAnswer, error) {
	return s.get(ctx, s.db.SQL, companyID, id)
}

func (s *QuickAnswers) get(ctx context.Context, q refQuerier, companyID, id engine.ID) (engine.QuickAnswer, error) {
	a, err := scanQuickAnswer(q.QueryRowContext(ctx, `SELECT `+quickAnswerCols+` FROM quick_answers
		WHERE id = $1 AND company_id = $2`, id, companyID))
	if errors.Is(err, sql.ErrNoRows) {
		return a, engine.E(engine.ErrNoQuickAnswerFound)
	}
	if err != nil {
		return a, fmt.Errorf("get quick answer %d: %w", id, err)
	}
	return a, nil
}

func quickAnswerSearch(in engine.QuickAnswerInput) (shortcutNorm, search string) {
	shortcutNorm = refFold(in.Shortcut)
	return shortcutNorm, shortcutNorm + refSep + refFold(in.Message)
}

// Create implements engine.QuickAnswerStore.
func (s *QuickAnswers) Create(ctx context.Context, companyID engine.ID, in engine.QuickAnswerInput) (engine.QuickAnswer, error) {
	in, err := engine.ValidateQuickAnswer(in)
	if err != nil {
		return engine.QuickAnswer{}, err
	}
	shortcutNorm, search := quickAnswerSearch(in)
	a, err := scanQuickAnswer(s.db.SQL.QueryRowContext(ctx, `INSERT INTO quick_answers
		(company_id, shortcut, message, shortcut_norm, search, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING `+quickAnswerCols,
		companyID, in.Shortcut, in.Message, shortcutNorm, search, s.ts(s.now())))
	if err != nil {
		return a, fmt.Errorf("insert quick answer: %w", err)
	}
	return a, nil
}

// Update implements engine.QuickAnswerStore. A quick answer of another tenant is not
// found before its input is validated.
func (s *QuickAnswers) Update(ctx context.Context, companyID, id engine.ID, in engine.QuickAnswerInput) (engine.QuickAnswer, error) {
	var out engine.QuickAnswer
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := s.get(ctx, tx, companyID, id); err != nil {
			return err
		}
		in, err := engine.ValidateQuickAnswer(in)
		if err != nil {
			return err
		}
		shortcutNorm, search := quickAnswerSearch(in)
		if _, err := tx.ExecContext(ctx, `UPDATE quick_answers SET shortcut = $1, message = $2, shortcut_norm = $3,
			search = $4, updated_at = $5 WHERE id = $6 AND company_id = $7`,
			in.Shortcut, in.Message, shortcutNorm, search, s.ts(s.now()), id, companyID); err != nil {
			return fmt.Errorf("update quick answer %d: %w", id, err)
		}
		out, err = s.get(ctx, tx, companyID, id)
		return err
	})
	return out, err
}

// Delete implements engine.QuickAnswerStore.
func (s *QuickAnswers) Delete(ctx context.Context, companyID, id engine.ID) error {
	res, err := s.db.SQL.ExecContext(ctx, `DELETE FROM quick_answers WHERE id = $1 AND company_id = $2`, id, companyID)
	if err != nil {
		return fmt.Errorf("delete quick answer %d: %w", id, err)
	}
	n, err := refAffected(res)
	if err != nil {
		return fmt.Errorf("delete quick answer %d: %w", id, err)
	}
	if n == 0 {
		return engine.E(engine.ErrNoQuickAnswerFound)
	}
	return nil
}
