package httpapi

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"golang.org/x/crypto/bcrypt"

	"atende/engine"
	"atende/transport/http/token"
)

// RefreshCookie is the name of the httpOnly cookie carrying the refresh token. Its
// Path is /auth, so the browser sends it only to the auth routes.
const RefreshCookie = "jrt"

const refreshCookiePath = "/auth"

// Rate-limit key prefixes of the login limiters.
const (
	keyLoginPair    = "login:pair:"
	keyLoginAddress = "login:address:"
)

// The login limits (docs/security.md, "Login limits"). LoginPairPolicy slows down
// guessing at one account from one address: 5 attempts at once, then 30 s after the
// 5th failure, doubling with each further one up to 15 min; failures are forgotten
// 24 h after they happened, and a success forgets them all. It never locks out the
// same account from another address, so a guesser cannot lock its owner out.
// LoginAddressPolicy is a higher ceiling per client address whatever the account:
// 100 failures within 15 min, then the next waits for the oldest to leave the
// window (an office behind one address shares it; successes do not count).
var (
	LoginPairPolicy    = engine.AttemptPolicy{Window: 24 * time.Hour, Free: 5, Delay: 30 * time.Second, MaxDelay: 15 * time.Minute}
	LoginAddressPolicy = engine.AttemptPolicy{Window: 15 * time.Minute, Limit: 100}
)

// authResponse is the answer of login and refresh.
type authResponse struct {
	Token string   `json:"token"`
	User  userView `json:"user"`
}

// tooManyBody is the 429 answer of login: the error body and the whole seconds to
// wait before the next attempt may go (also in the Retry-After header).
type tooManyBody struct {
	errorBody
	RetryAfter int64 `json:"retryAfter"`
}

// login: POST /auth/login {email, password}. Wrong e-mail or password is 401
// ERR_INVALID_CREDENTIALS, indistinguishable in body and timing. Each attempt is
// counted before the password is checked (engine.AttemptLimiter.Reserve), per client
// address and per (e-mail, address) pair; an attempt either limit refuses is 429
// ERR_TOO_MANY_ATTEMPTS with Retry-After and runs no bcrypt. A success forgets the
// pair's failures and takes its own attempt back from the address count.
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
	addr := s.clientAddr(r)
	addrKey, pairKey := keyLoginAddress+addr, keyLoginPair+addr+" "+in.Email
	addrID, wait, err := s.deps.AddressLimiter.Reserve(ctx, addrKey)
	if err != nil {
		return fmt.Errorf("login rate limit %s: %w", addrKey, err)
	}
	if wait > 0 {
		return s.tooManyAttempts(w, r, wait)
	}
	// A failure keeps the pair's attempt counted; a success resets the whole pair.
	_, wait, err = s.deps.PairLimiter.Reserve(ctx, pairKey)
	if err != nil || wait > 0 {
		// Not tried: the address does not pay for it.
		if rerr := s.deps.AddressLimiter.Release(ctx, addrKey, addrID); rerr != nil {
			s.reqLog(r).Warn().Err(rerr).Msg("login rate limit: release")
		}
		if err != nil {
			return fmt.Errorf("login rate limit %s: %w", pairKey, err)
		}
		return s.tooManyAttempts(w, r, wait)
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
		// Both attempts stay counted.
		s.reqLog(r).Info().Str("remote", addr).Msg("login refused")
		return engine.E(engine.ErrInvalidCredentials)
	}
	if err := s.deps.PairLimiter.Reset(ctx, pairKey); err != nil {
		return fmt.Errorf("login rate limit reset: %w", err)
	}
	// Told only to who knows the password: a disabled tenant's users cannot log in.
	if err := s.tenantDisabled(ctx, u.CompanyID); err != nil {
		return err
	}
	if err := s.deps.AddressLimiter.Release(ctx, addrKey, addrID); err != nil {
		return fmt.Errorf("login rate limit release: %w", err)
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
// (every token rotated from that login), ends the session as logout does (its access
// tokens and sockets stop working at once) and is 401 too.
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
				// A stolen or replayed token: the session ends at once, as on logout.
				s.reqLog(r).Warn().Str("remote", s.clientAddr(r)).Int64("user_id", rt.UserID).
					Msg("refresh token reused: family revoked, session ended")
				s.endSession(r, rt.UserID, rt.FamilyID)
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
	if err := s.tenantDisabled(ctx, u.CompanyID); err != nil {
		if engine.CodeOf(err) == engine.ErrTenantDisabled {
			// The session ends: the user logs in again once the tenant is enabled.
			_, _ = s.deps.RefreshTokens.RevokeFamily(ctx, hashHex, now)
			s.clearRefreshCookie(w)
			return engine.Wrap(engine.ErrSessionExpired, err)
		}
		return err
	}
	return s.answerSession(w, r, u, rt.FamilyID, raw, now)
}

