package httpapi

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	"golang.org/x/crypto/bcrypt"

	"atende/engine"
)

// RefreshCookie is the name of the httpOnly cookie carrying the refresh token. Its
// Path is /auth, so the browser sends it only to the auth routes.
const RefreshCookie = "jrt"

const refreshCookiePath = "/auth"

// Rate-limit key prefixes of the login limiters.
const (
	keyLoginAccount = "login:account:"
	keyLoginAddress = "login:address:"
)

// authResponse is the answer of login and refresh.
type authResponse struct {
	Token string   `json:"token"`
	User  userView `json:"user"`
}

// login: POST /auth/login {email, password}. Wrong e-mail or password is 401
// ERR_INVALID_CREDENTIALS, indistinguishable in body and timing; too many failures
// for the e-mail or the client address is 429 ERR_TOO_MANY_ATTEMPTS.
func (s *Server) login(w http.ResponseWriter, r *http.Request) error {
	var in engine.LoginInput
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	in, err := engine.ValidateLogin(in)
	if err != nil {
		return err
	}
	ctx := r.Context()
	keys := []struct {
		lim engine.RateLimiter
		key string
	}{
		{s.deps.AccountLimiter, keyLoginAccount + in.Email},
		{s.deps.AddressLimiter, keyLoginAddress + s.clientAddr(r)},
	}
	for _, k := range keys {
		ok, err := k.lim.Allow(ctx, k.key)
		if err != nil {
			return fmt.Errorf("login rate limit %s: %w", k.key, err)
		}
		if !ok {
			return engine.E(engine.ErrTooManyAttempts)
		}
	}
	u, err := s.deps.Users.ByEmail(ctx, in.Email)
	found := err == nil
	if err != nil && engine.CodeOf(err) != engine.ErrNoUserFound {
		return fmt.Errorf("login: %w", err)
	}
	hash := s.dummyHash
	if found {
		hash = []byte(u.PasswordHash)
	}
	// Always one bcrypt comparison, so an unknown e-mail costs what a wrong password does.
	match := bcrypt.CompareHashAndPassword(hash, []byte(in.Password)) == nil
	if !found || !match {
		for _, k := range keys {
			if err := k.lim.Fail(ctx, k.key); err != nil {
				return fmt.Errorf("login rate limit %s: %w", k.key, err)
			}
		}
		s.reqLog(r).Info().Str("remote", s.clientAddr(r)).Msg("login refused")
		return engine.E(engine.ErrInvalidCredentials)
	}
	if err := s.deps.AccountLimiter.Reset(ctx, keys[0].key); err != nil {
		return fmt.Errorf("login rate limit reset: %w", err)
	}
	now := s.clock.Now()
	raw, hashHex, err := newRefreshToken()
	if err != nil {
		return err
	}
	family, err := randomHex(16)
	if err != nil {
		return err
	}
	if _, err := s.deps.RefreshTokens.Insert(ctx, engine.RefreshToken{
		CompanyID: u.CompanyID,
		UserID:    u.ID,
		FamilyID:  family,
		TokenHash: hashHex,
		ExpiresAt: now.Add(s.cfg.RefreshTTL),
		CreatedAt: now,
	}); err != nil {
		return fmt.Errorf("login: store refresh token: %w", err)
	}
	return s.answerSession(w, r, u, family, raw, now)
}

