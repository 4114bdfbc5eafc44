package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"atende/engine"
)

// PhoneBook reads the address book of a connection's session, wherever the cluster
// runs it: actors.Connections implements it beside ConnectionActors.
type PhoneBook interface {
	PhoneContacts(ctx context.Context, id engine.ID) ([]engine.PhoneContact, error)
}

// importResult is the answer of POST /contacts/import: whaticket's message, and how
// many contacts were added and left out (already known, or not a valid contact).
type importResult struct {
	Message  string `json:"message"`
	Imported int    `json:"imported"`
	Skipped  int    `json:"skipped"`
}

// importContacts: POST /contacts/import, whaticket's "import contacts" button. Like
// whaticket it reads the address book of the tenant's default connection — here the
// default one if it is WhatsApp, else the first WhatsApp connection, as only a
// WhatsApp session has one — and adds every number the tenant does not know yet,
// named as the phone names it. No WhatsApp connection: 404 ERR_NO_DEF_WAPP_FOUND; one
// not paired: 400 ERR_WAPP_NOT_INITIALIZED. Any profile may import, as any may add
// contacts. No contact event is sent per imported contact (an address book holds
// thousands): clients reload the list, as whaticket's does.
func (s *Server) importContacts(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	book, ok := s.deps.Actors.(PhoneBook)
	if !ok || s.deps.Connections == nil {
		return engine.Wrap(engine.ErrUnavailable, fmt.Errorf("connection actors %T read no address book", s.deps.Actors))
	}
	ctx := r.Context()
	conns, err := s.deps.Connections.List(ctx, p.CompanyID)
	if err != nil {
		return fmt.Errorf("import contacts: %w", err)
	}
	var from *engine.Connection
	for i := range conns {
		if conns[i].Channel != engine.ChannelWhatsApp {
			continue
		}
		if from == nil || (conns[i].IsDefault && !from.IsDefault) {
			from = &conns[i]
		}
	}
	if from == nil {
		return engine.E(engine.ErrNoDefWappFound)
	}
	list, err := book.PhoneContacts(ctx, from.ID)
	if err != nil {
		return err
	}
	res := importResult{Message: "contacts imported"}
	for _, pc := range list {
		_, err := s.deps.Contacts.Create(ctx, p.CompanyID, engine.ContactInput{Name: importName(pc), Number: pc.Number})
		switch {
		case err == nil:
			res.Imported++
		case engine.CodeOf(err) == engine.ErrDuplicatedContact, engine.CodeOf(err) == engine.ErrValidation:
			res.Skipped++
		default:
			return fmt.Errorf("import contact: %w", err)
		}
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

// importName is the phone's name for a contact, cut to the contact form's limit; a
// name too short for the form is the number.
func importName(pc engine.PhoneContact) string {
	name := strings.TrimSpace(pc.Name)
	if utf8.RuneCountInString(name) > engine.NameMax {
		name = strings.TrimSpace(string([]rune(name)[:engine.NameMax]))
	}
	if utf8.RuneCountInString(name) < engine.NameMin {
		return pc.Number
	}
	return name
}
