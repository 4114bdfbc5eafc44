// Package schedule keeps scheduled messages and agenda tasks (table schedules) and
// fires them at their time on durable timers: River jobs (riverqueue/river) stored in
// the same database, inserted in the same transaction as the row that creates them
// and cancelled in the same transaction as the edit or delete that retires them.
//
// The fires are worked by the node's one River client (package jobs, which works
// every package's kinds; Scheduler.Kinds registers the fire worker). River hands each due job to exactly one client of the cluster (it locks
// the job row with FOR UPDATE SKIP LOCKED), retries a failed one with backoff and
// rescues a job whose node died while working it. A rescued or retried job may run a
// second time after its send: the send is made idempotent by the message id fixed in
// the schedule row when it is created, which a ticket records at most once (see
// docs/scheduling.md).
//
// A Scheduler is safe for concurrent use.
package schedule
