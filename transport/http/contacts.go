package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"atende/engine"
)

// contactEvent is the payload of the realtime "contact" event.
type contactEvent struct {
	Action    string          `json:"action"` // create | update | delete
	Contact   *engine.Contact `json:"contact,omitempty"`
	ContactID engine.ID       `json:"contactId,omitempty"`
}

// contactPage is the answer of GET /contacts. Count is absent from the pages of a
// cursor walk (see listContacts).
type contactPage struct {
	Contacts []engine.Contact `json:"contacts"`
	Count    *int             `json:"count,omitempty"`
	HasMore  bool             `json:"hasMore"`
	// NextCursor continues after this page (see listContacts); "" on the last page.
	NextCursor string `json:"nextCursor"`
}

// listContacts: GET /contacts?searchParam=&pageNumber=&cursor= → {contacts, count,
// hasMore, nextCursor}, 40 a page, ordered by name (case and accents folded) then id.
//
// Paging: the spec's client sends pageNumber, served as an offset of
// (pageNumber-1)×40 rows on the (tenant, folded name, id) index — cheap for the pages
// a person scrolls through, but proportional to depth. A client that passes back the
// nextCursor of the previous answer as cursor gets keyset paging instead: every page
// costs the same at any depth, even at a million contacts, and no contact is skipped
// or repeated while others are added or removed. cursor wins over pageNumber. The
// count (a scan of every match) is left out of cursor pages: the client has it from
// the first page.
func (s *Server) listContacts(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	search, page, err := listParams(r)
	if err != nil {
		return err
	}
	q := engine.ContactQuery{Search: search, Cursor: queryString(r, "cursor")}
	if q.Cursor == "" {
		q.Offset = (page - 1) * engine.ContactPageSize
	} else {
		q.SkipCount = true
	}
	res, err := s.deps.Contacts.List(r.Context(), p.CompanyID, q)
	if err != nil {
		return err
	}
	out := contactPage{Contacts: res.Contacts, HasMore: res.HasMore, NextCursor: res.NextCursor}
	if res.Count >= 0 {
		out.Count = &res.Count
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// getContact: GET /contacts/{id}, with extra info, opportunities and appraisal sums.
func (s *Server) getContact(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := pathID(r, "id", engine.ErrNoContactFound)
	if err != nil {
		return err
	}
	c, err := s.deps.Contacts.Get(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

// contactBody is the body of POST /contacts, POST /contact and PUT /contacts/{id}.
// On update an absent (or null) extraInfo or salesOpps leaves that list unchanged; a
// list replaces it (items keep their rows by id).
type contactBody struct {
	Name      string             `json:"name"`
	Number    string             `json:"number"`
	Email     string             `json:"email"`
	ExtraInfo []engine.ExtraInfo `json:"extraInfo"`
	SalesOpps []oppBody          `json:"salesOpps"`
}

// oppBody is a sales opportunity as a client sends it.
type oppBody struct {
	ID            engine.ID     `json:"id"`
	Name          string        `json:"name"`
	Value         string        `json:"value"`
	Stage         string        `json:"stage"`
	ClosingStatus closingStatus `json:"closingStatus"`
}

// closingStatus reads a closing status as the spec describes it: 1 won, 0 lost,
// empty open — so null, absent and "" are open, and "0" / "1" are read as numbers.
type closingStatus struct{ v *int }

func (c *closingStatus) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" || string(b) == `""` {
		c.v = nil
		return nil
	}
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return errors.New("closingStatus: want 0, 1, null or \"\"")
		}
		if n, err = strconv.Atoi(s); err != nil {
			return errors.New("closingStatus: want 0, 1, null or \"\"")
		}
	}
	c.v = &n
	return nil
}

func (b contactBody) input() engine.ContactInput {
	in := engine.ContactInput{Name: b.Name, Number: b.Number, Email: b.Email, ExtraInfo: b.ExtraInfo}
	if b.SalesOpps != nil {
		in.SalesOpps = make([]engine.SalesOpp, len(b.SalesOpps))
		for i, o := range b.SalesOpps {
			in.SalesOpps[i] = engine.SalesOpp{ID: o.ID, Name: o.Name, Value: o.Value, Stage: o.Stage, ClosingStatus: o.ClosingStatus.v}
		}
	}
	return in
}

