package db

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// Execer runs statements: a *sql.DB, *sql.Tx or *sql.Conn.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// MaxParams bounds the placeholders of one multi-row statement, well under both
// dialects' limits (PostgreSQL 65535, SQLite 32766). The SQLite driver matches each
// placeholder to its argument by a linear search, so a statement's binding costs the
// square of its arguments: SQLite statements stay small.
func MaxParams(d Dialect) int {
	if d == SQLite {
		return 600
	}
	return 8000
}

// InsertRows writes rows into table with one multi-row INSERT per chunk of at most
// MaxParams arguments. table and cols are SQL as they are (quote them where they
// need it). exprs, when not nil, gives per column the SQL for its value with %s
// standing for the placeholder (e.g. "to_tsvector('simple', %s)"). suffix follows
// the VALUES list (ON CONFLICT …, RETURNING …); onRows, when not nil, receives the
// rows a RETURNING clause gives back.
func InsertRows(ctx context.Context, q Execer, d Dialect, table string, cols []string, exprs []string, rows [][]any, suffix string, onRows func(*sql.Rows) error) error {
	if len(rows) == 0 {
		return nil
	}
	per := max(1, MaxParams(d)/len(cols))
	for start := 0; start < len(rows); start += per {
		chunk := rows[start:min(start+per, len(rows))]
		list := make([]any, 0, len(chunk)*len(cols))
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
				list = append(list, v)
				ph := "?" // SQLite: positional, binds in linear time (see MaxParams)
				if d != SQLite {
					ph = "$" + strconv.Itoa(len(list))
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
			if _, err := q.ExecContext(ctx, b.String(), list...); err != nil {
				return fmt.Errorf("insert into %s: %w", table, err)
			}
			continue
		}
		rs, err := q.QueryContext(ctx, b.String(), list...)
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
