// Package netlimit holds the limits that keep one client from taking a node down:
// caps on concurrent connections per client address and in total, a bounded rate
// of new connections (Gate), a minimum request-body rate (BodyRate), and keyed
// token buckets (Buckets) for rates counted per address or per resource.
//
// The realtime gateway (transport/socket) and the web chat (transport/channel/
// webchat) pass every websocket handshake through a Gate before upgrading it;
// cmd/atende wraps the whole HTTP handler in BodyRate. docs/security.md lists every
// limit, its default and the setting that tunes it.
//
// # Concurrency
//
// Gate, Buckets and the handler BodyRate returns are safe for concurrent use and
// start no goroutines: idle entries are swept while new ones are added, so a flood of
// distinct addresses cannot grow memory beyond what their own limits allow.
package netlimit
