package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"atende/engine"
	"atende/persistence/db"
)

// Contacts implements engine.ContactStore on either dialect. Extra info and sales
// opportunities live in child tables (contact_extra_info, contact_sales_opps) rather
// than JSON columns: their ids must stay stable across edits (PUT /opportunity names
// one by id), closing an opportunity is a one-row conditional update that two
// attendants cannot race past, and the sales indicators can aggregate them in SQL.
//
// Safe for concurrent use.
type Contacts struct {
	refBase
}

var _ engine.ContactStore = (*Contacts)(nil)

// NewContacts returns the contact store of d; a nil clock is the system clock.
func NewContacts(d *db.DB, clock engine.Clock) *Contacts {
	return &Contacts{refBase: newRefBase(d, clock)}
}

// maxContactLimit caps ContactQuery.Limit.
const maxContactLimit = 200

const contactCols = `id, company_id, name, number, email, profile_pic_url, display_pic, type, is_group,
	appraisal_sum, appraisal_count, created_at, updated_at`

type refScanner interface{ Scan(dest ...any) error }

func scanContact(row refScanner, extra ...any) (engine.Contact, error) {
	var c engine.Contact
	var sum, count int64
	dest := []any{&c.ID, &c.CompanyID, &c.Name, &c.Number, &c.Email, &c.ProfilePicURL, &c.DisplayPic,
		&c.Type, &c.IsGroup, &sum, &count, refTime{&c.CreatedAt}, refTime{&c.UpdatedAt}}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return c, err
	}
	c.AppraisalData = &engine.AppraisalData{TotalSum: int(sum), TotalCount: int(count)}
	c.ExtraInfo = []engine.ExtraInfo{}
	c.SalesOpps = []engine.SalesOpp{}
	return c, nil
}

// contactSearch is what the search column of a contact holds.
func contactSearch(nameNorm, number, email string) string {
	return nameNorm + refSep + number + refSep + email
}

// contactTerm turns a searchParam into the folded term matched against the search
// column: the digits of anything that reads as a phone number ('+55 (65) 9999' →
// '55659999'), else the folded text. ok is false for a term too long to match.
func contactTerm(raw string) (term string, ok bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", true
	}
	if len(raw) > 4*refMaxTerm || len([]rune(raw)) > refMaxTerm {
		return "", false
	}
	if digits, isPhone := engine.NormalizePhone(raw); isPhone && digits != "" {
		return digits, true
	}
	return refFold(raw), true
}

