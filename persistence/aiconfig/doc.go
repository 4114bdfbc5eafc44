// Package aiconfig keeps each tenant's AI endpoint (engine.AIConfig) and NLP intents
// (engine.AIIntent) on either SQL dialect, and implements engine.AIConfigStore.
//
// The endpoint's API key is sealed at rest with AES-256-GCM (Sealer) under a server
// key that never enters the database; the sealed value is bound to its tenant (the
// tenant id is the additional data), so a row copied to another tenant does not open.
// A key that no longer opens (the server key changed) reads as no key, and the page
// asks for it again; nothing here logs a key.
//
// A *Store is safe for concurrent use.
package aiconfig
