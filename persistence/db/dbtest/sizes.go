package dbtest

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// TableSizes is the size on disk of the tables of d's current PostgreSQL schema,
// indexes and TOAST included, and a list of those of 1 MB or more with their
// sizes, largest first.
func TableSizes(t testing.TB, d *sql.DB) (total int64, largest string) {
	t.Helper()
	rows, err := d.Query(`SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm') ORDER BY 2 DESC`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var big []string
	for rows.Next() {
		var name string
		var size int64
		if err := rows.Scan(&name, &size); err != nil {
			t.Fatal(err)
		}
		total += size
		if size >= 1e6 {
			big = append(big, fmt.Sprintf("%s %.1f MB", name, float64(size)/1e6))
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return total, strings.Join(big, ", ")
}
