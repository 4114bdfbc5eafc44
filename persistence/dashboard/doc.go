// Package dashboard keeps the supervisors' dashboard (/tableaux) as counters folded
// from the journal, and adds satisfaction answers to the contacts.
//
// Projection folds the ticket streams into dash_tickets (what the fold must remember of
// each ticket: when it opened, where it is counted, whether an attendant answered it)
// and dash_buckets (counters per tenant, period, metric, queue, attendant and channel).
// Each change is written at four grains — calendar day, ISO week, month and year in
// the tenant's time zone — so Queries sums a range from at most nine runs of periods
// (Cover), at most 6+6 days at each edge: a ten-year range reads about as many rows
// as a month. Latencies (first
// response, resolution) are histograms with geometric buckets (Bucket), which add up
// across periods and queues; the median and 90th percentile are read from the summed
// buckets, within the buckets' precision (about 12%).
//
// AppraisalProjection adds each ticket.rated answer to its contact's appraisalData,
// exactly once (the Runner applies a batch with its checkpoint in one transaction).
//
// # Who calls it
//
// cmd/atende registers both projections with the projection Runner and serves
// Queries through GET /dashboard. The benchmark builds a large read model with Folder
// and WriteDeltas directly.
//
// # Concurrency
//
// Apply runs on the Runner's goroutine of its projection; Queries is safe for
// concurrent use (it only reads).
package dashboard
