package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"atende/engine"
	"atende/persistence/db"
)

// Shared helpers of the reference-data stores (contacts, queues, tags, quick answers).

// refQuerier is what both *sql.DB and *sql.Tx offer, so reads can run in or out of a
// transaction.
type refQuerier = db.Querier

// refBase carries what every reference-data store needs.
type refBase struct {
	// static after construction
	db    *db.DB
	clock engine.Clock
}

func newRefBase(d *db.DB, clock engine.Clock) refBase {
	if clock == nil {
		clock = engine.SystemClock{}
	}
	return refBase{db: d, clock: clock}
}

// now is the clock's time in UTC, cut to microseconds (PostgreSQL's precision), so a
// row reads back equal to what was written on both dialects.
func (b refBase) now() time.Time { return b.clock.Now().UTC().Truncate(time.Microsecond) }

// refTimeLayout is how SQLite text columns hold times: fixed width, so that they sort
// as text in time order.
const refTimeLayout = "2006-01-02T15:04:05.000000Z"

// ts is t as a query argument: a time.Time for PostgreSQL, fixed-width UTC text for
// SQLite.
func (b refBase) ts(t time.Time) any {
	if b.db.Dialect == db.SQLite {
		return t.UTC().Format(refTimeLayout)
	}
	return t
}

// refTime scans a time column of either dialect: time.Time from PostgreSQL, text from
// SQLite (ours, or SQLite's own CURRENT_TIMESTAMP forms).
type refTime struct{ t *time.Time }

func (r refTime) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*r.t = time.Time{}
		return nil
	case time.Time:
		*r.t = v.UTC()
		return nil
	case string:
		return r.parse(v)
	case []byte:
		return r.parse(string(v))
	}
	return fmt.Errorf("scan time: unsupported %T", src)
}

func (r refTime) parse(s string) error {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			*r.t = t.UTC()
			return nil
		}
	}
	return fmt.Errorf("scan time: unparsable %q", s)
}

// refNullTime scans a nullable time column into a *time.Time (nil for NULL).
type refNullTime struct{ t **time.Time }

func (r refNullTime) Scan(src any) error {
	if src == nil {
		*r.t = nil
		return nil
	}
	var t time.Time
	if err := (refTime{&t}).Scan(src); err != nil {
		return err
	}
	*r.t = &t
	return nil
}

// refSep joins the parts of a search column. Folded text never contains it (refFold
// turns control characters into spaces), so a term cannot match across two parts.
const refSep = "\x1f"

// refMaxTerm is the longest search term, in characters, that can match anything:
// longer than any stored name, number or e-mail. A longer term matches nothing.
const refMaxTerm = 256

// refFold is the form names are compared and searched in: compatibility-decomposed,
// combining marks dropped, lower case, control characters and runs of white space
// turned into one space, trimmed. 'João  DA Silva' folds to 'joao da silva'. The
// result is valid UTF-8 without NUL, whatever the input.
func refFold(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range norm.NFKD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// refLike is the LIKE pattern (with ESCAPE '\') matching any text that contains
// term literally.
func refLike(term string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(term) + "%"
}

// refAffected is the count of an exec's changed rows.
func refAffected(res sql.Result) (int64, error) {
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("rows affected: %w", err)
	}
	return n, nil
}

// refPlaceholders returns "$from, $from+1, …" for n arguments.
func refPlaceholders(from, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d", from+i)
	}
	return b.String()
}

// refFieldError is an ErrValidation for one field.
func refFieldError(field, msg string) error {
	return &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{field: msg}}
}

// tenantRowExists answers nil when table has a row with id in the tenant, else the
// engine error code missing (ErrNoUserFound, ErrNoPlaceFound…). table is one of this
// package's constant table names, never outside input. Run inside a transaction, it
// checks the row the same transaction then refers to.
func tenantRowExists(ctx context.Context, q refQuerier, table string, companyID, id engine.ID, missing engine.Code) error {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM `+table+` WHERE id = $1 AND company_id = $2`, id, companyID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return engine.E(missing)
	}
	if err != nil {
		return fmt.Errorf("read %s %d: %w", table, id, err)
	}
	return nil
}

// scanRows reads every row of rows with scan and closes rows; what fails is wrapped
// with what (the read being done), so callers keep their own error context.
func scanRows[T any](rows *sql.Rows, what string, scan func(refScanner) (T, error)) ([]T, error) {
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}
