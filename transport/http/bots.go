package httpapi

import (
	"fmt"
	"net/http"

	"atende/engine"
)

// botRoutes registers the reception-menu bot routes (docs/bots.md). Every route
// needs bots:manage (the Bots page sits in the drawer's business section: admin and
// super) and works on the caller's tenant only. Every change publishes the realtime
// event "bot" to the tenant's bots:manage holders: {action: "create" | "update" | "delete" | "reorder",
// bot | botId | bots}.
func (s *Server) botRoutes() {
	wired := s.deps.Bots != nil
	s.refRoute("GET /bots", wired, s.listBots)
	s.refRoute("GET /bots/{$}", wired, s.listBots)
	s.refRoute("GET /bots/{id}", wired, s.getBot)
	s.refRoute("POST /bots", wired, s.createBot)
	s.refRoute("POST /bots/reorder", wired, s.reorderBots)
	s.refRoute("PUT /bots/{id}", wired, s.updateBot)
	s.refRoute("DELETE /bots/{id}", wired, s.deleteBot)
}

// EventBot is the socket event of a change to the bot levels.
const EventBot = "bot"

// publishBot holds the event to the tenant's sockets whose profile has bots:manage:
// the menus are the Bots page's business only.
func (s *Server) publishBot(p engine.Principal, ev botEvent) {
	if pp, ok := s.deps.Publisher.(PermissionPublisher); ok {
		pp.PublishTo(p.CompanyID, EventBot, engine.ActManageBots, ev)
	}
}

// botEvent is the payload of the realtime "bot" event.
type botEvent struct {
	Action string            `json:"action"`
	Bot    *engine.BotLevel  `json:"bot,omitempty"`
	BotID  engine.ID         `json:"botId,omitempty"`
	Bots   []engine.BotLevel `json:"bots,omitempty"`
}

// listBots: GET /bots → {bots: [...]}, every level of the tenant (a tree by parentId),
// by parent then commandBot.
func (s *Server) listBots(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageBots); err != nil {
		return err
	}
	list, err := s.deps.Bots.List(r.Context(), p.CompanyID)
	if err != nil {
		return fmt.Errorf("list bots: %w", err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"bots": list})
	return nil
}

// getBot: GET /bots/{id}.
func (s *Server) getBot(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageBots); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoBotFound)
	if err != nil {
		return err
	}
	b, err := s.deps.Bots.Get(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, b)
	return nil
}

// createBot: POST /bots {parentId, commandBot, descriptionBot, commandType,
// showMessage, userId, queueId} → 201.
func (s *Server) createBot(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageBots); err != nil {
		return err
	}
	var in engine.BotLevelInput
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	b, err := s.deps.Bots.Create(r.Context(), p.CompanyID, in)
	if err != nil {
		return err
	}
	s.publishBot(p, botEvent{Action: "create", Bot: &b})
	writeJSON(w, http.StatusCreated, b)
	return nil
}

// updateBot: PUT /bots/{id}, the same body as createBot.
func (s *Server) updateBot(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageBots); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoBotFound)
	if err != nil {
		return err
	}
	var in engine.BotLevelInput
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	b, err := s.deps.Bots.Update(r.Context(), p.CompanyID, id, in)
	if err != nil {
		return err
	}
	s.publishBot(p, botEvent{Action: "update", Bot: &b})
	writeJSON(w, http.StatusOK, b)
	return nil
}

// deleteBot: DELETE /bots/{id} → 204; the levels below it go with it.
func (s *Server) deleteBot(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageBots); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoBotFound)
	if err != nil {
		return err
	}
	if err := s.deps.Bots.Delete(r.Context(), p.CompanyID, id); err != nil {
		return err
	}
	s.publishBot(p, botEvent{Action: "delete", BotID: id})
	writeJSON(w, http.StatusNoContent, nil)
	return nil
}

// botReorder is the body of POST /bots/reorder: every child of parentId (0: the first
// menu), in their new order; they are renumbered 1..n.
type botReorder struct {
	ParentID engine.ID   `json:"parentId"`
	IDs      []engine.ID `json:"ids"`
}

// reorderBots: POST /bots/reorder {parentId, ids} → {bots: the renumbered levels}.
func (s *Server) reorderBots(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageBots); err != nil {
		return err
	}
	var in botReorder
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	if in.ParentID < 0 {
		return &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{"parentId": engine.MsgInvalidValue}}
	}
	list, err := s.deps.Bots.Reorder(r.Context(), p.CompanyID, in.ParentID, in.IDs)
	if err != nil {
		return err
	}
	s.publishBot(p, botEvent{Action: "reorder", Bots: list})
	writeJSON(w, http.StatusOK, map[string]any{"bots": list})
	return nil
}
