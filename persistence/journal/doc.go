// Package journal is Atende's event journal, engine.Journal on SQLite and PostgreSQL:
// table events (position, stream_id, version, type, data, metadata, company_id,
// recorded_at; UNIQUE (stream_id, version)) and table snapshots (the latest snapshot
// of each stream). New picks the implementation by the database's dialect; one
// conformance suite runs against both.
//
// On PostgreSQL, Compact moves quiet streams into table events_archive, one
// compressed row a stream; every reader reads both tables (compact_postgres.go).
//
// # Who calls it
//
// Actors append the events their aggregates decide and rebuild state from snapshot +
// ReadStream; the projection runner (persistence/projection) tails ReadAll and waits
// on Notify. Everyone else reads read models, not the journal.
//
// # Concurrency
//
// A Store is safe for concurrent use. Append validates the events (type, UTF-8 JSON
// data and metadata, Config.MaxEventSize) and queues them for one committer goroutine,
// which takes every append queued at that moment (up to Config.MaxBatch events) and
// commits them, many streams at once, in one transaction: group commit. An append that
// finds the journal idle is committed at once; under load the appends that arrive
// during one commit's fsync ride the next one, and the committer lingers up to
// Config.MaxWait for the appenders the previous batch just answered (without that,
// closed-loop callers split into two alternating half-size batches). Inside the
// transaction each append's expected version is checked against the stream's current
// version (read with one query for the batch's streams) in arrival order, so a stale
// append fails with *engine.ConflictError while the rest of its batch commits. UNIQUE
// (stream_id, version) is the last line of defence: if the database refuses a batch
// (a unique violation means something wrote around the check; a data error, one
// payload it would not take), the batch is re-run one append per transaction, and only
// the offender fails. Stats counts transactions, appends and retries.
//
// Close stops taking appends, commits the queued ones and stops the goroutines; a
// process that dies instead loses only appends that were not yet acknowledged.
//
// # Positions and ordering
//
// Readers tailing ReadAll (projections, the realtime publisher) checkpoint on one
// position and must never skip an event: once a reader has read position p, no event
// may later become visible below p. What "gapless" means, on both dialects: the read
// order has no holes — every reader sees every committed event exactly once, all in
// the same order (position order), and positions are the same on every node. The
// numbers themselves may have holes on PostgreSQL (a rolled-back or refused batch
// burns the positions it took); no reader ever waits for or depends on a number.
//
//   - SQLite: the transaction is BEGIN IMMEDIATE, which takes the database's single
//     write lock before the head is read; positions are head+1, head+2, …. One writer
//     at a time, positions in commit order and without holes, and a WAL reader's
//     snapshot is always a prefix.
//
//   - PostgreSQL: committers of every node run in parallel; no lock is shared between
//     appends of different streams. Three things make the read order safe:
//
//     1. Every group-commit transaction does, in this order, in its first pipeline:
//     read the fence F = the position sequence's last handed-out value; have its
//     transaction id X assigned (pg_current_xact_id()); read its streams' versions;
//     take its positions with nextval (migration 0900: events_position_seq, CACHE
//     1). Every row stores X (transaction_id) and F (fence).
//     2. Hence the fence property: every position ≤ F was taken before F was read, by a
//     transaction that had its id before it took it, so with an id lower than X.
//     A reader's own fence (takeFence: read the sequence, then have an id N
//     assigned, commit) has the same property for (N, F).
//     3. PostgreSQL assigns transaction ids in increasing order, and
//     pg_snapshot_xmin(pg_current_snapshot()) is the oldest id still running when
//     a statement's snapshot was taken: every transaction with a lower id has
//     committed (and is visible to that snapshot) or rolled back, for good.
//
//     So if a snapshot finds a fence (X, F) with X below its xmin — a committed row's,
//     or one the reader took — every transaction holding a position ≤ F has ended: the
//     positions ≤ F are final, and that snapshot sees exactly the committed ones. F is a
//     high-water mark. ReadAll returns only events at or below the highest mark it can
//     prove (highwater_postgres.go: the newest finished rows' fences, else a fence of
//     its own), in position order; any event it returns later has a higher position,
//     because every lower one was already final. A mark once proven stays valid, so
//     each node keeps the highest it has seen.
//
//     The price: a reader sees a commit only once every transaction that started
//     before its fence has ended. Normally that is a commit latency. A transaction
//     left open — a stalled node mid-append (TestStalledAppendHoldsReadersNotWriters),
//     but also any long write transaction on the same PostgreSQL server, since
//     transaction ids are server-wide — holds every reader back until it ends (the
//     database sessions' idle_in_transaction_session_timeout bounds that), while every
//     other node's appends keep committing and being acknowledged. ReadAll waits up to
//     Config.ReadWait for such a transaction before it returns an empty page. A
//     reader takes a fence of its own only when the newest finished rows' fences do
//     not cover what is committed (typically the last batch when the journal goes
//     quiet); each is one short transaction that consumes a transaction id.
//
//     Per-stream optimistic concurrency stays exact without the lock: two committers
//     that read the same version of one stream both insert (stream, version+1); UNIQUE
//     (stream_id, version) makes the second wait for the first and then fail, and the
//     append is re-run alone (tryAlone), reading the new version: an exact expected
//     version then fails with *engine.ConflictError, AnyVersion takes the next version.
//     Positions are taken after the versions are read, so the transaction that wrote
//     the version read had taken its positions before: within a stream, positions
//     increase with versions even when two nodes append to it at once (the ordering
//     test checks it).
//
// The rejected alternatives: keep the cluster-wide pg_advisory_xact_lock (what the
// journal did until migration 0900: positions head+1 in commit order, but a node
// stalled inside its transaction — SIGSTOP, GC pause, partition — stopped every write
// of the cluster); checkpoint readers on (transaction id, position) (correct, but every
// consumer and every socket client would need a pair instead of one number, and the
// read order would not be position order); positions derived from the transaction id
// (lock-free, but sparse huge numbers where clients and the realtime backlog count
// positions). BenchmarkAppendThreePools compares the lock and the parallel journal
// side by side.
//
// On PostgreSQL each batch also runs pg_notify('atende_journal', last position) and a
// listener connection turns other nodes' notifications into Notify wake-ups; readers
// still poll, since a notification is lost while the listener reconnects.
//
// # Hot path on PostgreSQL
//
// A batch is two pipelined round trips on the native pgx pool: [BEGIN ISOLATION LEVEL
// READ COMMITTED (versions read with a fresh snapshot, whatever the server default),
// fence, transaction id, positions, versions] and [INSERT … SELECT FROM
// unnest(arrays), pg_notify, COMMIT]. The commit waits for the WAL flush (synchronous_commit as
// configured on the server, on by default); an append is acknowledged only after it.
// The unnest insert beat one INSERT per row in the same pipeline by 1.2–1.9× in the
// same runs (BenchmarkAppendGroupCommit postgres-unnest vs postgres-pipeline).
package journal
