package httpapi

import (
	"fmt"
	"net/http"

	"atende/engine"
)

// keySignupAddress counts sign-ups per client address on the address limiter.
const keySignupAddress = "signup:"

// signupBody is whaticket's sign-up form: {name, email, password}. Any profile,
// queueIds or whatsappId sent along are ignored: an anonymous caller only ever gets
// the least privileged profile (whaticket would take the body's profile as it is).
type signupBody struct {
	Name     string `json:"name"`
	Email    string `json:"email"`
	Password string `json:"password"`
}

// signup: POST /auth/signup, the public sign-up page of whaticket's client. An
// anonymous caller names no tenant, so sign-up works only when the server is
// configured with one (Config.SignupCompany) and that tenant's setting userCreation
// is "enabled"; otherwise 403 ERR_USER_CREATION_DISABLED, before the body is even
// looked at. The new user has profile "user", no queues and no connection; the
// answer is 201 and the user, as POST /users answers. Every attempt counts on the
// client address's login limiter, so the route cannot mint accounts in bulk.
func (s *Server) signup(w http.ResponseWriter, r *http.Request) error {
	company := s.cfg.SignupCompany
	if company <= 0 {
		return engine.E(engine.ErrUserCreationDisabled)
	}
	ctx := r.Context()
	st, err := s.deps.Settings.Get(ctx, company, engine.SettingUserCreation)
	if err != nil {
		return fmt.Errorf("signup: %w", err)
	}
	if st.Value != engine.SettingEnabled {
		return engine.E(engine.ErrUserCreationDisabled)
	}
	key := keySignupAddress + s.clientAddr(r)
	if _, wait, err := s.deps.AddressLimiter.Reserve(ctx, key); err != nil {
		return fmt.Errorf("signup rate limit: %w", err)
	} else if wait > 0 {
		return s.tooManyAttempts(w, r, wait)
	}
	var body signupBody
	if err := s.decodeJSON(r, &body); err != nil {
		return err
	}
	in, err := engine.ValidateUser(engine.UserInput{Name: body.Name, Email: body.Email, Password: body.Password,
		Profile: engine.ProfileUser}, true)
	if err != nil {
		return err
	}
	hash, err := s.hashPassword(in.Password)
	if err != nil {
		return err
	}
	u, err := s.deps.Users.Create(ctx, engine.NewUser{CompanyID: company, Name: in.Name, Email: in.Email,
		PasswordHash: hash, Profile: engine.ProfileUser})
	if err != nil {
		return err
	}
	v := viewUser(u)
	s.publish(company, "user", userEvent{Action: "create", User: &v})
	writeJSON(w, http.StatusCreated, v)
	return nil
}
