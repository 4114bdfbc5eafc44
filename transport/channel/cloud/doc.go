// Package cloud holds the plumbing the cloud channel adapters (meta, waba, telegram)
// share and that belongs to none of their providers: the end of a web-hook delivery
// (parse, hand to the connection actor's sink, answer 200 — or 503 with Retry-After
// when the node sheds load, 500 for other failures), storing an inbound media file,
// and the outbound side of a provider call whose outcome may be unknown (a send
// written in full whose answer was lost).
//
// Only the adapters under transport/channel import it. It imports engine,
// transport/jsonapi (the Publisher of Deps, the 503 body), transport/ingest (which
// failures are retryable refusals), zerolog and the standard library — never
// transport/http, which the layer test forbids to every channel adapter. Everything
// here is safe for concurrent use and holds no state of its own.
package cloud
