package httpapi

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"atende/engine"
)

// Campaigns and broadcasts (issue 12, docs/campaigns.md, docs/api.md "Campaigns and
// broadcasts"). Every route needs the business section (drawer-admin-items:view:
// admin and super); setting the credits needs settings:manage. Every change,
// progress included, publishes the realtime event "campaign" {action, campaign} to
// the tenant.

// CampaignStore keeps and runs campaigns (persistence/campaign.Store).
type CampaignStore interface {
	Create(ctx context.Context, companyID, userID engine.ID, in engine.CampaignInput) (engine.Campaign, error)
	Get(ctx context.Context, companyID, id engine.ID) (engine.Campaign, error)
	List(ctx context.Context, companyID engine.ID, kind string) ([]engine.Campaign, error)
	Sends(ctx context.Context, companyID, campaignID engine.ID, status string, after engine.ID, limit int) ([]engine.CampaignSend, error)
	Pause(ctx context.Context, companyID, id engine.ID) (engine.Campaign, error)
	Resume(ctx context.Context, companyID, id engine.ID) (engine.Campaign, error)
	Cancel(ctx context.Context, companyID, id engine.ID) (engine.Campaign, error)
	Credits(ctx context.Context, companyID engine.ID) (int64, error)
	SetCredits(ctx context.Context, companyID engine.ID, credits int64) error
}

// campaignEvent is the payload of the realtime "campaign" event.
type campaignEvent struct {
	Action   string           `json:"action"` // create | update
	Campaign *engine.Campaign `json:"campaign"`
}

// PublishCampaign publishes a campaign whose progress or status changed outside a
// request (a send went out, the day's quota ran out).
func (s *Server) PublishCampaign(c engine.Campaign) { s.publishCampaign("update", c) }

// publishCampaign sends the "campaign" event to the tenant's sockets whose profile
// sees the business section; without a PermissionPublisher it is not sent (a plain
// publish would reach attendants too).
func (s *Server) publishCampaign(action string, c engine.Campaign) {
	if pp, ok := s.deps.Publisher.(PermissionPublisher); ok {
		pp.PublishTo(c.CompanyID, "campaign", engine.ActViewAdminMenu, campaignEvent{Action: action, Campaign: &c})
	}
}

func (s *Server) campaignRoutes() {
	wired := s.deps.Campaigns != nil
	s.refRoute("GET /campaigns", wired, s.listCampaigns)
	s.refRoute("POST /campaigns", wired, s.createCampaign)
	s.refRoute("POST /campaigns/csv", wired, s.previewCampaignCSV)
	s.refRoute("POST /campaigns/media", wired, s.uploadCampaignMedia)
	s.refRoute("GET /campaigns/credits", wired, s.getCampaignCredits)
	s.refRoute("PUT /campaigns/credits", wired, s.setCampaignCredits)
	s.refRoute("GET /campaigns/{id}", wired, s.getCampaign)
	s.refRoute("GET /campaigns/{id}/sends", wired, s.listCampaignSends)
	s.refRoute("GET /campaigns/{id}/report.csv", wired, s.campaignReport)
	s.refRoute("POST /campaigns/{id}/pause", wired, s.campaignAction)
	s.refRoute("POST /campaigns/{id}/resume", wired, s.campaignAction)
	s.refRoute("POST /campaigns/{id}/cancel", wired, s.campaignAction)
	s.refRoute("DELETE /campaigns/{id}", wired, s.deleteCampaign)
}

// listCampaigns: GET /campaigns?kind=campaign|broadcast → {campaigns}.
func (s *Server) listCampaigns(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewAdminMenu); err != nil {
		return err
	}
	kind := r.URL.Query().Get("kind")
	if kind == "" {
		kind = engine.KindCampaign
	}
	if kind != engine.KindCampaign && kind != engine.KindBroadcast {
		return fieldError("kind", engine.MsgInvalidValue)
	}
	list, err := s.deps.Campaigns.List(r.Context(), p.CompanyID, kind)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"campaigns": list})
	return nil
}

// campaignBody is the JSON of POST /campaigns: engine.CampaignInput with the start
// as the form writes it (RFC 3339, or a wall-clock time read in the tenant's zone).
type campaignBody struct {
	engine.CampaignInput
	StartAt string `json:"startAt"`
}

// createCampaign: POST /campaigns → 201 the campaign.
func (s *Server) createCampaign(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewAdminMenu); err != nil {
		return err
	}
	var body campaignBody
	if err := decodeJSONLimit(r, &body, 64<<20); err != nil {
		return err
	}
	in := body.CampaignInput
	if strings.TrimSpace(body.StartAt) != "" {
		loc, err := engine.TenantZone(r.Context(), s.deps.Settings, p.CompanyID)
		if err != nil {
			return err
		}
		at, err := parseSendAt(body.StartAt, loc)
		if err != nil {
			return fieldError("startAt", engine.MsgInvalidTime)
		}
		in.StartAt = at
	}
	prefix := strconv.FormatInt(p.CompanyID, 10) + "/"
	for _, m := range in.Messages {
		// Media are the tenant's own uploads (POST /campaigns/media).
		if m.MediaPath != "" && (!strings.HasPrefix(m.MediaPath, prefix) || strings.Contains(m.MediaPath, "..")) {
			return fieldError("messages", engine.MsgInvalidValue)
		}
	}
	c, err := s.deps.Campaigns.Create(r.Context(), p.CompanyID, p.UserID, in)
	if err != nil {
		return err
	}
	s.publishCampaign("create", c)
	writeJSON(w, http.StatusCreated, c)
	return nil
}

