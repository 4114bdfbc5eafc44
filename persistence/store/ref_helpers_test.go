package store_test

import (
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// Shared fixtures of the reference-data store tests.

// refTenants are the two companies every reference-data test works with: tenant
// refA's rows must never be visible to or changeable by refB.
const (
	refA engine.ID = 1
	refB engine.ID = 2
)

// refSeedCompanies inserts the two tenants.
func refSeedCompanies(t *testing.T, d *db.DB) {
	t.Helper()
	dbtest.MustExec(t, d, `INSERT INTO companies (id, name) VALUES (1, 'Empresa A'), (2, 'Empresa B')`)
}

// refClock is a fixed clock for stores under test.
var refClock = engine.FixedClock(time.Date(2026, 11, 22, 13, 4, 5, 123456789, time.UTC))

// refWantCode fails the test unless err carries code.
func refWantCode(t *testing.T, err error, code engine.Code) {
	t.Helper()
	if got := engine.CodeOf(err); err == nil || got != code {
		t.Fatalf("error %v (code %s), want %s", err, got, code)
	}
}

// refWantField fails the test unless err is an ErrValidation with msg on field.
func refWantField(t *testing.T, err error, field, msg string) {
	t.Helper()
	e, ok := err.(*engine.Error)
	if !ok || e.Code != engine.ErrValidation || e.Fields[field] != msg {
		t.Fatalf("error %v, want %s on %q", err, msg, field)
	}
}

func refIntp(v int) *int { return &v }
