package httpapi

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"atende/engine"
)

// UsersPageSize is the page size of GET /users/.
const UsersPageSize = 40

// Bounds of list queries, so hostile input cannot ask for absurd offsets.
const (
	maxPageNumber  = 100000
	maxSearchRunes = 200
)

// userView is the wire shape of a user (spec section 3): never the password hash.
type userView struct {
	ID           engine.ID         `json:"id"`
	Name         string            `json:"name"`
	Email        string            `json:"email"`
	Profile      string            `json:"profile"`
	CompanyID    engine.ID         `json:"companyId"`
	Queues       []engine.QueueRef `json:"queues"`
	ConnectionID *engine.ID        `json:"whatsappId"` // null when the user has no default connection
	CreatedAt    time.Time         `json:"createdAt,omitzero"`
	UpdatedAt    time.Time         `json:"updatedAt,omitzero"`
}

func viewUser(u engine.User) userView {
	v := userView{
		ID:        u.ID,
		Name:      u.Name,
		Email:     u.Email,
		Profile:   u.Profile,
		CompanyID: u.CompanyID,
		Queues:    make([]engine.QueueRef, len(u.Queues)),
		CreatedAt: u.CreatedAt,
		UpdatedAt: u.UpdatedAt,
	}
	for i, q := range u.Queues {
		v.Queues[i] = engine.QueueRef{ID: q.ID, Name: q.Name, Color: q.Color}
	}
	if u.ConnectionID != 0 {
		w := u.ConnectionID
		v.ConnectionID = &w
	}
	return v
}

func viewUsers(us []engine.User) []userView {
	out := make([]userView, len(us))
	for i, u := range us {
		out[i] = viewUser(u)
	}
	return out
}

// userEvent is the payload of the realtime "user" event.
type userEvent struct {
	Action string    `json:"action"` // create | update | delete
	User   *userView `json:"user,omitempty"`
	UserID engine.ID `json:"userId,omitempty"`
}

// listUsers: GET /users/?searchParam=&pageNumber= → {users, count, hasMore}, 40 a
// page, ordered by name. Every profile of the tenant may read the user list.
func (s *Server) listUsers(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	search, page, err := listParams(r)
	if err != nil {
		return err
	}
	users, count, err := s.deps.Users.List(r.Context(), p.CompanyID, engine.UserFilter{
		Search: search,
		Limit:  UsersPageSize,
		Offset: (page - 1) * UsersPageSize,
	})
	if err != nil {
		return fmt.Errorf("list users: %w", err)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"users":   viewUsers(users),
		"count":   count,
		"hasMore": page*UsersPageSize < count,
	})
	return nil
}

// listParams reads searchParam (trimmed, at most 200 characters) and pageNumber (1
// when absent, 1 to 100000).
func listParams(r *http.Request) (search string, page int, err error) {
	search = queryString(r, "searchParam")
	if len([]rune(search)) > maxSearchRunes {
		return "", 0, fieldError("searchParam", engine.MsgTooLong)
	}
	page, err = queryInt(r, "pageNumber", 1)
	if err != nil {
		return "", 0, err
	}
	if page < 1 || page > maxPageNumber {
		return "", 0, fieldError("pageNumber", engine.MsgInvalidValue)
	}
	return search, page, nil
}

// allUsers: GET /users/list → every user of the tenant (for selectors).
func (s *Server) allUsers(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	users, err := s.deps.Users.All(r.Context(), p.CompanyID)
	if err != nil {
		return fmt.Errorf("all users: %w", err)
	}
	writeJSON(w, http.StatusOK, viewUsers(users))
	return nil
}

// getUser: GET /users/{id}; a user of another tenant is ERR_NO_USER_FOUND.
func (s *Server) getUser(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := pathID(r, "id", engine.ErrNoUserFound)
	if err != nil {
		return err
	}
	u, err := s.deps.Users.Get(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewUser(u))
	return nil
}

