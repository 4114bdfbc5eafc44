package httpapi

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"atende/engine"
)

// presenceView is the answer of GET /presence.
type presenceView struct {
	// Users are the tenant's users online (an attendant socket open on any node).
	Users []presenceUser `json:"users"`
	// Queues maps each queue id to the ids of its online users, ascending.
	Queues map[string][]engine.ID `json:"queues"`
}

type presenceUser struct {
	UserID   engine.ID   `json:"userId"`
	QueueIDs []engine.ID `json:"queueIds"`
	Since    time.Time   `json:"since"`
}

// presence answers GET /presence: who of the caller's tenant is online, and
// per queue, for the supervision screens (superv and upward: drawer-superv-items:view,
// spec section 6). The same on every node (engine.Presence: Redis in a cluster).
func (s *Server) presence(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewSupervMenu); err != nil {
		return err
	}
	entries, err := s.deps.Presence.Online(r.Context(), p.CompanyID)
	if err != nil {
		return fmt.Errorf("presence: read: %w", err)
	}
	out := presenceView{Users: []presenceUser{}, Queues: map[string][]engine.ID{}}
	for _, e := range entries {
		qs := e.QueueIDs
		if qs == nil {
			qs = []engine.ID{}
		}
		out.Users = append(out.Users, presenceUser{UserID: e.UserID, QueueIDs: qs, Since: e.Since.UTC()})
		for _, q := range e.QueueIDs {
			k := strconv.FormatInt(q, 10)
			out.Queues[k] = append(out.Queues[k], e.UserID)
		}
	}
	slices.SortFunc(out.Users, func(x, y presenceUser) int { return cmp.Compare(x.UserID, y.UserID) })
	for _, ids := range out.Queues {
		slices.Sort(ids)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
