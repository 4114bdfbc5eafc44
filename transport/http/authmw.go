package httpapi

import (
	"context"
	"net/http"
	"strings"

	"atende/engine"
)

const principalKey ctxKey = iota + 100

// PrincipalFrom returns the principal an authenticated request acts for.
func PrincipalFrom(ctx context.Context) (engine.Principal, bool) {
	p, ok := ctx.Value(principalKey).(engine.Principal)
	return p, ok
}

// authed adapts an authedFunc: it needs "Authorization: Bearer <token>". A missing
// token answers 401 ERR_SESSION_EXPIRED (the client signs out); a malformed, badly
// signed, expired or stale one 403 ERR_INVALID_TOKEN (the client refreshes once and
// retries). The principal is put in the request context too.
func (s *Server) authed(h authedFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := s.authenticate(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		ri := infoOf(r)
		ri.userID, ri.companyID = p.UserID, p.CompanyID
		r = r.WithContext(context.WithValue(r.Context(), principalKey, p))
		if err := h(w, r, p); err != nil {
			s.writeError(w, r, err)
		}
	})
}

func (s *Server) authenticate(r *http.Request) (engine.Principal, error) {
	raw, ok := bearer(r)
	if !ok {
		return engine.Principal{}, engine.E(engine.ErrSessionExpired)
	}
	if raw == "" {
		return engine.Principal{}, engine.E(engine.ErrInvalidToken)
	}
	return s.deps.Tokens.Authenticate(r.Context(), raw)
}

// bearer extracts the token of an "Authorization: Bearer …" header. ok is false when
// there is no Authorization header at all (or it is empty); a header of another
// scheme gives ok with an empty token (invalid, not missing).
func bearer(r *http.Request) (string, bool) {
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	if h == "" || strings.EqualFold(h, "Bearer") {
		return "", false
	}
	scheme, tok, found := strings.Cut(h, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", true
	}
	tok = strings.TrimSpace(tok)
	if tok == "" || tok == "null" || tok == "undefined" {
		// What a client with no stored token sends by mistake: treat as missing.
		return "", false
	}
	return tok, true
}