// userBody is the body of POST and PUT /users. Profile, queueIds and whatsappId
// remember whether they were sent: on update an absent field is left unchanged.
type userBody struct {
	Name     string `json:"name"`
	Email    string `json:"email"`
	Password string `json:"password"`
	// CurrentPassword proves a change of one's own password (updateUser).
	CurrentPassword string   `json:"currentPassword"`
	Profile         *string  `json:"profile"`
	QueueIDs        *[]int64 `json:"queueIds"`
	ConnectionID    idField  `json:"whatsappId"`
}

// check refuses a whatsappId that is no id (whaticket's own false, "" and null
// mean none; see idField).
func (b userBody) check() error {
	return checkIDFields(map[string]idField{"whatsappId": b.ConnectionID})
}

func (b userBody) input() engine.UserInput {
	in := engine.UserInput{Name: b.Name, Email: b.Email, Password: b.Password, ConnectionID: b.ConnectionID.ID}
	if b.Profile != nil {
		in.Profile = *b.Profile
	}
	if b.QueueIDs != nil {
		in.QueueIDs = *b.QueueIDs
	}
	return in
}

// profileRank orders profiles from least to most privileged; unknown is -1.
func profileRank(profile string) int { return slices.Index(engine.Profiles(), profile) }

// mayHandle: a caller may only act on users of a profile at most as privileged as
// their own (a supervisor cannot reset an admin's password nor make anyone admin;
// only super grants super).
func mayHandle(p engine.Principal, profile string) bool {
	return profileRank(profile) <= profileRank(p.Profile)
}

// createUser: POST /users. Needs users:manage; a profile above the caller's, or other
// than "user" without user-modal:editProfile, is refused; queues and default
// connection need user-modal:editQueues. With the setting userCreation "disabled"
// only settings:manage holders (admin, super — who could re-enable it anyway) may
// create users; others get ERR_USER_CREATION_DISABLED.
func (s *Server) createUser(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageUsers); err != nil {
		return err
	}
	var body userBody
	if err := s.decodeJSON(r, &body); err != nil {
		return err
	}
	if err := body.check(); err != nil {
		return err
	}
	in, err := engine.ValidateUser(body.input(), true)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if !p.Can(engine.ActManageSettings) {
		st, err := s.deps.Settings.Get(ctx, p.CompanyID, engine.SettingUserCreation)
		if err != nil {
			return fmt.Errorf("create user: %w", err)
		}
		if st.Value == engine.SettingDisabled {
			return engine.E(engine.ErrUserCreationDisabled)
		}
	}
	if !mayHandle(p, in.Profile) || (in.Profile != engine.ProfileUser && !p.Can(engine.ActEditUserProfile)) {
		return engine.E(engine.ErrNoPermission)
	}
	if (len(in.QueueIDs) > 0 || in.ConnectionID != 0) && !p.Can(engine.ActEditUserQueues) {
		return engine.E(engine.ErrNoPermission)
	}
	hash, err := s.newPasswordHash(in.Password)
	if err != nil {
		return err
	}
	u, err := s.deps.Users.Create(ctx, engine.NewUser{
		CompanyID:    p.CompanyID,
		Name:         in.Name,
		Email:        in.Email,
		PasswordHash: hash,
		Profile:      in.Profile,
		QueueIDs:     in.QueueIDs,
		ConnectionID: in.ConnectionID,
	})
	if err != nil {
		return err
	}
	v := viewUser(u)
	s.publish(p.CompanyID, "user", userEvent{Action: "create", User: &v})
	writeJSON(w, http.StatusCreated, v)
	return nil
}

