// Package projection feeds read models (ticket list, message pages, counts, search)
// from the journal, in position order, exactly once.
//
// A Projection names itself and applies a batch of events inside a transaction the
// Runner opens; in that same transaction the Runner moves the projection's row of
// projection_checkpoints to the batch's last position. A batch is therefore applied
// whole with its checkpoint or not at all, and a crash between batches replays
// nothing twice. The journal's ReadAll only returns events below a high-water mark
// under which every position is final (see package journal), so tailing "position >
// checkpoint" never skips an event, even where the numbers have holes.
//
// # Who calls it
//
// cmd/atende builds one Runner with every projection, Starts it after migrating, and
// Closes it on shutdown. HTTP handlers call WaitFor with the position their append
// returned (engine.AppendResult.LastPosition) before reading a read model, so users
// read their own writes. Operators call Reset to rebuild a read model from position 0.
//
// # Concurrency
//
// Each projection has its own goroutine (started through a tracked helper, stopped by
// Close), so a slow or failing read model holds back only itself. A goroutine reads a
// page from the Source, applies it, and when it has caught up waits for the Source's
// Notify channel (local appends), a Reset, or PollInterval (appends by other nodes).
// A failing Apply is logged and retried with exponential backoff from the same
// position; the Runner never skips an event, so WaitFor for a later position waits
// until the projection is fixed (or its ctx ends).
//
// Several nodes may run the same projection: each batch's transaction locks the
// checkpoint row (SELECT … FOR UPDATE on PostgreSQL; SQLite has one writer) and only
// applies if the checkpoint is still where the batch was read from; otherwise it adopts
// the stored checkpoint and reads again. Work may be wasted, never doubled. Apply
// implementations must write only through the given tx and must not commit it.
//
// WaitFor, Reset and Status are safe for concurrent use.
package projection
