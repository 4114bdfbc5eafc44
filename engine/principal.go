package engine

import "slices"

// Principal is the authenticated member of staff a request acts for, as the server
// knows it (from the access token and the user row), never as the browser claims it.
type Principal struct {
	UserID    ID
	CompanyID ID
	Profile   string
	QueueIDs  []ID // the user's queues
}

// Can reports whether the principal's profile may perform action (see the permission
// table). An unknown profile may do nothing.
func (p Principal) Can(action string) bool { return Can(p.Profile, action) }

// InQueue reports whether queue id is one of the principal's queues. Zero (no queue)
// is never "in" a queue.
func (p Principal) InQueue(id ID) bool {
	return id != 0 && slices.Contains(p.QueueIDs, id)
}

// Valid reports whether the principal names a user of a tenant with a known profile.
func (p Principal) Valid() bool {
	return p.UserID > 0 && p.CompanyID > 0 && IsProfile(p.Profile)
}