// updateUser: PUT /users/{id}. The form's fields; password empty means unchanged,
// profile / queueIds / whatsappId absent mean unchanged. Rules:
//   - another user: users:manage, and the target's profile at most the caller's;
//   - oneself without users:manage (the top bar's profile dialog): name and password
//     only — the e-mail is the login, which the administration assigns; nobody
//     changes their own profile, whatever their permissions;
//   - a new profile: user-modal:editProfile and at most the caller's own profile;
//   - new queues or default connection: user-modal:editQueues.
//
// A new password of one's own needs the current one in currentPassword (see
// checkCurrentPassword); one set by someone else (users:manage) does not, and signs
// the user out everywhere (every refresh-token family revoked); one changed by its
// owner keeps their sessions. With Config.RefuseCommonPasswords a common password is
// refused.
func (s *Server) updateUser(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := pathID(r, "id", engine.ErrNoUserFound)
	if err != nil {
		return err
	}
	var body userBody
	if err := s.decodeJSON(r, &body); err != nil {
		return err
	}
	if err := body.check(); err != nil {
		return err
	}
	ctx := r.Context()
	cur, err := s.deps.Users.Get(ctx, p.CompanyID, id)
	if err != nil {
		return err
	}
	self := id == p.UserID
	manage := p.Can(engine.ActManageUsers)
	if !self && (!manage || !mayHandle(p, cur.Profile)) {
		return engine.E(engine.ErrNoPermission)
	}
	in, err := engine.ValidateUser(body.input(), false)
	if err != nil {
		return err
	}
	var ch engine.UserChange
	if in.Name != cur.Name {
		ch.Name = &in.Name
	}
	if in.Email != cur.Email {
		if !manage {
			return engine.E(engine.ErrNoPermission)
		}
		ch.Email = &in.Email
	}
	if body.Profile != nil && in.Profile != "" && in.Profile != cur.Profile {
		if self || !p.Can(engine.ActEditUserProfile) || !mayHandle(p, in.Profile) {
			return engine.E(engine.ErrNoPermission)
		}
		ch.Profile = &in.Profile
	}
	if body.QueueIDs != nil && !slices.Equal(in.QueueIDs, cur.QueueIDs()) &&
		!(len(in.QueueIDs) == 0 && len(cur.Queues) == 0) {
		if !p.Can(engine.ActEditUserQueues) {
			return engine.E(engine.ErrNoPermission)
		}
		q := in.QueueIDs
		ch.QueueIDs = &q
	}
	if body.ConnectionID.Set && in.ConnectionID != cur.ConnectionID {
		if !p.Can(engine.ActEditUserQueues) {
			return engine.E(engine.ErrNoPermission)
		}
		ch.ConnectionID = &in.ConnectionID
	}
	if in.Password != "" {
		hash, err := s.newPasswordHash(in.Password)
		if err != nil {
			return err
		}
		if self {
			if err := s.checkCurrentPassword(w, r, cur, body.CurrentPassword); err != nil {
				return err
			}
		}
		ch.PasswordHash = &hash
	}
	u, err := s.deps.Users.Update(ctx, p.CompanyID, id, ch)
	if err != nil {
		return err
	}
	if ch.PasswordHash != nil && !self {
		if err := s.deps.RefreshTokens.RevokeUser(ctx, p.CompanyID, id, s.clock.Now()); err != nil {
			return fmt.Errorf("update user: revoke sessions: %w", err)
		}
	}
	s.deps.Tokens.Forget(id)
	v := viewUser(u)
	s.publish(p.CompanyID, "user", userEvent{Action: "update", User: &v})
	writeJSON(w, http.StatusOK, v)
	return nil
}

// deleteUser: DELETE /users/{id}. Needs users:manage, never oneself, and the target's
// profile at most the caller's. Answers 204.
func (s *Server) deleteUser(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageUsers); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoUserFound)
	if err != nil {
		return err
	}
	if id == p.UserID {
		return engine.E(engine.ErrNoPermission)
	}
	ctx := r.Context()
	cur, err := s.deps.Users.Get(ctx, p.CompanyID, id)
	if err != nil {
		return err
	}
	if !mayHandle(p, cur.Profile) {
		return engine.E(engine.ErrNoPermission)
	}
	if err := s.deps.Users.Delete(ctx, p.CompanyID, id); err != nil {
		return err
	}
	s.deps.Tokens.Forget(id)
	s.publish(p.CompanyID, "user", userEvent{Action: "delete", UserID: id})
	writeJSON(w, http.StatusNoContent, nil)
	return nil
}
