// Package ingest is the admission control of a node's inbound channel traffic: how
// many customer messages and receipts may be on their way to the connection actors
// at once, and what a sender is told when the node cannot take one more.
//
// A Limiter counts the inbound calls in flight on this node, in total and per
// connection (the connection actor handles one message at a time, so one busy
// connection must not take every place). A call that finds no place waits in a
// bounded queue for at most Config.Wait; a full queue, or a wait that ran out, is
// refused at once with ERR_UNAVAILABLE whose cause is an *Overload carrying a
// Retry-After. A call that got in but came back ERR_UNAVAILABLE — the actor did
// not answer within its timeout (a database stall), or could not be reached — is
// answered the same way. Transports read the refusal through Retryable:
//
//   - the provider web-hooks (transport/channel/cloud.Deliver) answer 503 with a
//     Retry-After header, and the provider delivers again;
//   - the web chat answers an error frame {"code":"ERR_UNAVAILABLE","retryAfter":n}
//     and the widget keeps the message and sends it again after that wait.
//
// Redeliveries are harmless: the connection actor de-duplicates on the provider
// message id. docs/channels.md ("Overload and load shedding") has the defaults and
// the settings that tune them.
//
// Limiter.Sink wraps an engine.ChannelSink with all of the above, so an adapter
// needs nothing more than the wrapped sink. A nil *Limiter admits everything but
// still turns a stall inside into a retryable refusal.
//
// # Concurrency
//
// A Limiter is safe for concurrent use and starts no goroutines: a waiting call
// waits in its own goroutine, and each release hands its place to the oldest
// waiter it fits. Every place is given back once the call ends — by returning,
// by panicking or by its context ending — so load that drops frees the Limiter
// with no operator action.
package ingest
