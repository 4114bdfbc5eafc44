package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"atende/engine"
)

// What channels need of contacts: find-or-create by number, and satisfaction sums.

// maxChannelNumber bounds the provider number or id FindOrCreateByNumber accepts.
const maxChannelNumber = 100

// FindOrCreateByNumber implements engine.ContactStore. The insert is
// ON CONFLICT DO NOTHING on the tenant's unique number index, so concurrent callers
// for one number all end on the same row: the one whose insert lands creates it, the
// others read it. Should the row vanish between the conflict and the read (deleted
// meanwhile), the loop tries again.
func (s *Contacts) FindOrCreateByNumber(ctx context.Context, companyID engine.ID, number, name string) (engine.Contact, bool, error) {
	number = strings.TrimSpace(number)
	switch {
	case number == "":
		return engine.Contact{}, false, refFieldError("number", engine.MsgRequired)
	case len(number) > maxChannelNumber || !utf8.ValidString(number) ||
		strings.ContainsFunc(number, func(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) }):
		return engine.Contact{}, false, refFieldError("number", engine.MsgInvalidNumber)
	}
	name = channelName(name, number)
	nameNorm := refFold(name)
	for range 3 {
		now := s.now()
		var id engine.ID
		err := s.db.SQL.QueryRowContext(ctx, `INSERT INTO contacts
			(company_id, name, name_norm, number, search, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $6)
			ON CONFLICT (company_id, number) WHERE number <> '' DO NOTHING
			RETURNING id`,
			companyID, name, nameNorm, number, contactSearch(nameNorm, number, ""), s.ts(now)).Scan(&id)
		switch {
		case err == nil:
			c, err := s.Get(ctx, companyID, id)
			return c, true, err
		case !errors.Is(err, sql.ErrNoRows):
			return engine.Contact{}, false, fmt.Errorf("find or create contact %s: %w", number, err)
		}
		err = s.db.SQL.QueryRowContext(ctx, `SELECT id FROM contacts WHERE company_id = $1 AND number = $2`,
			companyID, number).Scan(&id)
		switch {
		case err == nil:
			c, err := s.Get(ctx, companyID, id)
			if engine.CodeOf(err) == engine.ErrNoContactFound {
				continue
			}
			return c, false, err
		case !errors.Is(err, sql.ErrNoRows):
			return engine.Contact{}, false, fmt.Errorf("find contact %s: %w", number, err)
		}
	}
	return engine.Contact{}, false, fmt.Errorf("find or create contact %s: row keeps vanishing", number)
}

// FindByNumber implements engine.ContactStore.
func (s *Contacts) FindByNumber(ctx context.Context, companyID engine.ID, number string) (engine.Contact, error) {
	number = strings.TrimSpace(number)
	if number == "" || len(number) > maxChannelNumber {
		return engine.Contact{}, engine.E(engine.ErrNoContactFound)
	}
	var id engine.ID
	err := s.db.SQL.QueryRowContext(ctx, `SELECT id FROM contacts WHERE company_id = $1 AND number = $2`,
		companyID, number).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return engine.Contact{}, engine.Wrap(engine.ErrNoContactFound, fmt.Errorf("contact %q", number))
	}
	if err != nil {
		return engine.Contact{}, fmt.Errorf("find contact %s: %w", number, err)
	}
	return s.Get(ctx, companyID, id)
}

// channelName makes a provider's display name storable: control characters become
// spaces, runs of spaces one, at most engine.NameMax characters; empty (or a single
// character) falls back to engine.ContactFallbackName: the phone number, or
// "Visitante 1234" for a provider's id (web chat, Facebook, Instagram, Telegram).
func channelName(name, number string) string {
	name = strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, engine.SanitizeText(name))), " ")
	if utf8.RuneCountInString(name) > engine.NameMax {
		name = strings.TrimSpace(string([]rune(name)[:engine.NameMax]))
	}
	if utf8.RuneCountInString(name) < engine.NameMin {
		return engine.ContactFallbackName(number)
	}
	return name
}

// AddAppraisal implements engine.ContactStore.
func (s *Contacts) AddAppraisal(ctx context.Context, companyID, contactID engine.ID, score int) error {
	if score < 1 || score > 3 {
		return refFieldError("score", engine.MsgInvalidValue)
	}
	res, err := s.db.SQL.ExecContext(ctx, `UPDATE contacts
		SET appraisal_sum = appraisal_sum + $1, appraisal_count = appraisal_count + 1, updated_at = $2
		WHERE id = $3 AND company_id = $4`, score, s.ts(s.now()), contactID, companyID)
	if err != nil {
		return fmt.Errorf("add appraisal to contact %d: %w", contactID, err)
	}
	n, err := refAffected(res)
	if err != nil {
		return fmt.Errorf("add appraisal to contact %d: %w", contactID, err)
	}
	if n == 0 {
		return engine.E(engine.ErrNoContactFound)
	}
	return nil
}
