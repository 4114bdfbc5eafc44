// Package token issues and checks Atende's access tokens: short-lived JWTs (HS256)
// carrying the user id (sub), tenant (companyId), profile, queue ids and the user's
// token version. The REST API and the socket gateway share one *Service so that both
// refuse a token the moment a user changes on this node.
//
// Revocation: every check compares the token's version with the user row's, read
// through a small per-node cache (Config.CacheTTL, default 5 s). Changing a user's
// profile, queues or password bumps the version, and deleting the user removes the
// row; the node that made the change calls Forget, so it refuses old tokens at once,
// and other nodes within CacheTTL — at once when the OnForget hook tells them (they
// call ForgetLocal). A refused token answers ERR_INVALID_TOKEN (403): the
// client refreshes once and gets a token with the new claims, or — for a deleted
// user — is signed out.
//
// A *Service is safe for concurrent use.
package token