// previewCampaignCSV: POST /campaigns/csv, a multipart "file" or JSON {csv} →
// {contacts, errors}: the lines that will be imported and each bad line with its
// number and the section-5 message. Nothing is stored: the form sends the contacts
// back with the campaign.
func (s *Server) previewCampaignCSV(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewAdminMenu); err != nil {
		return err
	}
	var src io.Reader
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/") {
		var body struct {
			CSV string `json:"csv"`
		}
		if err := decodeJSONLimit(r, &body, 32<<20); err != nil {
			return err
		}
		src = strings.NewReader(body.CSV)
	} else {
		r.Body = http.MaxBytesReader(w, r.Body, 32<<20)
		mr, err := r.MultipartReader()
		if err != nil {
			return engine.Wrap(engine.ErrInvalidJSON, fmt.Errorf("multipart: %w", err))
		}
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				return fieldError("file", engine.MsgRequired)
			}
			if err != nil {
				return bodyError(err)
			}
			if part.FormName() == "file" {
				src = part
				break
			}
			if _, err := io.Copy(io.Discard, part); err != nil {
				return bodyError(err)
			}
		}
	}
	out, err := engine.ParseCampaignCSV(src)
	if errors.Is(err, engine.ErrCSVTooLarge) {
		return fieldError("file", engine.MsgTooLong)
	}
	if err != nil {
		return bodyError(err)
	}
	if out.Contacts == nil {
		out.Contacts = []engine.CampaignContactParams{}
	}
	if out.Errors == nil {
		out.Errors = []engine.CSVLineError{}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// uploadCampaignMedia: POST /campaigns/media, multipart "file" → 201 {mediaPath,
// mediaType, mediaUrl}.
func (s *Server) uploadCampaignMedia(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewAdminMenu); err != nil {
		return err
	}
	return s.uploadMedia(w, r, p, nil)
}

// uploadMedia saves the multipart "file" of r in the tenant's media store and
// answers 201 {mediaPath, mediaType, mediaUrl}: the upload of a form's file before
// the form itself is sent (campaign messages, a group batch's picture). mimes, when
// not empty, are the sniffed content types allowed; a file of another is removed
// and answered ERR_MEDIA_TYPE_NOT_ALLOWED.
func (s *Server) uploadMedia(w http.ResponseWriter, r *http.Request, p engine.Principal, mimes []string) error {
	if s.deps.Media == nil {
		return engine.Wrap(engine.ErrUnavailable, errors.New("no media store"))
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.deps.maxUploadBytes())
	mr, err := r.MultipartReader()
	if err != nil {
		return engine.Wrap(engine.ErrInvalidJSON, fmt.Errorf("multipart: %w", err))
	}
	for parts := 0; parts < maxUploadParts; parts++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return bodyError(err)
		}
		if part.FormName() != "file" {
			_, err := io.Copy(io.Discard, part)
			_ = part.Close()
			if err != nil {
				return bodyError(err)
			}
			continue
		}
		f, err := s.deps.Media.Save(r.Context(), p.CompanyID, part, part.FileName(), part.Header.Get("Content-Type"))
		_ = part.Close()
		if err != nil {
			return uploadError(err)
		}
		if len(mimes) > 0 && !slices.Contains(mimes, f.MIME) {
			if rm, ok := s.deps.Media.(interface {
				Remove(ctx context.Context, companyID engine.ID, path string) error
			}); ok {
				_ = rm.Remove(r.Context(), p.CompanyID, f.Path)
			}
			return engine.Wrap(engine.ErrMediaTypeNotAllowed, fmt.Errorf("media type %s", f.MIME))
		}
		out := map[string]string{"mediaPath": f.Path, "mediaType": f.Type}
		if u, err := s.deps.Media.URL(p.CompanyID, f.Path, s.deps.mediaURLTTL()); err == nil {
			out["mediaUrl"] = u
		}
		writeJSON(w, http.StatusCreated, out)
		return nil
	}
	return fieldError("file", engine.MsgRequired)
}

// getCampaignCredits: GET /campaigns/credits → {credits}.
func (s *Server) getCampaignCredits(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewAdminMenu); err != nil {
		return err
	}
	n, err := s.deps.Campaigns.Credits(r.Context(), p.CompanyID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]int64{"credits": n})
	return nil
}

