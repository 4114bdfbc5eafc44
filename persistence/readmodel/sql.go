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

// maxParams bounds the placeholders of one multi-row statement, well under both
// dialects' limits (PostgreSQL 65535, SQLite 32766). The SQLite driver matches each
// placeholder to its argument by a linear search, so a statement's binding costs the
// square of its arguments: SQLite statements stay small.
func maxParams(d db.Dialect) int {
	if d == db.SQLite {
		return 600
	}
	return 8000
}

// idChunk is how many ids one IN list carries (see maxParams).
func idChunk(d db.Dialect) int {
	if d == db.SQLite {
		return 200
	}
	return 1000
}

// insertRows writes rows into table with one multi-row INSERT per chunk. exprs, when
// not nil, gives per column the SQL for its value with %s standing for the
// placeholder (e.g. "to_tsvector('simple', %s)"). suffix follows the VALUES list (ON
// CONFLICT …, RETURNING …); onRows, when not nil, receives the rows a RETURNING
// clause gives back.
func insertRows(ctx context.Context, q querier, d db.Dialect, table string, cols []string, exprs []string, rows [][]any, suffix string, onRows func(*sql.Rows) error) error {
	if len(rows) == 0 {
		return nil
	}
	per := max(1, maxParams(d)/len(cols))
	for start := 0; start < len(rows); start += per {
		chunk := rows[start:min(start+per, len(rows))]
		var a args
		var b strings.Builder
		fmt.Fprintf(&b, "INSERT INTO %s (%s) VALUES ", table, strings.Join(cols, ", "))
		for i, row := range chunk {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('(')
			for j, v := range row {
				if j > 0 {
					b.WriteString(", ")
				}
				ph := a.add(v)
				if d == db.SQLite {
					ph = "?" // positional: binds in linear time (see maxParams)
				}
				if exprs != nil && exprs[j] != "" {
					ph = fmt.Sprintf(exprs[j], ph)
				}
				b.WriteString(ph)
			}
			b.WriteByte(')')
		}
		b.WriteString(" ")
		b.WriteString(suffix)
		if onRows == nil {
			if _, err := q.ExecContext(ctx, b.String(), a.list...); err != nil {
				return fmt.Errorf("insert into %s: %w", table, err)
			}
			continue
		}
		rs, err := q.QueryContext(ctx, b.String(), a.list...)
		if err != nil {
			return fmt.Errorf("insert into %s: %w", table, err)
		}
		err = onRows(rs)
		if cerr := rs.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = rs.Err()
		}
		if err != nil {
			return fmt.Errorf("insert into %s: %w", table, err)
		}
	}
	return nil
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
