// Package whatsapp is the WhatsApp channel (engine.Channel and engine.CredentialWiper)
// over whatsmeow, the WhatsApp Web multi-device protocol.
//
// Devices (keys, sessions, contacts) live in whatsmeow's own tables of our database
// (its sqlstore on our *sql.DB, upgraded at start); whatsapp_devices maps each
// connection to its device and whatsapp_sent records the WhatsApp id generated for
// each of our outbound messages, so a retried send reuses its id.
//
// whatsmeow's event handler never blocks on us: messages, receipts and calls go to a
// bounded per-connection queue that one tracked goroutine drains into the sink; a
// full queue answers whatsmeow "not handled" for a message, which then goes
// unacknowledged and WhatsApp delivers it again on the next connection. Session
// events (QR codes, pairing, connected, logged out) go to an unbounded control list
// drained first, so they are never dropped.
//
// See docs/channels.md for statuses, pairing and limits.
package whatsapp
