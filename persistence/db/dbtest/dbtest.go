// Package dbtest gives tests a fresh, migrated database of each dialect: a temporary
// SQLite file, or a new PostgreSQL database created on the server named by
// TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) and dropped
// when the test ends. PostgreSQL being unreachable fails the test: the suite never
// passes by skipping its real-database half.
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
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
		return createPostgres(t)
	}
	t.Fatalf("unknown dialect %q", dialect)
	return ""
}

// AdminURL is the PostgreSQL server URL tests create their databases on.
func AdminURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultAdminURL
}

func createPostgres(t testing.TB) string {
	t.Helper()
	admin := AdminURL()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("postgres at %s unreachable (run `make test`, which starts it): %v", admin, err)
	}
	defer conn.Close(context.Background())
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "atende_test_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Logf("drop database %s: %v", name, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("parse %s: %v", admin, err)
	}
	u.Path = "/" + name
	return u.String()
}

// MustExec runs statements for test setup, failing the test on error.
func MustExec(t testing.TB, d *db.DB, query string, args ...any) {
	t.Helper()
	if _, err := d.SQL.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", fmt.Sprint(query), err)
	}
}
