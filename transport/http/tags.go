package httpapi

import (
	"fmt"
	"net/http"

	"atende/engine"
)

// tagEvent is the payload of the realtime "tags" event.
type tagEvent struct {
	Action string      `json:"action"` // create | update | delete
	Tag    *engine.Tag `json:"tag,omitempty"`
	TagID  engine.ID   `json:"tagId,omitempty"`
}

// allTags: GET /tags/list → every tag of the tenant, by name (the tag picker).
func (s *Server) allTags(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	tags, err := s.deps.Tags.List(r.Context(), p.CompanyID, "")
	if err != nil {
		return fmt.Errorf("list tags: %w", err)
	}
	writeJSON(w, http.StatusOK, tags)
	return nil
}

// searchTags: GET /tags?searchParam= → {tags, count, hasMore}: the tags whose name
// contains the term, case and accents ignored. A tenant's tags fit one page, so
// hasMore is always false; the shape matches the other list routes.
func (s *Server) searchTags(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	search, _, err := listParams(r)
	if err != nil {
		return err
	}
	tags, err := s.deps.Tags.List(r.Context(), p.CompanyID, search)
	if err != nil {
		return fmt.Errorf("search tags: %w", err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"tags": tags, "count": len(tags), "hasMore": false})
	return nil
}

// createTag: POST /tags {name, color?} → 201 and the new tag, or 200 and the tenant's
// tag of that name (case and accents ignored) when it exists — the chat's tag picker
// creates a typed tag this way and must get the existing one back. Needs tags:create
// (every profile). A tag without a colour gets one of a fixed palette.
func (s *Server) createTag(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActCreateTag); err != nil {
		return err
	}
	var in engine.TagInput
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	t, created, err := s.deps.Tags.Create(r.Context(), p.CompanyID, in)
	if err != nil {
		return err
	}
	if !created {
		writeJSON(w, http.StatusOK, t)
		return nil
	}
	s.publish(p.CompanyID, "tags", tagEvent{Action: "create", Tag: &t})
	writeJSON(w, http.StatusCreated, t)
	return nil
}

// updateTag: PUT /tags/{id} {name, color?}. Needs tags:manage. A name another tag has
// is ERR_VALIDATION {name: "Already exists"}; an empty colour keeps the current one.
func (s *Server) updateTag(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageTags); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoTagFound)
	if err != nil {
		return err
	}
	var in engine.TagInput
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	t, err := s.deps.Tags.Update(r.Context(), p.CompanyID, id, in)
	if err != nil {
		return err
	}
	s.publish(p.CompanyID, "tags", tagEvent{Action: "update", Tag: &t})
	writeJSON(w, http.StatusOK, t)
	return nil
}

// deleteTag: DELETE /tags/{id} → 204. Needs tags:manage; tickets lose the tag.
func (s *Server) deleteTag(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageTags); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoTagFound)
	if err != nil {
		return err
	}
	if err := s.deps.Tags.Delete(r.Context(), p.CompanyID, id); err != nil {
		return err
	}
	s.publish(p.CompanyID, "tags", tagEvent{Action: "delete", TagID: id})
	writeJSON(w, http.StatusNoContent, nil)
	return nil
}
