package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"

	"atende/engine"
	"atende/transport/report"
)

// ticketReportView is the answer of GET /tickets-export-report: a signed link to the
// PDF in the media store (the spec's "public files path"), valid for MediaURLTTL, and
// the name it downloads under.
type ticketReportView struct {
	URL  string `json:"url"`
	Name string `json:"name"`
}

// ticketReport: GET /tickets-export-report?ticketId= → {url, name}. It renders the
// ticket's PDF report (transport/report: contact, queue, attendants, history, the
// whole conversation with image thumbnails and media links, times in the tenant's
// time zone) into a temporary file, stores it in the media store as a document of the
// tenant and answers a signed link to it. The conversation is paged through the read
// model, never loaded whole.
//
// Who may export: who may see the ticket (the realtime visibility rule of spec
// section 6) — profiles with tickets-manager:showall, and for the others a closed
// ticket, one without a queue, one in one of their queues or one assigned to them;
// any other ticket of the tenant is ERR_NO_PERMISSION (403). A ticket of another
// tenant, an unknown one and a missing or malformed ticketId are ERR_NO_TICKET_FOUND
// (404), so ids of other tenants cannot be probed.
func (s *Server) ticketReport(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := strconv.ParseInt(queryString(r, "ticketId"), 10, 64)
	if err != nil || id <= 0 {
		return engine.E(engine.ErrNoTicketFound)
	}
	ctx := r.Context()
	t, err := s.deps.TicketQueries.GetTicket(ctx, p.CompanyID, id)
	if err != nil {
		return err
	}
	if !maySeeTicket(p, t) {
		return engine.Wrap(engine.ErrNoPermission, fmt.Errorf("report: user %d may not see ticket %d", p.UserID, id))
	}
	var history []engine.HistoryEntry
	names := &historyNames{s: s, r: r, company: p.CompanyID, users: map[engine.ID]string{}, queues: map[engine.ID]string{}}
	if s.deps.Journal != nil {
		// The read model has the ticket; a journal without its lifecycle (a ticket
		// imported from elsewhere) leaves the history out rather than the report.
		events, err := s.lifecycle(ctx, p, id)
		switch {
		case engine.CodeOf(err) == engine.ErrNoTicketFound:
		case err != nil:
			return err
		default:
			history = engine.TicketHistory(events, names)
		}
	}
	loc, err := s.tenantZone(ctx, p.CompanyID)
	if err != nil {
		return fmt.Errorf("report: time zone: %w", err)
	}
	in := report.Input{Ticket: t, History: history, UserName: names.UserName, Location: loc, Now: s.clock.Now(),
		Thumbnail: func(ctx context.Context, path string) ([]byte, bool) { return s.reportThumbnail(ctx, r, p, path) },
		Link:      func(path string) string { return s.reportLink(p, path) }}

	tmp, err := os.CreateTemp("", "atende-report-*.pdf")
	if err != nil {
		return fmt.Errorf("report: temporary file: %w", err)
	}
	defer func() {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
	}()
	if err := report.Render(ctx, tmp, in, s.deps.TicketQueries); err != nil {
		return err
	}
	if _, err := tmp.Seek(0, 0); err != nil {
		return fmt.Errorf("report: rewind: %w", err)
	}
	name := fmt.Sprintf("ticket-%d.pdf", id)
	f, err := s.deps.Media.Save(ctx, p.CompanyID, tmp, name, "application/pdf")
	if err != nil {
		return fmt.Errorf("report: store: %w", err)
	}
	u, err := s.deps.Media.NamedURL(p.CompanyID, f.Path, name, s.deps.mediaURLTTL())
	if err != nil {
		return fmt.Errorf("report: sign: %w", err)
	}
	writeJSON(w, http.StatusOK, ticketReportView{URL: u, Name: name})
	return nil
}

// maySeeTicket is the visibility rule of spec section 6 (the one realtime ticket
// events follow): everything for tickets-manager:showall; otherwise closed tickets,
// tickets without a queue, those of one's queues and those assigned to one.
func maySeeTicket(p engine.Principal, t engine.Ticket) bool {
	return p.Can(engine.ActShowAllTickets) || t.Status == engine.StatusClosed ||
		t.QueueID == 0 || p.InQueue(t.QueueID) || (t.UserID != 0 && t.UserID == p.UserID)
}

// storedPrefix is how the stored paths of p's tenant begin; other media URLs are
// links a channel gave and are neither opened nor signed.
func storedPrefix(p engine.Principal) string { return strconv.FormatInt(p.CompanyID, 10) + "/" }

// reportThumbnail is the thumbnail of a stored image of p's tenant, or false (logged)
// when the file cannot be read or is no image the report can shrink.
func (s *Server) reportThumbnail(ctx context.Context, r *http.Request, p engine.Principal, path string) ([]byte, bool) {
	if !strings.HasPrefix(path, storedPrefix(p)) {
		return nil, false
	}
	rc, _, err := s.deps.Media.Open(ctx, p.CompanyID, path)
	if err != nil {
		s.reqLog(r).Warn().Err(err).Str("path", path).Msg("report: open image")
		return nil, false
	}
	defer rc.Close()
	img, err := report.MakeThumbnail(rc)
	if err != nil {
		s.reqLog(r).Warn().Err(err).Str("path", path).Msg("report: thumbnail")
		return nil, false
	}
	return img, true
}

// reportLink signs a stored media path of p's tenant for the report's links; other
// links are written as they are.
func (s *Server) reportLink(p engine.Principal, path string) string {
	if !strings.HasPrefix(path, storedPrefix(p)) {
		return path
	}
	u, err := s.deps.Media.URL(p.CompanyID, path, s.deps.mediaURLTTL())
	if err != nil {
		return path
	}
	return u
}