// logout: DELETE /auth/logout revokes the refresh cookie's family, ends the session
// (its access tokens are refused and its sockets closed, on every node, also after
// a restart: see token.Service.Logout) and clears the cookie; a failure to record
// the ended session is an error, so that the client tries again. It needs no access
// token (an expired one must still be able to log out) and answers 204 even without
// a cookie.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(RefreshCookie); err == nil && c.Value != "" {
		ctx, now := r.Context(), s.clock.Now()
		rt, err := s.deps.RefreshTokens.RevokeFamily(ctx, hashToken(c.Value), now)
		if err != nil {
			return fmt.Errorf("logout: %w", err)
		}
		if rt.FamilyID != "" {
			if err := s.deps.Tokens.Logout(ctx, rt.UserID, rt.FamilyID); err != nil && !errors.Is(err, token.ErrNotAnnounced) {
				// Not recorded: answer the error so that the client tries again.
				return err
			} else if err != nil {
				// The other nodes learn of it at their next sync of ended sessions.
				s.reqLog(r).Warn().Err(err).Int64("user_id", rt.UserID).Msg("logout not announced to the other nodes")
			}
		}
	}
	s.clearRefreshCookie(w)
	writeJSON(w, http.StatusNoContent, nil)
	return nil
}

// tooManyAttempts answers 429 ERR_TOO_MANY_ATTEMPTS saying how long to wait, in whole
// seconds rounded up, in the Retry-After header and the body's retryAfter.
func (s *Server) tooManyAttempts(w http.ResponseWriter, r *http.Request, wait time.Duration) error {
	secs := int64((wait + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	s.reqLog(r).Info().Str("remote", s.clientAddr(r)).Int64("retry_after", secs).Msg("login refused: too many attempts")
	code := engine.ErrTooManyAttempts
	writeJSON(w, code.HTTPStatus(), tooManyBody{errorBody: errorBody{Error: code, Message: string(code)}, RetryAfter: secs})
	return nil
}

// endSession ends a session whose refresh token came back a second time; the answer
// is 401 whatever happens, so a failure is only logged.
func (s *Server) endSession(r *http.Request, userID engine.ID, session string) {
	err := s.deps.Tokens.Logout(r.Context(), userID, session)
	switch {
	case errors.Is(err, token.ErrNotAnnounced):
		s.reqLog(r).Warn().Err(err).Int64("user_id", userID).Msg("ended session not announced to the other nodes")
	case err != nil:
		s.reqLog(r).Error().Err(err).Int64("user_id", userID).Msg("reused refresh token: session not ended")
	}
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

// newPasswordHash hashes a password a user is given (created, changed or reset):
// with Config.RefuseCommonPasswords a common one is refused first (400 ERR_VALIDATION,
// password "Too common").
func (s *Server) newPasswordHash(pw string) (string, error) {
	if s.cfg.RefuseCommonPasswords {
		if err := engine.CheckNotCommon("password", pw); err != nil {
			return "", err
		}
	}
	return s.hashPassword(pw)
}

// checkCurrentPassword is the proof a user gives to change their own password: the
// current one. Guesses count with the login's: one attempt of the (address,
// e-mail) pair each, refused with 429 and Retry-After under the same delays; a
// right answer forgets the pair's failures. Missing is currentPassword "Required",
// wrong is currentPassword "Wrong password" (400 ERR_VALIDATION).
func (s *Server) checkCurrentPassword(w http.ResponseWriter, r *http.Request, u engine.User, current string) error {
	if current == "" {
		return &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{"currentPassword": engine.MsgRequired}}
	}
	ctx := r.Context()
	pairKey := keyLoginPair + s.clientAddr(r) + " " + u.Email
	_, wait, err := s.deps.PairLimiter.Reserve(ctx, pairKey)
	if err != nil {
		return fmt.Errorf("password change rate limit: %w", err)
	}
	if wait > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(int64((wait+time.Second-1)/time.Second), 10))
		return engine.E(engine.ErrTooManyAttempts)
	}
	if len(current) > engine.MaxPasswordBytes || bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(current)) != nil {
		s.reqLog(r).Info().Str("remote", s.clientAddr(r)).Msg("password change refused: wrong current password")
		return &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{"currentPassword": engine.MsgWrongPassword}}
	}
	if err := s.deps.PairLimiter.Reset(ctx, pairKey); err != nil {
		return fmt.Errorf("password change rate limit reset: %w", err)
	}
	return nil
}

// hashPassword hashes a new password with the configured bcrypt cost.
func (s *Server) hashPassword(pw string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(pw), s.cfg.BcryptCost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}
