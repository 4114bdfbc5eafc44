package httpapi

import (
	"fmt"
	"net/http"
	_ "time/tzdata" // America/Cuiaba must resolve on hosts without zoneinfo

	"atende/engine"
)

// queueEvent is the payload of the realtime "queue" event.
type queueEvent struct {
	Action  string        `json:"action"` // create | update | delete
	Queue   *engine.Queue `json:"queue,omitempty"`
	QueueID engine.ID     `json:"queueId,omitempty"`
}

// listQueues: GET /queue → every queue of the tenant, by name. Any profile may read.
func (s *Server) listQueues(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	qs, err := s.deps.Queues.List(r.Context(), p.CompanyID)
	if err != nil {
		return fmt.Errorf("list queues: %w", err)
	}
	writeJSON(w, http.StatusOK, qs)
	return nil
}

// activeQueues: GET /activeQueues → the queues open now: those whose working hours
// (startWork to endWork, read as wall-clock time in the tenant's zone — its
// timeZone setting, America/Cuiaba by default as in spec section 9) include the current minute, and every queue without
// hours. engine.QueueOpenAt states the rule (windows over midnight included).
func (s *Server) activeQueues(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	qs, err := s.deps.Queues.List(r.Context(), p.CompanyID)
	if err != nil {
		return fmt.Errorf("active queues: %w", err)
	}
	loc, err := s.tenantZone(r.Context(), p.CompanyID)
	if err != nil {
		return err
	}
	now := s.clock.Now().In(loc)
	open := make([]engine.Queue, 0, len(qs))
	for _, q := range qs {
		if engine.QueueOpenAt(q, now) {
			open = append(open, q)
		}
	}
	writeJSON(w, http.StatusOK, open)
	return nil
}

// getQueue: GET /queue/{id}.
func (s *Server) getQueue(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := pathID(r, "id", engine.ErrNoQueueFound)
	if err != nil {
		return err
	}
	q, err := s.deps.Queues.Get(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, q)
	return nil
}

// createQueue: POST /queue {name, color, greetingMessage, startWork, endWork,
// absenceMessage, nps, encouragingMessage, url} → 201. Needs queues:manage. A colour
// another queue of the tenant has is 409 ERR_QUEUE_COLOR_ALREADY_EXISTS; once the
// tenant has a queue, a greeting is required (engine.ValidateQueue).
func (s *Server) createQueue(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageQueues); err != nil {
		return err
	}
	var in engine.QueueInput
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	q, err := s.deps.Queues.Create(r.Context(), p.CompanyID, in)
	if err != nil {
		return err
	}
	s.publish(p.CompanyID, "queue", queueEvent{Action: "create", Queue: &q})
	writeJSON(w, http.StatusCreated, q)
	return nil
}

// updateQueue: PUT /queue/{id}, the fields of createQueue. Needs queues:manage.
func (s *Server) updateQueue(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageQueues); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoQueueFound)
	if err != nil {
		return err
	}
	var in engine.QueueInput
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	q, err := s.deps.Queues.Update(r.Context(), p.CompanyID, id, in)
	if err != nil {
		return err
	}
	s.publish(p.CompanyID, "queue", queueEvent{Action: "update", Queue: &q})
	writeJSON(w, http.StatusOK, q)
	return nil
}

// deleteQueue: DELETE /queue/{id} → 204. Needs queues:manage. Users lose the queue
// from their queue list with it.
func (s *Server) deleteQueue(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageQueues); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoQueueFound)
	if err != nil {
		return err
	}
	if err := s.deps.Queues.Delete(r.Context(), p.CompanyID, id); err != nil {
		return err
	}
	s.publish(p.CompanyID, "queue", queueEvent{Action: "delete", QueueID: id})
	writeJSON(w, http.StatusNoContent, nil)
	return nil
}