// List implements engine.ContactStore. The page is read by walking the index
// (company_id, name_norm, id): with a cursor, from the cursor's key on, so any page
// costs one index seek plus the page, even at 1M contacts (0.5 ms measured on
// PostgreSQL 15 with 900k contacts in one tenant, against 5 s for OFFSET 500000).
// Count runs over the same filter unless skipped. On PostgreSQL a search of three or
// more characters is served by the trigram index of migration 0151 (about 100 ms at
// 900k contacts).
func (s *Contacts) List(ctx context.Context, companyID engine.ID, q engine.ContactQuery) (engine.ContactPage, error) {
	page := engine.ContactPage{Contacts: []engine.Contact{}}
	limit := q.Limit
	if limit <= 0 {
		limit = engine.ContactPageSize
	}
	limit = min(limit, maxContactLimit)
	if q.Offset < 0 {
		return page, refFieldError("pageNumber", engine.MsgInvalidValue)
	}
	term, ok := contactTerm(q.Search)
	if !ok {
		return page, nil
	}
	where := "company_id = $1"
	args := []any{companyID}
	if term != "" {
		args = append(args, refLike(term))
		where += fmt.Sprintf(` AND search LIKE $%d ESCAPE '\'`, len(args))
	}
	if q.SkipCount {
		page.Count = -1
	} else if err := s.db.SQL.QueryRowContext(ctx, `SELECT count(*) FROM contacts WHERE `+where, args...).Scan(&page.Count); err != nil {
		return page, fmt.Errorf("count contacts of %d: %w", companyID, err)
	}
	tail := ""
	if q.Cursor != "" {
		afterName, afterID, err := decodeContactCursor(q.Cursor)
		if err != nil {
			return page, err
		}
		args = append(args, afterName, afterID)
		where += fmt.Sprintf(" AND (name_norm, id) > ($%d, $%d)", len(args)-1, len(args))
	} else if q.Offset > 0 {
		args = append(args, q.Offset)
		tail = fmt.Sprintf(" OFFSET $%d", len(args))
	}
	args = append(args, limit+1)
	query := fmt.Sprintf(`SELECT %s, name_norm FROM contacts WHERE %s ORDER BY name_norm, id LIMIT $%d%s`,
		contactCols, where, len(args), tail)
	rows, err := s.db.SQL.QueryContext(ctx, query, args...)
	if err != nil {
		return page, fmt.Errorf("list contacts of %d: %w", companyID, err)
	}
	defer rows.Close()
	var lastNorm []string
	for rows.Next() {
		var nameNorm string
		c, err := scanContact(rows, &nameNorm)
		if err != nil {
			return page, fmt.Errorf("list contacts of %d: %w", companyID, err)
		}
		page.Contacts = append(page.Contacts, c)
		lastNorm = append(lastNorm, nameNorm)
	}
	if err := rows.Err(); err != nil {
		return page, fmt.Errorf("list contacts of %d: %w", companyID, err)
	}
	rows.Close()
	if len(page.Contacts) > limit {
		page.Contacts = page.Contacts[:limit]
		page.HasMore = true
		last := page.Contacts[limit-1]
		page.NextCursor = encodeContactCursor(lastNorm[limit-1], last.ID)
	}
	if err := s.loadItems(ctx, s.db.SQL, companyID, page.Contacts); err != nil {
		return page, err
	}
	return page, nil
}

// A contact cursor is the keyset (name_norm, id) of the last contact of a page,
// base64url of "<id>:<name_norm>". Opaque to clients; it stays valid while contacts
// are added or removed (the next page starts after that key, wherever it now is).
func encodeContactCursor(nameNorm string, id engine.ID) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(id, 10) + ":" + nameNorm))
}

func decodeContactCursor(cursor string) (string, engine.ID, error) {
	bad := refFieldError("cursor", engine.MsgInvalidValue)
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return "", 0, bad
	}
	idText, nameNorm, found := strings.Cut(string(raw), ":")
	id, err := strconv.ParseInt(idText, 10, 64)
	if !found || err != nil || id <= 0 || !engine.StorableText(nameNorm) {
		return "", 0, bad
	}
	return nameNorm, id, nil
}

// Get implements engine.ContactStore.
func (s *Contacts) Get(ctx context.Context, companyID, id engine.ID) (engine.Contact, error) {
	return s.get(ctx, s.db.SQL, companyID, id)
}

func (s *Contacts) get(ctx context.Context, q refQuerier, companyID, id engine.ID) (engine.Contact, error) {
	c, err := scanContact(q.QueryRowContext(ctx,
		`SELECT `+contactCols+` FROM contacts WHERE id = $1 AND company_id = $2`, id, companyID))
	if errors.Is(err, sql.ErrNoRows) {
		return c, engine.E(engine.ErrNoContactFound)
	}
	if err != nil {
		return c, fmt.Errorf("get contact %d: %w", id, err)
	}
	list := []engine.Contact{c}
	if err := s.loadItems(ctx, q, companyID, list); err != nil {
		return c, err
	}
	return list[0], nil
}

// Create implements engine.ContactStore.
func (s *Contacts) Create(ctx context.Context, companyID engine.ID, in engine.ContactInput) (engine.Contact, error) {
	in, err := engine.ValidateContact(in)
	if err != nil {
		return engine.Contact{}, err
	}
	now := s.now()
	var out engine.Contact
	err = s.db.Tx(ctx, func(tx *sql.Tx) error {
		nameNorm := refFold(in.Name)
		var id engine.ID
		err := tx.QueryRowContext(ctx, `INSERT INTO contacts
			(company_id, name, name_norm, number, email, search, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id`,
			companyID, in.Name, nameNorm, in.Number, in.Email, contactSearch(nameNorm, in.Number, in.Email),
			s.ts(now)).Scan(&id)
		if db.IsUniqueViolation(err) {
			return engine.Wrap(engine.ErrDuplicatedContact, err)
		}
		if err != nil {
			return fmt.Errorf("insert contact: %w", err)
		}
		if err := s.replaceExtraInfo(ctx, tx, companyID, id, in.ExtraInfo); err != nil {
			return err
		}
		if err := s.replaceSalesOpps(ctx, tx, companyID, id, in.SalesOpps, now); err != nil {
			return err
		}
		out, err = s.get(ctx, tx, companyID, id)
		return err
	})
	return out, err
}

