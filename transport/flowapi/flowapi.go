package flowapi

import (
	"net/http"
	"strconv"

	"atende/engine"
	"atende/transport/jsonapi"
)

// EventFlow is the socket event of a flow change: {action: create|update|delete,
// flow?, flowId?}.
const EventFlow = "flow"

// Router registers authenticated routes (the REST API's Server).
type Router interface {
	Authed(pattern string, h func(http.ResponseWriter, *http.Request, engine.Principal) error)
}

// PermissionPublisher sends an event to the tenant's sockets whose profile may
// perform permission (realtime.Bus).
type PermissionPublisher interface {
	PublishTo(companyID engine.ID, event, permission string, payload any)
}

// Service holds the collaborators of the routes.
type Service struct {
	// Flows keeps the flows. Required.
	Flows engine.FlowStore
	// Publisher announces changes; nil announces nothing.
	Publisher PermissionPublisher
}

// maxBody caps a flow's JSON body: the document's own cap plus room for the rest.
const maxBody = engine.FlowMaxBytes + 16<<10

type flowEvent struct {
	Action string       `json:"action"`
	Flow   *engine.Flow `json:"flow,omitempty"`
	FlowID engine.ID    `json:"flowId,omitempty"`
}

// Routes registers the routes on r.
func (s *Service) Routes(r Router) {
	r.Authed("GET /flows", s.list)
	r.Authed("GET /flows/{id}", s.get)
	r.Authed("POST /flows", s.create)
	r.Authed("PUT /flows/{id}", s.update)
	r.Authed("DELETE /flows/{id}", s.remove)
}

func allowed(p engine.Principal) error {
	if !p.Can(engine.ActManageFlows) {
		return engine.E(engine.ErrNoPermission)
	}
	return nil
}

func flowID(r *http.Request) (engine.ID, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, engine.E(engine.ErrNoFlowFound)
	}
	return id, nil
}

func (s *Service) publish(companyID engine.ID, ev flowEvent) {
	if s.Publisher != nil {
		s.Publisher.PublishTo(companyID, EventFlow, engine.ActManageFlows, ev)
	}
}

// list: GET /flows → {flows, count, hasMore}: every flow of the tenant, by name.
func (s *Service) list(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := allowed(p); err != nil {
		return err
	}
	flows, err := s.Flows.List(r.Context(), p.CompanyID)
	if err != nil {
		return err
	}
	jsonapi.WriteJSON(w, http.StatusOK, map[string]any{"flows": flows, "count": len(flows), "hasMore": false})
	return nil
}

// get: GET /flows/{id} → the flow.
func (s *Service) get(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := allowed(p); err != nil {
		return err
	}
	id, err := flowID(r)
	if err != nil {
		return err
	}
	f, err := s.Flows.Get(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	jsonapi.WriteJSON(w, http.StatusOK, f)
	return nil
}

// create: POST /flows {name, description, isActive, dataJson, connectionIds,
// queueIds} → 201 and the flow; a faulty document is 400 ERR_FLOW_INVALID naming
// each faulty node.
func (s *Service) create(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := allowed(p); err != nil {
		return err
	}
	var in engine.FlowInput
	if err := jsonapi.DecodeJSON(r, &in, maxBody); err != nil {
		return err
	}
	f, err := s.Flows.Create(r.Context(), p.CompanyID, in)
	if err != nil {
		return err
	}
	s.publish(p.CompanyID, flowEvent{Action: "create", Flow: &f})
	jsonapi.WriteJSON(w, http.StatusCreated, f)
	return nil
}

// update: PUT /flows/{id}, the body of create → the flow. Runs already going keep
// the graph they started with.
func (s *Service) update(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := allowed(p); err != nil {
		return err
	}
	id, err := flowID(r)
	if err != nil {
		return err
	}
	var in engine.FlowInput
	if err := jsonapi.DecodeJSON(r, &in, maxBody); err != nil {
		return err
	}
	f, err := s.Flows.Update(r.Context(), p.CompanyID, id, in)
	if err != nil {
		return err
	}
	s.publish(p.CompanyID, flowEvent{Action: "update", Flow: &f})
	jsonapi.WriteJSON(w, http.StatusOK, f)
	return nil
}

// remove: DELETE /flows/{id} → 204.
func (s *Service) remove(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := allowed(p); err != nil {
		return err
	}
	id, err := flowID(r)
	if err != nil {
		return err
	}
	if err := s.Flows.Delete(r.Context(), p.CompanyID, id); err != nil {
		return err
	}
	s.publish(p.CompanyID, flowEvent{Action: "delete", FlowID: id})
	jsonapi.WriteJSON(w, http.StatusNoContent, nil)
	return nil
}
