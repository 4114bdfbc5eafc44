// Package httpapi is Atende's REST API (spec section 7): routing, authentication,
// error mapping, request limits, logs and metrics, and the handlers of every route.
//
// Conventions every handler file follows:
//
//   - Routes are registered in routes.go (and routes_ref.go for reference data) with
//     Go 1.22 ServeMux patterns: s.route("GET /users/{id}", s.authed(s.getUser)).
//   - An authenticated handler is func(w, r, engine.Principal) error wrapped by
//     s.authed; a public one is func(w, r) error wrapped by s.public.
//   - A handler returns an *engine.Error for anything the client should see; it is
//     written as {"error":"ERR_…","message":"ERR_…"} (plus "fields" for
//     ERR_VALIDATION) with the code's HTTP status. Any other error is a 500
//     {"error":"ERR_INTERNAL"}, logged with the request id.
//   - Bodies are read with decodeJSON (size-limited, strict), answers written with
//     writeJSON; path ids with pathID, query strings with queryString, queryInt,
//     queryBool and queryIDs; permissions checked with requirePermission.
//   - Every change emits a realtime event through s.publish(companyID, event, payload).
//   - The principal's tenant scopes every store call: a row of another tenant is
//     "not found", never "forbidden".
//
// Sessions (auth.go, authmw.go, package token):
//
//   - POST /auth/login answers {token, user} and sets the refresh token in the
//     httpOnly, SameSite=Strict cookie "jrt" (Path /auth). Passwords are bcrypt; an
//     unknown e-mail is compared against a dummy hash so it costs what a wrong
//     password does. Attempts are counted before the password is checked, per
//     (address, e-mail) pair with progressive delays and per client address under
//     a higher ceiling (Deps.PairLimiter, Deps.AddressLimiter); a refused attempt
//     is 429 ERR_TOO_MANY_ATTEMPTS with Retry-After, even with the right password.
//   - The access token is a short-lived HS256 JWT (see package token). Missing: 401
//     ERR_SESSION_EXPIRED; bad, expired or stale: 403 ERR_INVALID_TOKEN.
//   - Refresh tokens are single-use and stored as sha256. Each login starts a family;
//     POST /auth/refresh_token rotates the cookie and issues an access token with the
//     user's current profile and queues. A rotated token presented again revokes the
//     whole family (theft or a replay) and answers 401. Two tabs refreshing with the
//     same cookie at the same instant look like a replay too: the web client shares
//     one refresh per tab, and a tab that loses signs in again.
//   - DELETE /auth/logout revokes the cookie's family and clears the cookie.
//   - A password set by another user revokes every family of the target; one changed
//     by its owner keeps their sessions. Profile, queue and password changes bump the
//     user's token version, which refuses older access tokens (the client refreshes).
//
// Users and settings (users.go, settings.go): every profile of the tenant may read
// them; writes need users:manage / settings:manage, and a caller may only act on, or
// grant, profiles at most as privileged as their own (only super grants super). With
// the setting userCreation "disabled", only settings:manage holders create users.
//
// Handlers run concurrently, one goroutine per request (net/http); the Server holds
// no per-request state.
package httpapi
