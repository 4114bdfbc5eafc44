// Package readmodel holds the read models of tickets and messages — the ticket
// manager's lists, the chat screen's message pages, the badges, the notification bell
// and the word index — and the queries over them (engine.TicketQueries).
//
// Writers: only Projection, run by the projection Runner (persistence/projection),
// folds the journal's ticket streams ("ticket/<id>") into the tables tickets,
// ticket_tags, ticket_counts and messages, and into the word index (ticket_words, a
// per-ticket tsvector under GIN, on PostgreSQL; the FTS5 table messages_fts on
// SQLite), inside the Runner's transaction (migrations 0210–0212). The ticket row is
// folded with engine.EvolveTicket itself, so the list shows exactly the state the
// ticket actor decided on. An event is applied only if its stream version is above
// the row's version, so a batch applied twice changes nothing.
//
// Readers: Queries implements engine.TicketQueries. It joins the reference tables of
// persistence/store (contacts, users, queues, tags), always within the caller's
// tenant. A ticket page is a few index walks merged by UNION ALL (tickets_scope.go),
// so any page costs about the same at any depth; a search that matches little is
// read from its matching set instead (tickets_driven.go). Queries is safe for
// concurrent use; Projection is called by one Runner goroutine at a time.
//
// Read models trail the journal: a handler that appended events and wants to read
// them back calls Runner.WaitFor(ctx, result.LastPosition()) first.
package readmodel
