package readmodel

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// querier is what *sql.DB and *sql.Tx both offer.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// timeLayout is how SQLite columns hold times: fixed-width UTC text, which sorts in
// time order and reads back to the same microsecond.
const timeLayout = "2006-01-02T15:04:05.000000Z"

// tsArg is t as a query argument of dialect d.
func tsArg(d db.Dialect, t time.Time) any {
	t = t.UTC().Truncate(time.Microsecond)
	if d == db.SQLite {
		return t.Format(timeLayout)
	}
	return t
}

// timeCol scans a time column of either dialect into a UTC time.Time.
type timeCol struct{ t *time.Time }

func (c timeCol) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*c.t = time.Time{}
		return nil
	case time.Time:
		*c.t = v.UTC()
		return nil
	case string:
		return c.parse(v)
	case []byte:
		return c.parse(string(v))
	}
	return fmt.Errorf("scan time: unsupported %T", src)
}

func (c timeCol) parse(s string) error {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			*c.t = t.UTC()
			return nil
		}
	}
	return fmt.Errorf("scan time: unparsable %q", s)
}

// args collects query arguments and hands out their placeholders. A placeholder may
// be used more than once in a query (both dialects accept a repeated $n).
type args struct{ list []any }

// add appends v and returns its placeholder.
func (a *args) add(v any) string {
	a.list = append(a.list, v)
	return "$" + strconv.Itoa(len(a.list))
}

// ids appends every id and returns "$i, $j, …"; an empty list gives "".
func (a *args) ids(ids []engine.ID) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.add(id))
	}
	return b.String()
}

// inList is "col IN (…)" over ids, or FALSE for an empty list (IN () is not SQL).
func (a *args) inList(col string, ids []engine.ID) string {
	if len(ids) == 0 {
		return "FALSE"
	}
	if len(ids) == 1 {
		return col + " = " + a.add(ids[0])
	}
	return col + " IN (" + a.ids(ids) + ")"
}

// idChunk is how many ids one IN list carries (see db.MaxParams).
func idChunk(d db.Dialect) int {
	if d == db.SQLite {
		return 200
	}
	return 1000
}

// chunks splits ids into slices of at most n.
func chunks(ids []engine.ID, n int) [][]engine.ID {
	var out [][]engine.ID
	for len(ids) > n {
		out = append(out, ids[:n])
		ids = ids[n:]
	}
	if len(ids) > 0 {
		out = append(out, ids)
	}
	return out
}
