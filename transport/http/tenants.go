package httpapi

import (
	"context"
	"fmt"
	"net/http"

	"atende/engine"
)

// TenantDeps are the collaborators of the hosting operator's routes: the tenant
// list of /Super and the cluster view of /Support. A nil field answers 503
// ERR_UNAVAILABLE on its routes.
type TenantDeps struct {
	// Tenants keeps the companies (tenants.go).
	Tenants engine.TenantStore
	// Cluster describes the actor cluster as this node sees it (GET /cluster).
	Cluster func(ctx context.Context) (ClusterView, error)
}

// EventTenant is the socket event of a tenant change: {action: "create"|"update",
// tenant}. It reaches only the sockets of the acting super's tenant whose profile
// holds tenants:manage.
const EventTenant = "tenant"

// PermissionPublisher is a Publisher that can hold an event to the sockets whose
// profile may perform permission (realtime.Bus implements it). Without it tenant
// events are not sent: a plain Publish would reach the whole tenant.
type PermissionPublisher interface {
	PublishTo(companyID engine.ID, event, permission string, payload any)
}

type tenantEvent struct {
	Action string               `json:"action"`
	Tenant engine.TenantSummary `json:"tenant"`
}

// tenantRoutes registers the tenant and cluster routes.
func (s *Server) tenantRoutes() {
	s.route("GET /tenants", s.authed(s.listTenants))
	s.route("POST /tenants", s.authed(s.createTenant))
	s.route("PUT /tenants/{id}", s.authed(s.updateTenant))
	s.route("GET /cluster", s.authed(s.clusterView))
}

func (s *Server) tenants(p engine.Principal) (engine.TenantStore, error) {
	if err := requirePermission(p, engine.ActManageTenants); err != nil {
		return nil, err
	}
	if s.deps.Tenants == nil {
		return nil, engine.E(engine.ErrUnavailable)
	}
	return s.deps.Tenants, nil
}

// listTenants: GET /tenants (tenants:manage) answers {tenants: [...]}, every tenant
// by id with its users, connections and tickets (total, open, pending).
func (s *Server) listTenants(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	st, err := s.tenants(p)
	if err != nil {
		return err
	}
	list, err := st.List(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"tenants": list})
	return nil
}

// createTenant: POST /tenants {name, adminName, email, password} (tenants:manage)
// creates the tenant and its first admin in one transaction and answers 201
// {tenant, admin}. Validation is engine.ValidateTenant's (plus the common-password
// list in production); a taken name is 409 ERR_TENANT_NAME_DUPLICATED, a taken
// e-mail 409 ERR_EMAIL_ALREADY_EXISTS, and then nothing is written.
func (s *Server) createTenant(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	st, err := s.tenants(p)
	if err != nil {
		return err
	}
	var body engine.TenantInput
	if err := s.decodeJSON(r, &body); err != nil {
		return err
	}
	in, err := engine.ValidateTenant(body)
	if err != nil {
		return err
	}
	hash, err := s.newPasswordHash(in.Password)
	if err != nil {
		return err
	}
	ctx := r.Context()
	c, u, err := st.CreateWithAdmin(ctx, engine.Company{Name: in.Name},
		engine.NewUser{Name: in.AdminName, Email: in.Email, PasswordHash: hash, Profile: engine.ProfileAdmin})
	if err != nil {
		return err
	}
	if s.deps.Settings != nil {
		if err := s.deps.Settings.EnsureDefaults(ctx, c.ID); err != nil {
			return fmt.Errorf("create tenant: settings: %w", err)
		}
	}
	s.reqLog(r).Info().Int64("tenant", c.ID).Str("email", u.Email).Msg("tenant created")
	sum := engine.TenantSummary{Company: c, Users: 1}
	s.publishTenant(p, "create", sum)
	writeJSON(w, http.StatusCreated, map[string]any{"tenant": sum, "admin": viewUser(u)})
	return nil
}

// tenantChange is the body of PUT /tenants/{id}: only the disabled flag changes.
type tenantChange struct {
	Disabled *bool `json:"disabled"`
}

