package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"atende/engine"
)

// Sequential WhatsApp groups (issue 12 item 4, docs/groups.md, docs/api.md "Groups").
// Every route but /groupjoin needs groups:manage (admin and super); each reads and
// writes the caller's tenant only. Progress is published as the realtime event
// "groupBatch" {action, batch} to the tenant's sockets whose profile has
// groups:manage. POST /groupjoin/{token} is public: the visitor's page asks for the
// invite link of the next group with room.

// GroupStore keeps the batches and runs their job (persistence/groups.Store).
type GroupStore interface {
	Create(ctx context.Context, companyID, userID engine.ID, in engine.GroupBatchInput) (engine.GroupBatch, error)
	Get(ctx context.Context, companyID, id engine.ID) (engine.GroupBatch, error)
	List(ctx context.Context, companyID engine.ID) ([]engine.GroupBatch, error)
	Join(ctx context.Context, token string) (string, error)
}

// groupEvent is the payload of the realtime "groupBatch" event.
type groupEvent struct {
	Action string             `json:"action"` // create | update
	Batch  *engine.GroupBatch `json:"batch"`
}

// PublishGroupBatch publishes a batch whose progress changed in its job.
func (s *Server) PublishGroupBatch(b engine.GroupBatch) { s.publishGroupBatch("update", b) }

// publishGroupBatch sends the "groupBatch" event to the tenant's sockets that may
// manage groups; without a PermissionPublisher it is not sent (a plain publish would
// reach attendants too).
func (s *Server) publishGroupBatch(action string, b engine.GroupBatch) {
	if pp, ok := s.deps.Publisher.(PermissionPublisher); ok {
		pp.PublishTo(b.CompanyID, "groupBatch", engine.ActManageGroups, groupEvent{Action: action, Batch: &b})
	}
}

func (s *Server) groupRoutes() {
	wired := s.deps.Groups != nil
	s.refRoute("GET /groups", wired, s.listGroupBatches)
	s.refRoute("POST /groups", wired, s.createGroupBatch)
	s.refRoute("POST /groups/media", wired, s.uploadGroupPicture)
	s.refRoute("GET /groups/{id}", wired, s.getGroupBatch)
	s.route("POST /groupjoin/{token}", s.public(s.groupJoin))
}

// listGroupBatches: GET /groups → {batches}, newest first, each with its groups.
func (s *Server) listGroupBatches(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageGroups); err != nil {
		return err
	}
	list, err := s.deps.Groups.List(r.Context(), p.CompanyID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"batches": list})
	return nil
}

// groupBody is the JSON of POST /groups: engine.GroupBatchInput with the numbers
// as the form may send them (a root of "007" or 7; counts as numbers).
type groupBody struct {
	engine.GroupBatchInput
	Root rootField `json:"root"`
}

// rootField reads the root of the numbering as a JSON string or number; the digits
// are kept as written ("007").
type rootField string

func (f *rootField) UnmarshalJSON(b []byte) error {
	v := strings.TrimSpace(string(b))
	if uq, err := strconv.Unquote(v); err == nil {
		*f = rootField(uq)
		return nil
	}
	if _, err := strconv.ParseUint(v, 10, 16); err != nil {
		*f = rootField("x") // not a root: answered as Invalid value
		return nil
	}
	*f = rootField(v)
	return nil
}

// createGroupBatch: POST /groups → 201 the batch, its job started.
func (s *Server) createGroupBatch(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageGroups); err != nil {
		return err
	}
	var body groupBody
	if err := s.decodeJSON(r, &body); err != nil {
		return err
	}
	in := body.GroupBatchInput
	in.Root = string(body.Root)
	// The picture is the tenant's own upload (POST /groups/media).
	prefix := strconv.FormatInt(p.CompanyID, 10) + "/"
	if in.MediaPath != "" && (!strings.HasPrefix(in.MediaPath, prefix) || strings.Contains(in.MediaPath, "..")) {
		return fieldError("media", engine.MsgInvalidValue)
	}
	b, err := s.deps.Groups.Create(r.Context(), p.CompanyID, p.UserID, in)
	if err != nil {
		return err
	}
	s.publishGroupBatch("create", b)
	writeJSON(w, http.StatusCreated, b)
	return nil
}

// uploadGroupPicture: POST /groups/media, multipart "file" (a JPEG: WhatsApp's group
// pictures are JPEG) → 201 {mediaPath, mediaType, mediaUrl}.
func (s *Server) uploadGroupPicture(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageGroups); err != nil {
		return err
	}
	return s.uploadMedia(w, r, p, []string{"image/jpeg"})
}

// getGroupBatch: GET /groups/{id} → the batch with its groups (its progress).
func (s *Server) getGroupBatch(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageGroups); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoGroupBatchFound)
	if err != nil {
		return err
	}
	b, err := s.deps.Groups.Get(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, b)
	return nil
}

// groupJoin: POST /groupjoin/{token} (public) → {inviteLink} of the next group of the
// batch with room, counting the visitor; 404 ERR_NO_GROUP_BATCH_FOUND, 410
// ERR_GROUPS_FULL. A POST, not a GET: it counts a seat, so a link preview or a
// crawler fetching the /groupjoin page takes none (the page posts from script).
func (s *Server) groupJoin(w http.ResponseWriter, r *http.Request) error {
	if s.deps.Groups == nil {
		return engine.E(engine.ErrUnavailable)
	}
	link, err := s.deps.Groups.Join(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]string{"inviteLink": link})
	return nil
}