// Update implements engine.ContactStore. A contact of another tenant is not found
// before its input is even validated.
func (s *Contacts) Update(ctx context.Context, companyID, id engine.ID, in engine.ContactInput) (engine.Contact, error) {
	now := s.now()
	var out engine.Contact
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		if err := s.lock(ctx, tx, companyID, id); err != nil {
			return err
		}
		// A channel's address (webchat:<visitor>, a page-scoped id) is not a phone
		// number: sent back unchanged it is kept, so such contacts can be renamed.
		var current string
		if err := tx.QueryRowContext(ctx, `SELECT number FROM contacts WHERE id = $1 AND company_id = $2`,
			id, companyID).Scan(&current); err != nil {
			return fmt.Errorf("update contact %d: %w", id, err)
		}
		keep := current != "" && strings.TrimSpace(in.Number) == current && !allDigits(current)
		if keep {
			in.Number = ""
		}
		in, err := engine.ValidateContact(in)
		if err != nil {
			return err
		}
		if keep {
			in.Number = current
		}
		nameNorm := refFold(in.Name)
		_, err = tx.ExecContext(ctx, `UPDATE contacts SET name = $1, name_norm = $2, number = $3, email = $4,
			search = $5, updated_at = $6 WHERE id = $7 AND company_id = $8`,
			in.Name, nameNorm, in.Number, in.Email, contactSearch(nameNorm, in.Number, in.Email), s.ts(now),
			id, companyID)
		if db.IsUniqueViolation(err) {
			return engine.Wrap(engine.ErrDuplicatedContact, err)
		}
		if err != nil {
			return fmt.Errorf("update contact %d: %w", id, err)
		}
		if in.ExtraInfo != nil {
			if err := s.replaceExtraInfo(ctx, tx, companyID, id, in.ExtraInfo); err != nil {
				return err
			}
		}
		if in.SalesOpps != nil {
			if err := s.replaceSalesOpps(ctx, tx, companyID, id, in.SalesOpps, now); err != nil {
				return err
			}
		}
		out, err = s.get(ctx, tx, companyID, id)
		return err
	})
	return out, err
}

// lock checks that id is a contact of companyID and, on PostgreSQL, locks its row for
// the rest of the transaction (SQLite transactions already hold the write lock).
func (s *Contacts) lock(ctx context.Context, tx *sql.Tx, companyID, id engine.ID) error {
	query := `SELECT id FROM contacts WHERE id = $1 AND company_id = $2`
	if s.db.Dialect == db.Postgres {
		query += ` FOR UPDATE`
	}
	var got engine.ID
	err := tx.QueryRowContext(ctx, query, id, companyID).Scan(&got)
	if errors.Is(err, sql.ErrNoRows) {
		return engine.E(engine.ErrNoContactFound)
	}
	if err != nil {
		return fmt.Errorf("lock contact %d: %w", id, err)
	}
	return nil
}

// Delete implements engine.ContactStore.
func (s *Contacts) Delete(ctx context.Context, companyID, id engine.ID) error {
	res, err := s.db.SQL.ExecContext(ctx, `DELETE FROM contacts WHERE id = $1 AND company_id = $2`, id, companyID)
	if err != nil {
		return fmt.Errorf("delete contact %d: %w", id, err)
	}
	n, err := refAffected(res)
	if err != nil {
		return fmt.Errorf("delete contact %d: %w", id, err)
	}
	if n == 0 {
		return engine.E(engine.ErrNoContactFound)
	}
	return nil
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
