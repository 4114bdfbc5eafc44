package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/crypto/bcrypt"

	"atende/engine"
	"atende/node"
	"atende/persistence/store"
)

// tenantUsage is the help of `atende tenant`.
const tenantUsage = `usage:
  atende tenant create --name NAME --admin-name NAME --email E-MAIL [--password PW] [serve flags]
  atende tenant list [serve flags]
  atende tenant disable|enable --id ID [serve flags]
The admin's password may come from ATENDE_ADMIN_PASSWORD instead of --password (kept
out of the process list). The serve flags (--database-url, --data-dir…) say which
database to use. create is idempotent: the same tenant with the same admin again
reports it and succeeds; a name or e-mail taken otherwise is an error.`

// tenantCmd runs `atende tenant …`: what the /Super page does, for operators.
func tenantCmd(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer, log zerolog.Logger) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stdout, tenantUsage)
		return nil
	}
	sub, rest := args[0], args[1:]
	fs := flag.NewFlagSet("tenant "+sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var in engine.TenantInput
	var id int64
	switch sub {
	case "create":
		fs.StringVar(&in.Name, "name", "", "the tenant's name")
		fs.StringVar(&in.AdminName, "admin-name", "", "the first admin's name")
		fs.StringVar(&in.Email, "email", "", "the first admin's e-mail (the login)")
		fs.StringVar(&in.Password, "password", getenv("ATENDE_ADMIN_PASSWORD"), "the first admin's password (ATENDE_ADMIN_PASSWORD)")
	case "disable", "enable":
		fs.Int64Var(&id, "id", 0, "the tenant's id")
	case "list":
	default:
		return fmt.Errorf("tenant: unknown command %q (want create, list, disable or enable)", sub)
	}
	cfg, err := parseConfigOn(fs, rest, getenv)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, tenantUsage)
			return nil
		}
		return fmt.Errorf("tenant %s: %w", sub, err)
	}
	if (sub == "disable" || sub == "enable") && id <= 0 {
		return fmt.Errorf("tenant %s: --id is required", sub)
	}
	var valid engine.TenantInput
	if sub == "create" {
		// Checked before the database is opened: a typo costs nothing.
		if valid, err = engine.ValidateTenant(in); err != nil {
			return fmt.Errorf("tenant create: %s", describeError(err))
		}
		if err := engine.CheckNotCommon("password", valid.Password); err != nil {
			return fmt.Errorf("tenant create: %s", describeError(err))
		}
	}
	d, err := node.OpenDB(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer d.Close()
	s := tenantStores{companies: store.NewCompanies(d, nil), users: store.NewUsers(d, nil), settings: store.NewSettings(d, nil)}
	switch sub {
	case "create":
		return createTenant(ctx, s, valid, stdout)
	case "list":
		list, err := s.companies.List(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, "ID\tSTATE\tUSERS\tCONNECTIONS\tTICKETS\tNAME")
		for _, t := range list {
			state := "enabled"
			if t.Disabled {
				state = "disabled"
			}
			fmt.Fprintf(stdout, "%d\t%s\t%d\t%d\t%d\t%s\n", t.ID, state, t.Users, t.Connections, t.Tickets, t.Name)
		}
		return nil
	default:
		c, err := s.companies.SetDisabled(ctx, id, sub == "disable", time.Now())
		if err != nil {
			return fmt.Errorf("tenant %s %d: %s", sub, id, describeError(err))
		}
		fmt.Fprintf(stdout, "tenant %d %q %sd\n", c.ID, c.Name, sub)
		return nil
	}
}

// tenantStores are the stores `atende tenant` works on.
type tenantStores struct {
	companies *store.Companies
	users     *store.Users
	settings  *store.Settings
}

// createTenant creates the tenant and its admin, or reports the same pair created
// before.
func createTenant(ctx context.Context, s tenantStores, in engine.TenantInput, stdout io.Writer) error {
	if c, err := s.companies.ByName(ctx, in.Name); err == nil {
		if u, err := s.users.ByEmail(ctx, in.Email); err == nil && u.CompanyID == c.ID {
			fmt.Fprintf(stdout, "tenant %d %q already exists with admin %s\n", c.ID, c.Name, u.Email)
			return nil
		}
		return fmt.Errorf("tenant create: %s: another tenant is named %q (id %d)",
			engine.ErrTenantNameDuplicated, c.Name, c.ID)
	} else if engine.CodeOf(err) != engine.ErrNoTenantFound {
		return err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(in.Password), bcrypt.DefaultCost)
	if err != nil {
		return err
	}
	c, u, err := s.companies.CreateWithAdmin(ctx, engine.Company{Name: in.Name},
		engine.NewUser{Name: in.AdminName, Email: in.Email, PasswordHash: string(hash), Profile: engine.ProfileAdmin})
	if err != nil {
		return fmt.Errorf("tenant create: %s", describeError(err))
	}
	if err := s.settings.EnsureDefaults(ctx, c.ID); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "tenant %d %q created with admin %s (user %s)\n", c.ID, c.Name, u.Email, strconv.FormatInt(u.ID, 10))
	return nil
}

// describeError spells out a client-facing error for a terminal: the code and, for
// a validation error, each field's message.
func describeError(err error) string {
	var e *engine.Error
	if !errors.As(err, &e) {
		return err.Error()
	}
	switch e.Code {
	case engine.ErrEmailAlreadyExists:
		return string(e.Code) + ": the e-mail is another user's login"
	case engine.ErrTenantNameDuplicated:
		return string(e.Code) + ": another tenant has this name"
	case engine.ErrNoTenantFound:
		return string(e.Code) + ": no tenant has this id"
	}
	return (&engine.Error{Code: e.Code, Fields: e.Fields}).Error()
}
