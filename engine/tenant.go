package engine

import (
	"context"
	"errors"
	"strings"
	"time"
)

// Tenants (companies) as the hosting operator sees them: the /Super page and
// `atende tenant create`. A tenant is created together with its first admin in one
// transaction, so no tenant exists without somebody who can log in to it.
//
// A disabled tenant keeps its data; its users cannot log in (ERR_TENANT_DISABLED,
// answered only after the right password), their refresh tokens stop working and
// their access tokens are refused from the next check of the user row (the token
// cache holds a row at most a few seconds). Enabling it again restores everything.

// TenantInput is the form of a new tenant with its first admin.
type TenantInput struct {
	Name      string `json:"name"`
	AdminName string `json:"adminName"`
	Email     string `json:"email"`
	Password  string `json:"password"`
}

// ValidateTenant: name required 2 to 50 (section 5's name rule); the admin's name,
// e-mail and password follow the user form's rules (ValidateUser), answered under
// the fields adminName, email and password. E-mail lower-cased, texts trimmed.
func ValidateTenant(in TenantInput) (TenantInput, error) {
	out := in
	out.Name = strings.TrimSpace(in.Name)
	f := fieldErrors{}
	f.text("name", out.Name, true, NameMin, NameMax)
	u, err := ValidateUser(UserInput{Name: in.AdminName, Email: in.Email, Password: in.Password, Profile: ProfileAdmin}, true)
	if err != nil {
		for field, msg := range FieldsOf(err) {
			if field == "name" {
				field = "adminName"
			}
			f.add(field, msg)
		}
	} else {
		out.AdminName, out.Email = u.Name, u.Email
	}
	return finish(in, out, f)
}

// FieldsOf is the field messages of an ErrValidation error, nil for any other.
func FieldsOf(err error) map[string]string {
	var e *Error
	if errors.As(err, &e) && e.Code == ErrValidation {
		return e.Fields
	}
	return nil
}

// TenantSummary is one row of the tenant list: the tenant and how much it holds.
type TenantSummary struct {
	Company
	Users          int `json:"users"`
	Connections    int `json:"connections"`
	Tickets        int `json:"tickets"`
	OpenTickets    int `json:"openTickets"`
	PendingTickets int `json:"pendingTickets"`
}

// TenantStore is what the tenant routes and the ops command need of the companies.
type TenantStore interface {
	CompanyStore
	// CreateWithAdmin adds the company and its first admin in one transaction: a
	// duplicate name (case ignored) answers ErrTenantNameDuplicated, a taken e-mail
	// ErrEmailAlreadyExists, and neither row is written.
	CreateWithAdmin(ctx context.Context, c Company, admin NewUser) (Company, User, error)
	// List answers every tenant by id with its counts.
	List(ctx context.Context) ([]TenantSummary, error)
	// SetDisabled disables or enables a tenant; ErrNoTenantFound for an unknown id.
	SetDisabled(ctx context.Context, id ID, disabled bool, at time.Time) (Company, error)
	// ByName finds a tenant by name (case ignored); ErrNoTenantFound when none.
	ByName(ctx context.Context, name string) (Company, error)
}
