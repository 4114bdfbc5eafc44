package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"atende/engine"
	"atende/persistence/db"
)

// Announcements implements engine.AnnouncementStore on either dialect.
//
// Safe for concurrent use.
type Announcements struct {
	refBase
}

var _ engine.AnnouncementStore = (*Announcements)(nil)

// NewAnnouncements returns the announcement store of d; a nil clock is the system clock.
func NewAnnouncements(d *db.DB, clock engine.Clock) *Announcements {
	return &Announcements{refBase: newRefBase(d, clock)}
}

// maxAnnouncementLimit caps AnnouncementQuery.Limit.
const maxAnnouncementLimit = 200

const announcementCols = `id, company_id, title, text, priority, media_path, media_name, status, created_at, updated_at`

func scanAnnouncement(row refScanner) (engine.Announcement, error) {
	var a engine.Announcement
	err := row.Scan(&a.ID, &a.CompanyID, &a.Title, &a.Text, &a.Priority, &a.MediaPath, &a.MediaName, &a.Status,
		refTime{&a.CreatedAt}, refTime{&a.UpdatedAt})
	return a, err
}

// List implements engine.AnnouncementStore.
func (s *Announcements) List(ctx context.Context, companyID engine.ID, q engine.AnnouncementQuery) ([]engine.Announcement, int, bool, error) {
	out := []engine.Announcement{}
	limit := q.Limit
	if limit <= 0 {
		limit = engine.AnnouncementPageSize
	}
	limit = min(limit, maxAnnouncementLimit)
	if q.Offset < 0 {
		return out, 0, false, refFieldError("pageNumber", engine.MsgInvalidValue)
	}
	where := `company_id = $1`
	args := []any{companyID}
	if q.ActiveOnly {
		where += ` AND status = $2`
		args = append(args, true)
	}
	term := refFold(q.Search)
	if len([]rune(term)) > refMaxTerm {
		return out, 0, false, nil
	}
	if term != "" {
		args = append(args, refLike(term))
		where += fmt.Sprintf(` AND search LIKE $%d ESCAPE '\'`, len(args))
	}
	var count int
	if err := s.db.SQL.QueryRowContext(ctx, `SELECT count(*) FROM announcements WHERE `+where, args...).Scan(&count); err != nil {
		return nil, 0, false, fmt.Errorf("count announcements of %d: %w", companyID, err)
	}
	args = append(args, limit+1, q.Offset)
	rows, err := s.db.SQL.QueryContext(ctx, fmt.Sprintf(`SELECT %s FROM announcements WHERE %s
		ORDER BY created_at DESC, id DESC LIMIT $%d OFFSET $%d`, announcementCols, where, len(args)-1, len(args)), args...)
	if err != nil {
		return nil, 0, false, fmt.Errorf("list announcements of %d: %w", companyID, err)
	}
	defer rows.Close()
	for rows.Next() {
		a, err := scanAnnouncement(rows)
		if err != nil {
			return nil, 0, false, fmt.Errorf("list announcements of %d: %w", companyID, err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, false, fmt.Errorf("list announcements of %d: %w", companyID, err)
	}
	hasMore := len(out) > limit
	if hasMore {
		out = out[:limit]
	}
	return out, count, hasMore, nil
}

// Get implements engine.AnnouncementStore.
func (s *Announcements) Get(ctx context.Context, companyID, id engine.ID) (engine.Announcement, error) {
	return s.get(ctx, s.db.SQL, companyID, id)
}

func (s *Announcements) get(ctx context.Context, q refQuerier, companyID, id engine.ID) (engine.Announcement, error) {
	a, err := scanAnnouncement(q.QueryRowContext(ctx, `SELECT `+announcementCols+` FROM announcements
		WHERE id = $1 AND company_id = $2`, id, companyID))
	if errors.Is(err, sql.ErrNoRows) {
		return a, engine.E(engine.ErrNotFound)
	}
	if err != nil {
		return a, fmt.Errorf("get announcement %d: %w", id, err)
	}
	return a, nil
}

func announcementSearch(in engine.AnnouncementInput) string {
	return refFold(in.Title) + refSep + refFold(in.Text)
}

// Create implements engine.AnnouncementStore.
func (s *Announcements) Create(ctx context.Context, companyID engine.ID, in engine.AnnouncementInput) (engine.Announcement, error) {
	in, err := engine.ValidateAnnouncement(in)
	if err != nil {
		return engine.Announcement{}, err
	}
	status := in.Status == nil || *in.Status
	var media engine.AnnouncementMedia
	if in.Media != nil {
		media = *in.Media
	}
	a, err := scanAnnouncement(s.db.SQL.QueryRowContext(ctx, `INSERT INTO announcements
		(company_id, title, text, priority, status, search, media_path, media_name, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING `+announcementCols,
		companyID, in.Title, in.Text, in.Priority, status, announcementSearch(in), media.Path, media.Name, s.ts(s.now())))
	if err != nil {
		return a, fmt.Errorf("insert announcement: %w", err)
	}
	return a, nil
}

// Update implements engine.AnnouncementStore. An announcement of another tenant is not
// found before its input is validated.
func (s *Announcements) Update(ctx context.Context, companyID, id engine.ID, in engine.AnnouncementInput) (before, after engine.Announcement, err error) {
	err = s.db.Tx(ctx, func(tx *sql.Tx) error {
		old, err := s.get(ctx, tx, companyID, id)
		if err != nil {
			return err
		}
		before = old
		in, err := engine.ValidateAnnouncement(in)
		if err != nil {
			return err
		}
		status := old.Status
		if in.Status != nil {
			status = *in.Status
		}
		media := engine.AnnouncementMedia{Path: old.MediaPath, Name: old.MediaName}
		if in.Media != nil {
			media = *in.Media
		}
		if _, err := tx.ExecContext(ctx, `UPDATE announcements SET title = $1, text = $2, priority = $3,
			status = $4, search = $5, media_path = $6, media_name = $7, updated_at = $8 WHERE id = $9 AND company_id = $10`,
			in.Title, in.Text, in.Priority, status, announcementSearch(in), media.Path, media.Name, s.ts(s.now()),
			id, companyID); err != nil {
			return fmt.Errorf("update announcement %d: %w", id, err)
		}
		after, err = s.get(ctx, tx, companyID, id)
		return err
	})
	return before, after, err
}

// Delete implements engine.AnnouncementStore.
func (s *Announcements) Delete(ctx context.Context, companyID, id engine.ID) error {
	res, err := s.db.SQL.ExecContext(ctx, `DELETE FROM announcements WHERE id = $1 AND company_id = $2`, id, companyID)
	if err != nil {
		return fmt.Errorf("delete announcement %d: %w", id, err)
	}
	n, err := refAffected(res)
	if err != nil {
		return fmt.Errorf("delete announcement %d: %w", id, err)
	}
	if n == 0 {
		return engine.E(engine.ErrNotFound)
	}
	return nil
}