// updateTenant: PUT /tenants/{id} {disabled} (tenants:manage) disables or enables a
// tenant and answers it with its counts. A super cannot disable its own tenant (409
// ERR_TENANT_OWN: it would lock itself out). Both drop every user of the tenant
// from the token caches of every node, so after a disable their access tokens and
// sockets are refused at once.
func (s *Server) updateTenant(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	st, err := s.tenants(p)
	if err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoTenantFound)
	if err != nil {
		return err
	}
	var body tenantChange
	if err := s.decodeJSON(r, &body); err != nil {
		return err
	}
	if body.Disabled == nil {
		return &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{"disabled": engine.MsgRequired}}
	}
	if *body.Disabled && id == p.CompanyID {
		return engine.E(engine.ErrTenantOwn)
	}
	ctx := r.Context()
	if _, err := st.SetDisabled(ctx, id, *body.Disabled, s.clock.Now()); err != nil {
		return err
	}
	// Either way the cached user rows are stale: a disabled tenant's users are gone
	// and an enabled tenant's are back.
	users, err := s.deps.Users.All(ctx, id)
	if err != nil {
		return fmt.Errorf("disable tenant %d: %w", id, err)
	}
	for _, u := range users {
		s.deps.Tokens.Forget(u.ID)
	}
	s.reqLog(r).Info().Int64("tenant", id).Bool("disabled", *body.Disabled).Msg("tenant changed")
	list, err := st.List(ctx)
	if err != nil {
		return err
	}
	for _, t := range list {
		if t.ID == id {
			s.publishTenant(p, "update", t)
			writeJSON(w, http.StatusOK, t)
			return nil
		}
	}
	return engine.E(engine.ErrNoTenantFound)
}

func (s *Server) publishTenant(p engine.Principal, action string, t engine.TenantSummary) {
	if pp, ok := s.deps.Publisher.(PermissionPublisher); ok {
		pp.PublishTo(p.CompanyID, EventTenant, engine.ActManageTenants, tenantEvent{Action: action, Tenant: t})
	}
}

// tenantDisabled answers ERR_TENANT_DISABLED when the user's tenant is disabled.
// Without a tenant store every tenant counts as enabled.
func (s *Server) tenantDisabled(ctx context.Context, companyID engine.ID) error {
	if s.deps.Tenants == nil {
		return nil
	}
	c, err := s.deps.Tenants.Get(ctx, companyID)
	if err != nil {
		return fmt.Errorf("tenant of user: %w", err)
	}
	if c.Disabled {
		return engine.E(engine.ErrTenantDisabled)
	}
	return nil
}

// ClusterView is the answer of GET /cluster.
type ClusterView struct {
	// Mode is "single" (one node, in-process membership) or "cluster".
	Mode string `json:"mode"`
	// Node is the id of the member that answered.
	Node    string          `json:"node"`
	Members []ClusterMember `json:"members"`
}

// ClusterMember is one member of the actor cluster.
type ClusterMember struct {
	ID      string `json:"id"`      // actor system id
	Node    string `json:"node"`    // gossip node name ("" on a single node)
	Address string `json:"address"` // actor remote host:port
	// State is "alive" (it answered), "unreachable" (in the membership but it did
	// not answer in time) or "not ready" (it answered but its readiness check, the
	// one /readyz runs, fails).
	State   string         `json:"state"`
	Self    bool           `json:"self"`
	Version string         `json:"version,omitempty"`
	Actors  map[string]int `json:"actors"` // activations hosted, per kind
}

// clusterView: GET /cluster (cluster:view: admin, super) answers ClusterView.
func (s *Server) clusterView(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewCluster); err != nil {
		return err
	}
	if s.deps.Cluster == nil {
		return engine.E(engine.ErrUnavailable)
	}
	v, err := s.deps.Cluster(r.Context())
	if err != nil {
		return err
	}
	if v.Members == nil {
		v.Members = []ClusterMember{}
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}
