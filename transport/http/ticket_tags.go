package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"atende/engine"
)

// tagSyncBody is the body of POST /tags/sync.
type tagSyncBody struct {
	TicketID idField   `json:"ticketId"`
	Tags     *[]tagRef `json:"tags"`
}

// tagRef names a tag in POST /tags/sync: an id (number or numeric string), {id}, a
// whole tag {id, name, color} (the id wins), or {name} for a tag to find or create.
type tagRef struct {
	ID   engine.ID
	Name string
	Bad  bool
}

func (t *tagRef) UnmarshalJSON(b []byte) error {
	*t = tagRef{}
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var obj struct {
			ID   idField `json:"id"`
			Name *string `json:"name"`
		}
		if err := json.Unmarshal(b, &obj); err != nil {
			t.Bad = true
			return nil
		}
		switch {
		case obj.ID.Bad:
			t.Bad = true
		case obj.ID.ID != 0:
			t.ID = obj.ID.ID
		case obj.Name != nil && strings.TrimSpace(*obj.Name) != "":
			t.Name = *obj.Name
		default:
			t.Bad = true
		}
		return nil
	}
	var f idField
	_ = f.UnmarshalJSON(b)
	t.ID, t.Bad = f.ID, f.Bad || f.ID == 0
	return nil
}

// syncTags: POST /tags/sync {ticketId, tags: [id | {id} | {name}, …]} → the ticket with
// its new tags. The list replaces the ticket's whole tag set ([] clears it), as the
// chat's tag picker sends it. Ids must be tags of the tenant (ERR_NO_TAG_FOUND);
// names are found or created first (tags:create, every profile — the picker creates a
// typed tag on the spot; a new tag publishes the "tags" create event). At most
// engine.MaxTicketTags tags (ERR_VALIDATION {tags: "Too Long!"}). Who may tag which
// ticket is the actor's rule.
func (s *Server) syncTags(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	var body tagSyncBody
	if err := s.decodeJSON(r, &body); err != nil {
		return err
	}
	switch {
	case body.TicketID.Bad:
		return fieldError("ticketId", engine.MsgInvalidValue)
	case body.TicketID.ID == 0:
		return fieldError("ticketId", engine.MsgRequired)
	case body.Tags == nil:
		return fieldError("tags", engine.MsgRequired)
	case len(*body.Tags) > engine.MaxTicketTags:
		return fieldError("tags", engine.MsgTooLong)
	}
	var named bool
	for _, t := range *body.Tags {
		if t.Bad {
			return fieldError("tags", engine.MsgInvalidValue)
		}
		named = named || t.ID == 0
	}
	ticketID := body.TicketID.ID
	// The ticket first: no tag is created for a ticket the tenant does not have.
	if _, err := s.deps.TicketQueries.GetTicket(r.Context(), p.CompanyID, ticketID); err != nil {
		return err
	}
	if named {
		if err := requirePermission(p, engine.ActCreateTag); err != nil {
			return err
		}
	}
	ids, err := s.resolveTags(r, p, *body.Tags)
	if err != nil {
		return err
	}
	st, pos, err := s.deps.Tickets.Do(r.Context(), p, ticketID, engine.SetTags{TagIDs: ids})
	if err != nil {
		return err
	}
	t, err := s.ticketAfter(r, p, ticketID, st, pos)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, t)
	return nil
}

// resolveTags turns refs into tag ids of p's tenant: ids are checked against the
// tenant's tags, names are created (or found) through the tag store.
func (s *Server) resolveTags(r *http.Request, p engine.Principal, refs []tagRef) ([]engine.ID, error) {
	ids := make([]engine.ID, 0, len(refs))
	var known map[engine.ID]bool
	for _, ref := range refs {
		if ref.ID == 0 {
			continue
		}
		if known == nil {
			all, err := s.deps.Tags.List(r.Context(), p.CompanyID, "")
			if err != nil {
				return nil, fmt.Errorf("list tags: %w", err)
			}
			known = make(map[engine.ID]bool, len(all))
			for _, t := range all {
				known[t.ID] = true
			}
		}
		if !known[ref.ID] {
			return nil, engine.Wrap(engine.ErrNoTagFound, fmt.Errorf("tag %d not in company %d", ref.ID, p.CompanyID))
		}
		ids = append(ids, ref.ID)
	}
	for _, ref := range refs {
		if ref.ID != 0 {
			continue
		}
		t, created, err := s.deps.Tags.Create(r.Context(), p.CompanyID, engine.TagInput{Name: ref.Name})
		if err != nil {
			return nil, err
		}
		if created {
			s.publish(p.CompanyID, "tags", tagEvent{Action: "create", Tag: &t})
		}
		ids = append(ids, t.ID)
	}
	return engine.NormalizeIDs(ids), nil
}