// setCampaignCredits: PUT /campaigns/credits {credits} (settings:manage) → {credits}.
func (s *Server) setCampaignCredits(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageSettings); err != nil {
		return err
	}
	var body struct {
		Credits *int64 `json:"credits"`
	}
	if err := s.decodeJSON(r, &body); err != nil {
		return err
	}
	if body.Credits == nil {
		return fieldError("credits", engine.MsgRequired)
	}
	if err := s.deps.Campaigns.SetCredits(r.Context(), p.CompanyID, *body.Credits); err != nil {
		return err
	}
	if pp, ok := s.deps.Publisher.(PermissionPublisher); ok {
		pp.PublishTo(p.CompanyID, "campaignCredits", engine.ActViewAdminMenu, map[string]int64{"credits": *body.Credits})
	}
	writeJSON(w, http.StatusOK, map[string]int64{"credits": *body.Credits})
	return nil
}

// getCampaign: GET /campaigns/{id} → the campaign with its progress.
func (s *Server) getCampaign(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewAdminMenu); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoCampaignFound)
	if err != nil {
		return err
	}
	c, err := s.deps.Campaigns.Get(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

// listCampaignSends: GET /campaigns/{id}/sends?status=&after=&limit= → {sends,
// hasMore}: the per-contact statuses, in order, limit (default 100, at most 1,000) a
// page after the send id after.
func (s *Server) listCampaignSends(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewAdminMenu); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoCampaignFound)
	if err != nil {
		return err
	}
	if _, err := s.deps.Campaigns.Get(r.Context(), p.CompanyID, id); err != nil {
		return err
	}
	q := r.URL.Query()
	status := q.Get("status")
	if status != "" && status != engine.SendPending && status != engine.SendSent && status != engine.SendError {
		return fieldError("status", engine.MsgInvalidValue)
	}
	after, limit := int64(0), 100
	if v := q.Get("after"); v != "" {
		if after, err = strconv.ParseInt(v, 10, 64); err != nil || after < 0 {
			return fieldError("after", engine.MsgInvalidValue)
		}
	}
	if v := q.Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > 1000 {
			return fieldError("limit", engine.MsgInvalidValue)
		}
	}
	sends, err := s.deps.Campaigns.Sends(r.Context(), p.CompanyID, id, status, after, limit+1)
	if err != nil {
		return err
	}
	more := len(sends) > limit
	if more {
		sends = sends[:limit]
	}
	writeJSON(w, http.StatusOK, map[string]any{"sends": sends, "hasMore": more})
	return nil
}

// campaignReport: GET /campaigns/{id}/report.csv → the per-contact report as CSV
// (contact, number, message, connection, status, error, sent at in the tenant's
// zone). Cells that a spreadsheet would run as a formula are quoted with a leading
// apostrophe.
func (s *Server) campaignReport(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewAdminMenu); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoCampaignFound)
	if err != nil {
		return err
	}
	c, err := s.deps.Campaigns.Get(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	loc, err := engine.TenantZone(r.Context(), s.deps.Settings, p.CompanyID)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="campaign-%d.csv"`, c.ID))
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"contactId", "contact", "number", "message", "connectionId", "status", "error", "sentAt"})
	var after engine.ID
	for {
		sends, err := s.deps.Campaigns.Sends(r.Context(), p.CompanyID, id, "", after, 5000)
		if err != nil {
			return err
		}
		for _, x := range sends {
			sent := ""
			if !x.SentAt.IsZero() {
				sent = x.SentAt.In(loc).Format(time.DateTime)
			}
			_ = cw.Write([]string{strconv.FormatInt(x.ContactID, 10), csvSafe(x.ContactName), csvSafe(x.Number),
				strconv.Itoa(x.Seq), strconv.FormatInt(x.ConnectionID, 10), x.Status, csvSafe(x.Error), sent})
			after = x.ID
		}
		if len(sends) < 5000 {
			break
		}
	}
	cw.Flush()
	return nil
}

// csvSafe keeps a spreadsheet from reading a cell as a formula.
func csvSafe(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}

// campaignAction: POST /campaigns/{id}/pause|resume|cancel → the campaign.
func (s *Server) campaignAction(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewAdminMenu); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoCampaignFound)
	if err != nil {
		return err
	}
	var c engine.Campaign
	switch {
	case strings.HasSuffix(r.URL.Path, "/pause"):
		c, err = s.deps.Campaigns.Pause(r.Context(), p.CompanyID, id)
	case strings.HasSuffix(r.URL.Path, "/resume"):
		c, err = s.deps.Campaigns.Resume(r.Context(), p.CompanyID, id)
	default:
		c, err = s.deps.Campaigns.Cancel(r.Context(), p.CompanyID, id)
	}
	if err != nil {
		return err
	}
	s.publishCampaign("update", c)
	writeJSON(w, http.StatusOK, c)
	return nil
}

// deleteCampaign: DELETE /campaigns/{id} → 405 ERR_CAMPAIGN_NOT_REMOVABLE (spec
// section 5: a campaign cannot be removed; cancel stops it). An unknown id is 404.
func (s *Server) deleteCampaign(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewAdminMenu); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoCampaignFound)
	if err != nil {
		return err
	}
	if _, err := s.deps.Campaigns.Get(r.Context(), p.CompanyID, id); err != nil {
		return err
	}
	return engine.E(engine.ErrCampaignNotRemovable)
}
