// Package importwhaticket moves a whaticket-community installation into an Atende
// tenant: `atende import whaticket --from DSN` (cmd/atende/import.go) calls Run.
//
// It reads whaticket's tables (PostgreSQL or MySQL, source.go) and writes:
//
//   - reference data (queues, connections, users with their bcrypt hashes and
//     queues, tags, quick answers, settings, contacts with their custom fields)
//     through persistence/store and persistence/connection, as the REST API does;
//   - every ticket as one journal stream, each step judged by engine.DecideTicket on
//     the state folded so far (engine.EvolveTicket), as the ticket actor does, so the
//     projections build the read models from the events like any other ticket's.
//
// Table import_map maps each source row to what was made of it: a second run adds
// nothing, and an interrupted run continues. A ticket is claimed in import_map
// before its stream is written, and import_progress records through which source
// ticket id every claimed ticket is written whole (tickets come in id order, a batch
// at a time, and the mark moves after each batch); a claimed ticket found again
// is folded from its stream and decided again, and DecideTicket's de-duplication on
// the channel's message id (whaticket's message id) writes only what is missing.
//
// Throughput comes from group commit: tickets are decided in batches on one
// goroutine and each batch's streams are appended concurrently (Config.Workers), so
// the journal's committer writes many of them per transaction.
//
// Run is not meant to run twice at once against one tenant and source.
package importwhaticket
