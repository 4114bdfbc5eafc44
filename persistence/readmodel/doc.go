// Package readmodel holds the read models of tickets and messages — the ticket
// manager's lists, the chat screen's message pages, the badges, the notification bell
// and the search index — and the queries over them (engine.TicketQueries).
//
// Writers: only Projection, run by the projection Runner (persistence/projection),
// folds the journal's ticket streams ("ticket/<id>") into the tables tickets,
// ticket_tags, ticket_counts, messages and the word index (a tsvector column with a
// GIN index on PostgreSQL, the FTS5 table messages_fts on SQLite), inside the
// Runner's transaction. The ticket row is folded with engine.EvolveTicket itself, so
// the list shows exactly the state the ticket actor decided on. Every event is applied
// only if its stream version is above the row's version, so a batch applied twice
// changes nothing.
//
// Readers: Queries implements engine.TicketQueries. It reads the reference tables of
// persistence/store (contacts, users, queues, tags) by join, always within the
// caller's tenant. Queries is safe for concurrent use; Projection is called by one
// Runner goroutine at a time.
//
// Read models trail the journal: a handler that appended events and wants to read
// them back calls Runner.WaitFor(ctx, result.LastPosition()) first.
package readmodel
