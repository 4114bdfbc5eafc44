package seed

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"
	"golang.org/x/crypto/bcrypt"

	"atende/engine"
)

// The demo tenant.
const (
	DemoCompanyID   engine.ID = 1
	DemoCompanyName           = "Atende Demo"
)

// DemoUser is one member of the demo staff.
type DemoUser struct {
	Name, Email, Password, Profile string
}

// DemoUsers are the demo staff, created in this order. The last is the hosting
// operator's login (profile super: the /Super page). It belongs to the demo tenant,
// the first one, as the operator's own tenant: every route but the tenant list stays
// scoped to it.
var DemoUsers = []DemoUser{
	{Name: "Administrador", Email: "admin@atende.local", Password: "admin123", Profile: engine.ProfileAdmin},
	{Name: "Carla Supervisora", Email: "carla@atende.local", Password: "atende123", Profile: engine.ProfileSuperv},
	{Name: "Ana Atendente", Email: "ana@atende.local", Password: "atende123", Profile: engine.ProfileUser},
	{Name: "Bruno Atendente", Email: "bruno@atende.local", Password: "atende123", Profile: engine.ProfileUser},
	{Name: "Operador Super", Email: "super@atende.local", Password: "super123", Profile: engine.ProfileSuper},
}

// Deps are the stores the seed writes through.
type Deps struct {
	Companies engine.CompanyStore
	Users     engine.UserStore
	Settings  engine.SettingStore

	// RefDeps are the reference-data stores (see ref.go).
	RefDeps
	// Connections, when set, gets the demo web chat connection.
	Connections engine.ConnectionStore
	// Conversations, when its Journal is set, writes the sample conversations
	// (conversations.go) and the Telegram connection some of them live on.
	Conversations ConversationDeps

	// BcryptCost hashes the demo passwords; 0 means bcrypt.DefaultCost (10).
	BcryptCost int
	// Log reports what each step created; the zero value logs nothing.
	Log zerolog.Logger
}

// Step is one idempotent part of the demo. Steps run in order: company, settings,
// users, then the reference-data steps of ref.go (which may give the demo users
// queues with Users.Update), the connections and the sample conversations.
type Step struct {
	Name string
	Run  func(ctx context.Context, d Deps) error
}

// Steps lists every step of Demo in order.
func Steps() []Step {
	core := []Step{
		{Name: "company", Run: seedCompany},
		{Name: "settings", Run: seedSettings},
		{Name: "users", Run: seedUsers},
	}
	steps := append(core, refSteps()...)
	return append(steps,
		Step{Name: "web chat connection", Run: seedWebChat},
		Step{Name: "telegram connection", Run: seedTelegram},
		Step{Name: "conversations", Run: seedConversations})
}

// Demo runs every step.
func Demo(ctx context.Context, d Deps) error {
	if d.Companies == nil || d.Users == nil || d.Settings == nil {
		return fmt.Errorf("seed: Companies, Users and Settings are required")
	}
	if d.BcryptCost == 0 {
		d.BcryptCost = bcrypt.DefaultCost
	}
	for _, st := range Steps() {
		if err := st.Run(ctx, d); err != nil {
			return fmt.Errorf("seed %s: %w", st.Name, err)
		}
	}
	return nil
}

func seedCompany(ctx context.Context, d Deps) error {
	_, err := d.Companies.Get(ctx, DemoCompanyID)
	if err == nil {
		return nil
	}
	if engine.CodeOf(err) != engine.ErrNotFound {
		return err
	}
	if _, err := d.Companies.Create(ctx, engine.Company{ID: DemoCompanyID, Name: DemoCompanyName}); err != nil {
		return err
	}
	d.Log.Info().Int64("tenant", DemoCompanyID).Msg("seed: demo company created")
	return nil
}

func seedSettings(ctx context.Context, d Deps) error {
	return d.Settings.EnsureDefaults(ctx, DemoCompanyID)
}

func seedUsers(ctx context.Context, d Deps) error {
	for _, du := range DemoUsers {
		_, err := d.Users.ByEmail(ctx, du.Email)
		if err == nil {
			continue
		}
		if engine.CodeOf(err) != engine.ErrNoUserFound {
			return err
		}
		in, err := engine.ValidateUser(engine.UserInput{Name: du.Name, Email: du.Email, Password: du.Password, Profile: du.Profile}, true)
		if err != nil {
			return fmt.Errorf("demo user %s: %w", du.Email, err)
		}
		hash, err := bcrypt.GenerateFromPassword([]byte(in.Password), d.BcryptCost)
		if err != nil {
			return fmt.Errorf("demo user %s: %w", du.Email, err)
		}
		if _, err := d.Users.Create(ctx, engine.NewUser{
			CompanyID:    DemoCompanyID,
			Name:         in.Name,
			Email:        in.Email,
			PasswordHash: string(hash),
			Profile:      in.Profile,
		}); err != nil {
			return fmt.Errorf("demo user %s: %w", du.Email, err)
		}
		d.Log.Info().Str("email", in.Email).Str("profile", in.Profile).Msg("seed: demo user created")
	}
	return nil
}
