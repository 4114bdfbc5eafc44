// Package store implements the engine's CRUD stores on both SQL dialects (SQLite and
// PostgreSQL through persistence/db): users, companies, settings and refresh tokens
// (user.go, company.go, setting.go, refreshtoken.go) and the reference data —
// contacts, queues, tags, quick answers (contact*.go, queue.go, tag.go,
// quickanswer.go) — with the helpers they share in ref_sql.go.
//
// Tenancy: every row carries company_id and every query filters by it; a row of
// another tenant is "not found". The exceptions are by design and named: login looks
// a user up by e-mail across tenants (e-mails are unique globally), and token checks
// read a user's tenant and token version by id.
//
// Times are TIMESTAMPTZ on PostgreSQL and fixed-width UTC text on SQLite (so they sort
// as text), cut to microseconds so a row reads back equal on both.
//
// Every store is safe for concurrent use; writes that touch several rows run in one
// transaction (db.Tx).
package store