// refresh: POST /auth/refresh_token with the refresh cookie. The token is single-use:
// it is rotated (a new cookie is set) and a new access token issued with the user's
// current profile and queues. A missing, unknown, expired or revoked token is 401
// ERR_SESSION_EXPIRED; a token presented a second time revokes its whole family
// (every session rotated from that login) and is 401 too.
func (s *Server) refresh(w http.ResponseWriter, r *http.Request) error {
	c, err := r.Cookie(RefreshCookie)
	if err != nil || c.Value == "" {
		return engine.E(engine.ErrSessionExpired)
	}
	ctx := r.Context()
	now := s.clock.Now()
	raw, hashHex, err := newRefreshToken()
	if err != nil {
		return err
	}
	rt, err := s.deps.RefreshTokens.Rotate(ctx, hashToken(c.Value), hashHex, now, now.Add(s.cfg.RefreshTTL))
	if err != nil {
		if engine.CodeOf(err) == engine.ErrSessionExpired {
			s.clearRefreshCookie(w)
			if errors.Is(err, engine.ErrRefreshReused) {
				s.reqLog(r).Warn().Str("remote", s.clientAddr(r)).Msg("refresh token reused: family revoked")
			}
		}
		return err
	}
	u, err := s.deps.Users.Get(ctx, rt.CompanyID, rt.UserID)
	if err != nil {
		if engine.CodeOf(err) == engine.ErrNoUserFound {
			_, _ = s.deps.RefreshTokens.RevokeFamily(ctx, hashHex, now)
			s.clearRefreshCookie(w)
			return engine.E(engine.ErrSessionExpired)
		}
		return fmt.Errorf("refresh: %w", err)
	}
	return s.answerSession(w, r, u, rt.FamilyID, raw, now)
}

// logout: DELETE /auth/logout revokes the refresh cookie's family, ends the session
// (its access tokens are refused and its sockets closed, on every node: see
// token.Service.Logout) and clears the cookie. It needs no access token (an expired
// one must still be able to log out) and answers 204 even without a cookie.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(RefreshCookie); err == nil && c.Value != "" {
		ctx, now := r.Context(), s.clock.Now()
		rt, err := s.deps.RefreshTokens.RevokeFamily(ctx, hashToken(c.Value), now)
		if err != nil {
			return fmt.Errorf("logout: %w", err)
		}
		if rt.FamilyID != "" {
			if err := s.deps.Tokens.Logout(ctx, rt.UserID, rt.FamilyID); err != nil {
				// The session's sockets still end at its access token's expiry.
				s.reqLog(r).Warn().Err(err).Int64("user_id", rt.UserID).Msg("logout not announced to the other nodes")
			}
		}
	}
	s.clearRefreshCookie(w)
	writeJSON(w, http.StatusNoContent, nil)
	return nil
}

// answerSession issues an access token for u in session (its refresh family), sets the refresh cookie and answers.
func (s *Server) answerSession(w http.ResponseWriter, r *http.Request, u engine.User, session, refreshRaw string, now time.Time) error {
	tok, err := s.deps.Tokens.IssueSession(u, session)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{
		Name:     RefreshCookie,
		Value:    refreshRaw,
		Path:     refreshCookiePath,
		Expires:  now.Add(s.cfg.RefreshTTL),
		MaxAge:   int(s.cfg.RefreshTTL / time.Second),
		HttpOnly: true,
		Secure:   s.cookieSecure(),
		SameSite: s.cookieSameSite(),
	})
	infoOf(r).userID, infoOf(r).companyID = u.ID, u.CompanyID
	writeJSON(w, http.StatusOK, authResponse{Token: tok, User: viewUser(u)})
	return nil
}

func (s *Server) clearRefreshCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{
		Name:     RefreshCookie,
		Value:    "",
		Path:     refreshCookiePath,
		MaxAge:   -1,
		HttpOnly: true,
		Secure:   s.cookieSecure(),
		SameSite: s.cookieSameSite(),
	})
}

// newRefreshToken returns a fresh random token (256 bits, base64url) and its hash.
func newRefreshToken() (raw, hash string, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", fmt.Errorf("refresh token: %w", err)
	}
	raw = base64.RawURLEncoding.EncodeToString(b[:])
	return raw, hashToken(raw), nil
}

// hashToken is the stored form of a refresh token: hex sha256. The token has 256 bits
// of entropy, so a plain hash (no salt, no stretching) is enough.
func hashToken(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// hashPassword hashes a new password with the configured bcrypt cost.
func (s *Server) hashPassword(pw string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(pw), s.cfg.BcryptCost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}
