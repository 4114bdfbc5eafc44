package meta

import (
	"net/http"

	"atende/engine"
)

// Router is where an adapter registers its routes: transport/http's *Server.
// Authed routes answer their error like every API error; Public routes (web-hooks)
// write their own answers.
type Router interface {
	Authed(pattern string, h func(http.ResponseWriter, *http.Request, engine.Principal) error)
	Public(pattern string, h http.Handler)
}
