// Package dbtest gives tests a fresh, migrated database of each dialect: a temporary
// SQLite file, or a fresh schema in the shared database atende_test on the PostgreSQL
// server named by TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres),
// dropped when the test ends. A schema costs milliseconds where CREATE DATABASE costs
// seconds; connections select it through search_path. Migrations therefore must not
// create extensions or other database-wide objects. PostgreSQL being unreachable fails
// the test: the suite never passes by skipping its real-database half.
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"atende/persistence/db"
)

// DefaultAdminURL is the PostgreSQL server tests use when TEST_DATABASE_URL is unset.
const DefaultAdminURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// Dialects lists the dialects every conformance suite runs against.
var Dialects = []db.Dialect{db.SQLite, db.Postgres}

// Each runs fn once per dialect as a subtest, each with its own fresh database.
func Each(t *testing.T, fn func(t *testing.T, d *db.DB)) {
	t.Helper()
	for _, dialect := range Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			fn(t, Open(t, dialect))
		})
	}
}

// Open returns a fresh migrated database of the dialect, closed and removed when t ends.
func Open(t testing.TB, dialect db.Dialect) *db.DB {
	t.Helper()
	rawURL := URL(t, dialect)
	ctx := context.Background()
	d, err := db.Open(ctx, rawURL)
	if err != nil {
		t.Fatalf("open %s: %v", dialect, err)
	}
	t.Cleanup(func() { d.Close() })
	if _, err := d.Migrate(ctx); err != nil {
		t.Fatalf("migrate %s: %v", dialect, err)
	}
	return d
}

// URL creates an empty database of the dialect (not migrated) and returns its URL;
// it is dropped when t ends.
func URL(t testing.TB, dialect db.Dialect) string {
	t.Helper()
	switch dialect {
	case db.SQLite:
		return "sqlite:" + filepath.Join(t.TempDir(), "atende.db")
	case db.Postgres:
		return createPostgres(t, false)
	}
	t.Fatalf("unknown dialect %q", dialect)
	return ""
}

// DurableURL is URL for benchmarks that measure commit cost: on PostgreSQL its
// connections keep synchronous_commit on (URL turns it off to keep tests fast).
func DurableURL(t testing.TB, dialect db.Dialect) string {
	t.Helper()
	if dialect == db.Postgres {
		return createPostgres(t, true)
	}
	return URL(t, dialect)
}

// AdminURL is the PostgreSQL server URL tests create their databases on.
func AdminURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultAdminURL
}

// SharedDatabase is the database on the test server that holds the test schemas.
const SharedDatabase = "atende_test"

func createPostgres(t testing.TB, durable bool) string {
	t.Helper()
	admin := AdminURL()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("postgres at %s unreachable (run `make test`, which starts it): %v", admin, err)
	}
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, SharedDatabase).Scan(&exists); err != nil {
		conn.Close(context.Background())
		t.Fatalf("look up %s: %v", SharedDatabase, err)
	}
	if !exists {
		// Parallel test binaries may race to create it; losing the race is fine.
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+SharedDatabase); err != nil && !strings.Contains(err.Error(), "already exists") {
			conn.Close(context.Background())
			t.Fatalf("create database %s: %v", SharedDatabase, err)
		}
	}
	conn.Close(context.Background())

	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("parse %s: %v", admin, err)
	}
	u.Path = "/" + SharedDatabase
	shared := u.String()
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	sc, err := pgx.Connect(ctx, shared)
	if err != nil {
		t.Fatalf("connect %s: %v", SharedDatabase, err)
	}
	defer sc.Close(context.Background())
	if _, err := sc.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, shared)
		if err != nil {
			t.Logf("drop schema %s: %v", schema, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE"); err != nil {
			t.Logf("drop schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	if !durable {
		// Tests need correctness, not durability across a power cut: without waiting
		// for the WAL flush a commit costs a millisecond instead of tens.
		q.Set("synchronous_commit", "off")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// MustExec runs statements for test setup, failing the test on error.
func MustExec(t testing.TB, d *db.DB, query string, args ...any) {
	t.Helper()
	if _, err := d.SQL.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", fmt.Sprint(query), err)
	}
}
