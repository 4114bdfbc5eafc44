// Package db opens Atende's database — an embedded SQLite file by default, PostgreSQL
// when DATABASE_URL says so — and runs the versioned migrations of both dialects.
//
// Everything else in persistence takes a *DB. Queries use $1, $2… placeholders, which
// both dialects accept; where the SQL must differ, code branches on DB.Dialect.
// A *DB is safe for concurrent use. On SQLite, explicit transactions start IMMEDIATE
// (they take the write lock at BEGIN), so concurrent writers queue on busy_timeout
// instead of failing with SQLITE_BUSY on a lock upgrade.
package db
