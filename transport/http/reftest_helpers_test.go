package httpapi_test

import (
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
	httpapi "atende/transport/http"
)

// Fixtures of the reference-data route tests. They reuse the env of helpers_test.go
// (tenants co1 and co2, queues 11 and 12 of co1 and 21 of co2, staff of every
// profile) with the reference-data stores wired in as well.

// refEnv is an env whose server has the reference-data stores.
type refEnv struct {
	*env
	contacts     *store.Contacts
	queues       *store.Queues
	tags         *store.Tags
	quickAnswers *store.QuickAnswers
}

// newRefEnv builds the env of newEnv with RefDeps wired.
func newRefEnv(t *testing.T, d *db.DB) *refEnv {
	t.Helper()
	re := &refEnv{}
	re.env = newEnv(t, d, withDeps(func(e *env, deps *httpapi.Deps) {
		re.contacts, re.queues = store.NewContacts(d, e.clock), store.NewQueues(d, e.clock)
		re.tags, re.quickAnswers = store.NewTags(d, e.clock), store.NewQuickAnswers(d, e.clock)
		deps.RefDeps = httpapi.RefDeps{Contacts: re.contacts, Queues: re.queues, Tags: re.tags, QuickAnswers: re.quickAnswers}
	}))
	return re
}

// eachRefEnv runs fn on a fresh refEnv per dialect.
func eachRefEnv(t *testing.T, fn func(t *testing.T, e *refEnv)) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) { fn(t, newRefEnv(t, d)) })
}

// refProfiles are the fixture users of co1, one per profile, by e-mail local part.
var refProfiles = map[string]string{
	engine.ProfileUser:     "ana",
	engine.ProfileUserPlus: "bruno",
	engine.ProfileSuperv:   "superv",
	engine.ProfileManager:  "manager",
	engine.ProfileAdmin:    "admin",
	engine.ProfileSuper:    "super",
}

// wantEvent fails unless the only event published since the last take is name for
// company with payload action.
func (e *refEnv) wantEvent(t *testing.T, company engine.ID, name, action string) map[string]any {
	t.Helper()
	evs := e.pub.take()
	if len(evs) != 1 || evs[0].Company != company || evs[0].Name != name || evs[0].Payload["action"] != action {
		t.Fatalf("events %+v, want one %q %q for company %d", evs, name, action, company)
	}
	return evs[0].Payload
}

// wantNoEvent fails if anything was published since the last take.
func (e *refEnv) wantNoEvent(t *testing.T) {
	t.Helper()
	if evs := e.pub.take(); len(evs) != 0 {
		t.Fatalf("unexpected events %+v", evs)
	}
}
