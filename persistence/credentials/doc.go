// Package credentials keeps the provider credentials of cloud channel connections
// (WABA, Facebook, Instagram, Telegram) on either SQL dialect: the provider's id that
// routes a web-hook to its connection (phone number id, page id, Instagram account id,
// bot id), an account id (WhatsApp business account, the Instagram account's page) and
// the secrets (access or bot token, web-hook secret).
//
// Secrets are for the channel adapters only: nothing in this package logs them, and
// engine.ChannelCredentials.String redacts them so a stray %v cannot leak one. The HTTP API never
// answers a Credentials value.
//
// Store implements engine.CredentialStore (the seam the channel adapters use). A *Store is safe for concurrent use.
package credentials
