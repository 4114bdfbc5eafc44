package httpapi

import (
	"fmt"
	"net/http"

	"atende/engine"
)

// announcementEvent is the payload of the realtime "announcement" event.
type announcementEvent struct {
	Action         string               `json:"action"` // create | update | delete
	Announcement   *engine.Announcement `json:"announcement,omitempty"`
	AnnouncementID engine.ID            `json:"announcementId,omitempty"`
}

// listAnnouncements: GET /announcements/?searchParam=&pageNumber=&status=active →
// {records, count, hasMore}, 20 a page, newest first. The search matches title or
// text, case and accents ignored; status=active keeps the active ones (the top bar
// asks for the newest). Any profile may read.
func (s *Server) listAnnouncements(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	search, page, err := listParams(r)
	if err != nil {
		return err
	}
	q := engine.AnnouncementQuery{Search: search, Offset: (page - 1) * engine.AnnouncementPageSize}
	switch queryString(r, "status") {
	case "":
	case "active":
		q.ActiveOnly = true
	default:
		return fieldError("status", engine.MsgInvalidValue)
	}
	list, count, more, err := s.deps.Announcements.List(r.Context(), p.CompanyID, q)
	if err != nil {
		return fmt.Errorf("list announcements: %w", err)
	}
	for i := range list {
		list[i] = s.presentAnnouncement(list[i])
	}
	writeJSON(w, http.StatusOK, map[string]any{"records": list, "count": count, "hasMore": more})
	return nil
}

// getAnnouncement: GET /announcements/{id}.
func (s *Server) getAnnouncement(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := pathID(r, "id", engine.ErrNotFound)
	if err != nil {
		return err
	}
	a, err := s.deps.Announcements.Get(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.presentAnnouncement(a))
	return nil
}

// createAnnouncement: POST /announcements {title, text, priority, status} → 201, as
// JSON or as a multipart form with the same fields and one file (announcement_form.go).
// Needs announcements:manage.
func (s *Server) createAnnouncement(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageAnnouncements); err != nil {
		return err
	}
	in, err := s.readAnnouncementForm(w, r, p)
	if err != nil {
		return err
	}
	a, err := s.deps.Announcements.Create(r.Context(), p.CompanyID, in)
	if err != nil {
		s.discardAnnouncementMedia(r, p, in.Media)
		return err
	}
	a = s.presentAnnouncement(a)
	s.publish(p.CompanyID, "announcement", announcementEvent{Action: "create", Announcement: &a})
	writeJSON(w, http.StatusCreated, a)
	return nil
}

// updateAnnouncement: PUT /announcements/{id} {title, text, priority, status}, JSON or
// multipart; a missing status keeps the stored one, a form without a file keeps the
// attachment (removeMedia=true drops it), a new file replaces it (the old file is
// removed). Needs announcements:manage.
func (s *Server) updateAnnouncement(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageAnnouncements); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNotFound)
	if err != nil {
		return err
	}
	// Another tenant's announcement is not found before anything is stored for it.
	if _, err := s.deps.Announcements.Get(r.Context(), p.CompanyID, id); err != nil {
		return err
	}
	in, err := s.readAnnouncementForm(w, r, p)
	if err != nil {
		return err
	}
	before, a, err := s.deps.Announcements.Update(r.Context(), p.CompanyID, id, in)
	if err != nil {
		s.discardAnnouncementMedia(r, p, in.Media)
		return err
	}
	if before.MediaPath != "" && before.MediaPath != a.MediaPath {
		s.discardAnnouncementMedia(r, p, &engine.AnnouncementMedia{Path: before.MediaPath})
	}
	a = s.presentAnnouncement(a)
	s.publish(p.CompanyID, "announcement", announcementEvent{Action: "update", Announcement: &a})
	writeJSON(w, http.StatusOK, a)
	return nil
}

// deleteAnnouncement: DELETE /announcements/{id} → 204. Needs announcements:manage.
func (s *Server) deleteAnnouncement(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageAnnouncements); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNotFound)
	if err != nil {
		return err
	}
	old, err := s.deps.Announcements.Get(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	if err := s.deps.Announcements.Delete(r.Context(), p.CompanyID, id); err != nil {
		return err
	}
	if old.MediaPath != "" {
		s.discardAnnouncementMedia(r, p, &engine.AnnouncementMedia{Path: old.MediaPath})
	}
	s.publish(p.CompanyID, "announcement", announcementEvent{Action: "delete", AnnouncementID: id})
	writeJSON(w, http.StatusNoContent, nil)
	return nil
}
