// Package connection stores channel connections (engine.ConnectionStore) and the
// per-contact ticket guard (engine.TicketGuard) on either SQL dialect.
//
// Safe for concurrent use. Every query that takes a tenant filters by it.
package connection
