package httpapi

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"atende/engine"
)

// supervisionRoutes registers the wait panel and the client maps.
func (s *Server) supervisionRoutes() {
	s.refRoute("GET /supervision/waitpanel", s.deps.WaitPanel != nil && s.deps.Presence != nil, s.waitPanel)
	s.refRoute("GET /maps/contacts", s.deps.Locations != nil, s.mapContacts)
	s.route("GET /maps/config", s.authed(s.mapConfig))
}

// waitPanel answers GET /supervision/waitpanel: the wait panel and attendance radar
// of the caller's tenant (engine.WaitPanel) with who is online, for the supervision
// section (drawer-superv-items:view: superv and upward).
func (s *Server) waitPanel(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewSupervMenu); err != nil {
		return err
	}
	panel, err := s.deps.WaitPanel.WaitPanel(r.Context(), p.CompanyID)
	if err != nil {
		return fmt.Errorf("wait panel: %w", err)
	}
	online, err := s.deps.Presence.Online(r.Context(), p.CompanyID)
	if err != nil {
		return fmt.Errorf("wait panel: presence: %w", err)
	}
	panel.AddPresence(online)
	panel.At = s.clock.Now().UTC()
	writeJSON(w, http.StatusOK, panel)
	return nil
}

// mapContacts answers GET /maps/contacts?after=&limit=: one page of the tenant's
// contacts with a location (engine.LocationPage), for client-map:view.
func (s *Server) mapContacts(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewClientMap); err != nil {
		return err
	}
	after, err := queryInt(r, "after", 0)
	if err != nil {
		return err
	}
	if after < 0 {
		return fieldError("after", engine.MsgInvalidValue)
	}
	limit, err := queryInt(r, "limit", engine.LocationPageSize)
	if err != nil {
		return err
	}
	if limit < 1 || limit > engine.LocationPageSize {
		return fieldError("limit", engine.MsgInvalidValue)
	}
	page, err := s.deps.Locations.ContactLocations(r.Context(), p.CompanyID, engine.ID(after), limit)
	if err != nil {
		return fmt.Errorf("map contacts: %w", err)
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// mapConfigView is the answer of GET /maps/config.
type mapConfigView struct {
	TileURL     string `json:"tileUrl"`
	Attribution string `json:"attribution"`
}

// mapConfig answers GET /maps/config: the tile server of the maps (empty: none, the
// maps draw on a blank background). Every member of staff reads it: the chat's
// contact drawer shows the contact's location on a small map.
func (s *Server) mapConfig(w http.ResponseWriter, _ *http.Request, _ engine.Principal) error {
	writeJSON(w, http.StatusOK, mapConfigView{TileURL: s.cfg.MapTileURL, Attribution: s.cfg.MapTileAttribution})
	return nil
}

// checkTileURL accepts an empty tile URL or an absolute http(s) Leaflet template
// with {z}, {x} and {y}.
func checkTileURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(strings.NewReplacer("{", "", "}", "").Replace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("map tile URL %q: want an absolute http or https URL", raw)
	}
	for _, v := range []string{"{z}", "{x}", "{y}"} {
		if !strings.Contains(raw, v) {
			return fmt.Errorf("map tile URL %q: missing %s", raw, v)
		}
	}
	return nil
}

// tileOrigin is the origin of a tile URL template, with a "{s}" subdomain placeholder
// widened to a wildcard ("https://{s}.tile.example" → "https://*.tile.example"); ""
// when raw is empty.
func tileOrigin(raw string) string {
	if raw == "" {
		return ""
	}
	scheme, rest, _ := strings.Cut(raw, "://")
	host, _, _ := strings.Cut(rest, "/")
	host = strings.ReplaceAll(host, "{s}", "*")
	return scheme + "://" + host
}
