// Package seed fills a database with Atende's demo tenant: company 1 "Atende Demo",
// its staff (admin@atende.local / admin123; a supervisor, carla@atende.local, and two
// attendants, ana@ and bruno@atende.local, with password atende123; the hosting
// operator super@atende.local / super123, profile super), default settings,
// and — through the steps of ref.go — queues, tags, contacts and quick answers; then a
// web chat connection and, when ConversationDeps are given (`make run`), a Telegram
// connection and sample conversations in every state (conversations.go).
//
// Demo is idempotent: each step looks for what it would create and leaves existing
// rows (and any change made to them) alone, so `atende seed` may run on every start.
// Steps run in order, one at a time; Demo is not meant to run twice concurrently.
package seed
