package httpapi

import (
	"net/http"

	"atende/engine"
)

// refRoutes registers the reference-data routes (contacts, queues, tags, quick
// answers, and the stores added beside them); routes calls it.
//
// Reading reference data needs only a login to the tenant; writes need the actions of
// engine/permission.go named beside each handler. Every change publishes a realtime
// event to the tenant: "contact", "queue", "tags" or "quickAnswer", with payload
// {action: "create" | "update" | "delete", <entity> | <entity>Id}.
func (s *Server) refRoutes() {
	contacts, queues := s.deps.Contacts != nil, s.deps.Queues != nil
	tags, quickAnswers := s.deps.Tags != nil, s.deps.QuickAnswers != nil
	if missing := s.deps.unwiredRefDeps(); len(missing) > 0 {
		s.log.Warn().Strs("stores", missing).Msg("reference-data stores not wired: their routes answer 503")
	}

	// Contacts. POST /contact is the spec's second spelling of POST /contacts.
	s.refRoute("GET /contacts", contacts, s.listContacts)
	s.refRoute("GET /contacts/{$}", contacts, s.listContacts)
	s.refRoute("GET /contacts/{id}", contacts, s.getContact)
	s.refRoute("POST /contacts", contacts, s.createContact)
	s.refRoute("POST /contact", contacts, s.createContact)
	s.refRoute("PUT /contacts/{id}", contacts, s.updateContact)
	s.refRoute("DELETE /contacts/{id}", contacts, s.deleteContact)
	s.refRoute("PUT /opportunity/{id}", contacts, s.closeOpportunity)

	// Queues.
	s.refRoute("GET /queue", queues, s.listQueues)
	s.refRoute("GET /queue/{$}", queues, s.listQueues)
	s.refRoute("GET /activeQueues", queues, s.activeQueues)
	s.refRoute("GET /queue/{id}", queues, s.getQueue)
	s.refRoute("POST /queue", queues, s.createQueue)
	s.refRoute("PUT /queue/{id}", queues, s.updateQueue)
	s.refRoute("DELETE /queue/{id}", queues, s.deleteQueue)

	// Tags. (POST /tags/sync belongs to the ticket routes.)
	s.refRoute("GET /tags/list", tags, s.allTags)
	s.refRoute("GET /tags", tags, s.searchTags)
	s.refRoute("GET /tags/{$}", tags, s.searchTags)
	s.refRoute("POST /tags", tags, s.createTag)
	s.refRoute("PUT /tags/{id}", tags, s.updateTag)
	s.refRoute("DELETE /tags/{id}", tags, s.deleteTag)

	// Quick answers. "/quickAnswers/" is the spec's list path; "/quickAnswers" answers
	// the same.
	s.refRoute("GET /quickAnswers", quickAnswers, s.listQuickAnswers)
	s.refRoute("GET /quickAnswers/{$}", quickAnswers, s.listQuickAnswers)
	s.refRoute("GET /quickAnswers/{id}", quickAnswers, s.getQuickAnswer)
	s.refRoute("POST /quickAnswers", quickAnswers, s.createQuickAnswer)
	s.refRoute("PUT /quickAnswers/{id}", quickAnswers, s.updateQuickAnswer)
	s.refRoute("DELETE /quickAnswers/{id}", quickAnswers, s.deleteQuickAnswer)

	// Announcements (announcements.go): everyone reads, announcements:manage writes.
	announcements := s.deps.Announcements != nil
	s.refRoute("GET /announcements", announcements, s.listAnnouncements)
	s.refRoute("GET /announcements/{$}", announcements, s.listAnnouncements)
	s.refRoute("GET /announcements/{id}", announcements, s.getAnnouncement)
	s.refRoute("POST /announcements", announcements, s.createAnnouncement)
	s.refRoute("PUT /announcements/{id}", announcements, s.updateAnnouncement)
	s.refRoute("DELETE /announcements/{id}", announcements, s.deleteAnnouncement)

	// Catalog and categories (catalog.go).
	s.catalogRoutes()

	// Who is online (presence.go).
	s.refRoute("GET /presence", s.deps.Presence != nil, s.presence)

	// The booking scheduler (slots.go).
	s.slotRoutes()

	// The dashboard (dashboard.go).
	s.dashboardRoutes()
}

// refRoute registers h at pattern behind authentication, or a 503 ERR_UNAVAILABLE
// answer when the store it needs is not wired (wired false).
func (s *Server) refRoute(pattern string, wired bool, h authedFunc) {
	if !wired {
		h = func(http.ResponseWriter, *http.Request, engine.Principal) error {
			return engine.E(engine.ErrUnavailable)
		}
	}
	s.route(pattern, s.authed(h))
}
