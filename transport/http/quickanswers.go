package httpapi

import (
	"fmt"
	"net/http"

	"atende/engine"
)

// quickAnswerEvent is the payload of the realtime "quickAnswer" event.
type quickAnswerEvent struct {
	Action        string              `json:"action"` // create | update | delete
	QuickAnswer   *engine.QuickAnswer `json:"quickAnswer,omitempty"`
	QuickAnswerID engine.ID           `json:"quickAnswerId,omitempty"`
}

// listQuickAnswers: GET /quickAnswers/?searchParam=&pageNumber= → {quickAnswers,
// count, hasMore}, 20 a page, by shortcut. The search matches shortcut or message,
// case and accents ignored; a leading '/' (the composer's trigger) is dropped. Any
// profile may read.
func (s *Server) listQuickAnswers(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	search, page, err := listParams(r)
	if err != nil {
		return err
	}
	list, count, more, err := s.deps.QuickAnswers.List(r.Context(), p.CompanyID, engine.QuickAnswerQuery{
		Search: search,
		Offset: (page - 1) * engine.QuickAnswerPageSize,
	})
	if err != nil {
		return fmt.Errorf("list quick answers: %w", err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"quickAnswers": list, "count": count, "hasMore": more})
	return nil
}

// getQuickAnswer: GET /quickAnswers/{id}.
func (s *Server) getQuickAnswer(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := pathID(r, "id", engine.ErrNoQuickAnswerFound)
	if err != nil {
		return err
	}
	a, err := s.deps.QuickAnswers.Get(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

// createQuickAnswer: POST /quickAnswers {shortcut, message} → 201. Needs
// quick-answers:manage.
func (s *Server) createQuickAnswer(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageQuickAnswers); err != nil {
		return err
	}
	var in engine.QuickAnswerInput
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	a, err := s.deps.QuickAnswers.Create(r.Context(), p.CompanyID, in)
	if err != nil {
		return err
	}
	s.publish(p.CompanyID, "quickAnswer", quickAnswerEvent{Action: "create", QuickAnswer: &a})
	writeJSON(w, http.StatusCreated, a)
	return nil
}

// updateQuickAnswer: PUT /quickAnswers/{id} {shortcut, message}. Needs
// quick-answers:manage.
func (s *Server) updateQuickAnswer(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageQuickAnswers); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoQuickAnswerFound)
	if err != nil {
		return err
	}
	var in engine.QuickAnswerInput
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	a, err := s.deps.QuickAnswers.Update(r.Context(), p.CompanyID, id, in)
	if err != nil {
		return err
	}
	s.publish(p.CompanyID, "quickAnswer", quickAnswerEvent{Action: "update", QuickAnswer: &a})
	writeJSON(w, http.StatusOK, a)
	return nil
}

// deleteQuickAnswer: DELETE /quickAnswers/{id} → 204. Needs quick-answers:manage.
func (s *Server) deleteQuickAnswer(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageQuickAnswers); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoQuickAnswerFound)
	if err != nil {
		return err
	}
	if err := s.deps.QuickAnswers.Delete(r.Context(), p.CompanyID, id); err != nil {
		return err
	}
	s.publish(p.CompanyID, "quickAnswer", quickAnswerEvent{Action: "delete", QuickAnswerID: id})
	writeJSON(w, http.StatusNoContent, nil)
	return nil
}
