package engine

import (
	"context"
	"errors"
	"time"
)

// Stores of users, companies, settings and refresh tokens, and a failure counter.
// persistence/store implements the stores on both SQL dialects; persistence/ratelimit
// implements RateLimiter in process. Every method that takes a companyID reads and
// writes only that tenant's rows: a row of another tenant is "not found".
//
// Stores answer *Error values for what a client may see (ErrNoUserFound,
// ErrEmailAlreadyExists, ErrNoSettingFound, ErrValidation on an unknown queue id) and
// wrapped plain errors for everything else.

// Company is a tenant.
type Company struct {
	ID        ID        `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
	// Disabled tenants keep their data but their users cannot log in (tenant.go).
	Disabled bool `json:"disabled"`
}

// CompanyStore keeps tenants.
type CompanyStore interface {
	// Create adds a company; ID zero lets the database choose one.
	Create(ctx context.Context, c Company) (Company, error)
	// Get answers ErrNotFound for an unknown id.
	Get(ctx context.Context, id ID) (Company, error)
}

// NewUser is a user to create. PasswordHash is already hashed (bcrypt).
type NewUser struct {
	CompanyID    ID
	Name         string
	Email        string // lower-cased by ValidateUser
	PasswordHash string
	Profile      string
	QueueIDs     []ID // each must be a queue of the company, else ErrValidation{queueIds}
	ConnectionID ID
}

// UserChange is an update of an existing user. Nil fields are left as they are.
// Changing the password hash, the profile or the queues bumps the user's token
// version, which refuses the access tokens issued before.
type UserChange struct {
	Name         *string
	Email        *string
	PasswordHash *string
	Profile      *string
	QueueIDs     *[]ID
	ConnectionID *ID
	// BumpTokenVersion forces a token version bump even when nothing above asks for one.
	BumpTokenVersion bool
}

// UserFilter selects a page of a tenant's users, ordered by name then id.
type UserFilter struct {
	Search string // case-insensitive substring of name or email; "" for all
	Limit  int    // page size, > 0
	Offset int    // rows to skip
}

// UserAuth is what the access-token check needs of a user row.
type UserAuth struct {
	UserID       ID
	CompanyID    ID
	TokenVersion int
}

// UserStore keeps the staff of every tenant. Users come back with their queues
// (id, name, colour) sorted by name.
type UserStore interface {
	Create(ctx context.Context, u NewUser) (User, error)
	// Update answers ErrNoUserFound when id is not a user of companyID.
	Update(ctx context.Context, companyID, id ID, ch UserChange) (User, error)
	// Delete removes the user and their queue memberships and refresh tokens.
	Delete(ctx context.Context, companyID, id ID) error
	Get(ctx context.Context, companyID, id ID) (User, error)
	// ByEmail finds a user of any tenant (e-mails are unique across tenants, because
	// login names no tenant). It answers ErrNoUserFound when none matches.
	ByEmail(ctx context.Context, email string) (User, error)
	// List returns one page and the total number of users the filter matches.
	List(ctx context.Context, companyID ID, f UserFilter) ([]User, int, error)
	// All returns every user of the tenant, by name (for selectors).
	All(ctx context.Context, companyID ID) ([]User, error)
	// Auth reads the token version of a user of any tenant; ErrNoUserFound when gone
	// or when its tenant is disabled (engine/tenant.go).
	Auth(ctx context.Context, id ID) (UserAuth, error)
}

// SettingDefaults are the values a tenant has before anyone changes them.
var SettingDefaults = []Setting{
	{Key: SettingUserCreation, Value: SettingEnabled},
	{Key: SettingSideMenu, Value: SettingEnabled},
	{Key: SettingAcceptCalls, Value: SettingEnabled},
	{Key: SettingTimeZone, Value: TenantTimeZone},
}

// SettingReader reads one tenant setting.
type SettingReader interface {
	// Get answers ErrNoSettingFound for a key that is not in SettingDefaults.
	Get(ctx context.Context, companyID ID, key string) (Setting, error)
}

// SettingStore keeps tenant settings.
type SettingStore interface {
	SettingReader
	// List returns every known setting of the tenant, with the default where none is
	// stored, in the order of SettingDefaults.
	List(ctx context.Context, companyID ID) ([]Setting, error)
	// Set stores a value (already validated) and returns the setting.
	Set(ctx context.Context, companyID ID, key, value string) (Setting, error)
	// EnsureDefaults stores the default of every key the tenant has no row for and
	// never overwrites a stored value (the seed calls it).
	EnsureDefaults(ctx context.Context, companyID ID) error
}

// RefreshToken is one link of a refresh-token family. Only its hash is stored.
type RefreshToken struct {
	ID        ID
	CompanyID ID
	UserID    ID
	FamilyID  string // the same for every token rotated from one login
	TokenHash string // hex sha256 of the token
	ParentID  ID     // the token this one was rotated from; 0 for a login
	ExpiresAt time.Time
	UsedAt    *time.Time // set when rotated
	RevokedAt *time.Time // set when its family was revoked
	CreatedAt time.Time
}

// ErrRefreshReused is the cause of the ErrSessionExpired a RefreshTokenStore answers
// when an already-rotated token comes back: its whole family is revoked.
var ErrRefreshReused = errors.New("refresh token reused")

// RefreshTokenStore keeps refresh-token families.
type RefreshTokenStore interface {
	// Insert stores the first token of a new family.
	Insert(ctx context.Context, t RefreshToken) (RefreshToken, error)
	// Rotate marks the token with hash oldHash used and stores its child (same
	// family, user and tenant) with newHash, expiring at expiresAt, in one
	// transaction. An unknown, expired or revoked token answers ErrSessionExpired; a
	// token already used revokes its family and answers ErrSessionExpired with cause
	// ErrRefreshReused, together with a token whose CompanyID, UserID and FamilyID
	// name the session that ended.
	Rotate(ctx context.Context, oldHash, newHash string, now, expiresAt time.Time) (RefreshToken, error)
	// RevokeFamily revokes the family of the token with hash and returns that token
	// (its FamilyID, UserID and CompanyID name the session that ended); an unknown
	// hash is ignored and answers the zero token.
	RevokeFamily(ctx context.Context, hash string, now time.Time) (RefreshToken, error)
	// RevokeUser revokes every family of a user.
	RevokeUser(ctx context.Context, companyID, userID ID, now time.Time) error
}

// RateLimiter counts failures per key over a sliding window, checked (Allow) and
// counted (Fail) in separate steps; a limit that must hold under parallel attempts
// needs AttemptLimiter instead. Implementations: persistence/ratelimit.Memory and
// persistence/redisstate.RateLimiter.
type RateLimiter interface {
	// Allow reports whether key may try again: false once it has failed as often as
	// the limit allows within the window.
	Allow(ctx context.Context, key string) (bool, error)
	// Fail records one failure of key.
	Fail(ctx context.Context, key string) error
	// Reset forgets key's failures (after a successful login).
	Reset(ctx context.Context, key string) error
}