// createContact: POST /contacts and POST /contact {name, number, email, extraInfo?,
// salesOpps?} → 201 and the contact. The number is kept as digits only ("+55 (65)
// 99999-0000" → 5565999990000); a number the tenant already has is 409
// ERR_DUPLICATED_CONTACT. Any profile of the tenant may add contacts.
func (s *Server) createContact(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	var body contactBody
	if err := s.decodeJSON(r, &body); err != nil {
		return err
	}
	c, err := s.deps.Contacts.Create(r.Context(), p.CompanyID, body.input())
	if err != nil {
		return err
	}
	s.publish(p.CompanyID, "contact", contactEvent{Action: "create", Contact: &c})
	writeJSON(w, http.StatusCreated, c)
	return nil
}

// updateContact: PUT /contacts/{id} {name, number, email, extraInfo, salesOpps} → the
// contact. Any profile of the tenant may edit contacts; a closing status once set
// stays (PUT /opportunity is the way to set one).
func (s *Server) updateContact(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := pathID(r, "id", engine.ErrNoContactFound)
	if err != nil {
		return err
	}
	var body contactBody
	if err := s.decodeJSON(r, &body); err != nil {
		return err
	}
	c, err := s.deps.Contacts.Update(r.Context(), p.CompanyID, id, body.input())
	if err != nil {
		return err
	}
	s.publish(p.CompanyID, "contact", contactEvent{Action: "update", Contact: &c})
	writeJSON(w, http.StatusOK, c)
	return nil
}

// deleteContact: DELETE /contacts/{id} → 204. Needs contacts-page:deleteContact
// (admin, super).
func (s *Server) deleteContact(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActDeleteContact); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoContactFound)
	if err != nil {
		return err
	}
	if err := s.refusePendingSchedules(r, p, id, 0); err != nil {
		return err
	}
	if err := s.deps.Contacts.Delete(r.Context(), p.CompanyID, id); err != nil {
		return err
	}
	s.publish(p.CompanyID, "contact", contactEvent{Action: "delete", ContactID: id})
	writeJSON(w, http.StatusNoContent, nil)
	return nil
}

// opportunityBody is the body of PUT /opportunity/{id}.
type opportunityBody struct {
	ClosingStatus closingStatus `json:"closingStatus"`
	OppID         engine.ID     `json:"oppId"`
}

// closeOpportunity: PUT /opportunity/{id} {closingStatus: 0|1, oppId} → the contact.
// Marks an open sales opportunity lost (0) or won (1); once marked it is final: a
// second mark is 409 ERR_INVALID_TRANSITION. Any profile of the tenant may mark.
//
// The spec names {id} the contact and oppId the opportunity; the web app of this tree
// sends the opportunity's id in both places. Both are served: when oppId is absent
// or equals {id}, {id} names the opportunity (of any contact of the tenant);
// otherwise the opportunity must belong to contact {id}. An unknown opportunity is
// ERR_NO_CONTACT_FOUND.
func (s *Server) closeOpportunity(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := pathID(r, "id", engine.ErrNoContactFound)
	if err != nil {
		return err
	}
	var body opportunityBody
	if err := s.decodeJSON(r, &body); err != nil {
		return err
	}
	if body.ClosingStatus.v == nil {
		return fieldError("closingStatus", engine.MsgRequired)
	}
	if body.OppID < 0 {
		return fieldError("oppId", engine.MsgInvalidValue)
	}
	contactID, oppID := id, body.OppID
	if oppID == 0 || oppID == id {
		contactID, oppID = 0, id
	}
	c, err := s.deps.Contacts.CloseSalesOpp(r.Context(), p.CompanyID, contactID, oppID, *body.ClosingStatus.v)
	if err != nil {
		return fmt.Errorf("close opportunity %d: %w", oppID, err)
	}
	s.publish(p.CompanyID, "contact", contactEvent{Action: "update", Contact: &c})
	writeJSON(w, http.StatusOK, c)
	return nil
}
