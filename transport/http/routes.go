package httpapi

import (
	"net/http"

	"atende/engine"
)

// routes registers every route. Reference data (contacts, queues, tags, quick
// answers) is registered by refRoutes in routes_ref.go, tickets and messages by
// ticketRoutes in tickets.go.
func (s *Server) routes() {
	// Authentication (public: the refresh cookie is the credential).
	s.route("POST /auth/login", s.public(s.login))
	s.route("POST /auth/refresh_token", s.public(s.refresh))
	s.route("DELETE /auth/logout", s.public(s.logout))
	s.route("POST /auth/signup", s.public(s.signup))

	// Users. "/users/" is the spec's list path; "/users" answers the same.
	s.route("GET /users", s.authed(s.listUsers))
	s.route("GET /users/{$}", s.authed(s.listUsers))
	s.route("GET /users/list", s.authed(s.allUsers))
	s.route("GET /users/{id}", s.authed(s.getUser))
	s.route("POST /users", s.authed(s.createUser))
	s.route("PUT /users/{id}", s.authed(s.updateUser))
	s.route("DELETE /users/{id}", s.authed(s.deleteUser))

	// Settings.
	s.route("GET /settings", s.authed(s.listSettings))
	s.route("PUT /settings/{key}", s.authed(s.updateSetting))

	s.refRoutes()
	s.botRoutes()
	s.bookingRoutes()
	s.scheduleRoutes()
	s.connectionRoutes()
	s.ticketRoutes()
	s.tenantRoutes()
	s.chatRoutes()
	s.opsRoutes()
	s.supervisionRoutes()
	s.calendarFeedRoutes()
	s.apiTokenRoutes()
	s.aiRoutes()
	s.campaignRoutes()
	s.groupRoutes()
}

// Authed registers an authenticated route of another package (the channel adapters'
// connection routes, e.g. POST /wacloudapi); h's error is answered like every API
// error. Call it before serving.
func (s *Server) Authed(pattern string, h func(http.ResponseWriter, *http.Request, engine.Principal) error) {
	s.route(pattern, s.authed(h))
}

// Public registers an unauthenticated route of another package (a provider's
// web-hook, which authenticates the request itself). Call it before serving.
func (s *Server) Public(pattern string, h http.Handler) { s.route(pattern, h) }
