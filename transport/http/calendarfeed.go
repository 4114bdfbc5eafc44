package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"

	"atende/engine"
)

// CalendarFeeds keeps each user's calendar subscription link (persistence/store's
// CalendarFeeds): the secret is shown once, only its hash is stored.
type CalendarFeeds interface {
	Issue(ctx context.Context, companyID, userID engine.ID) (secret string, issuedAt time.Time, err error)
	Issued(ctx context.Context, companyID, userID engine.ID) (issuedAt time.Time, ok bool, err error)
	Revoke(ctx context.Context, companyID, userID engine.ID) error
	// Resolve answers ErrNoCalendarFeed for a secret no current link has.
	Resolve(ctx context.Context, secret string) (companyID, userID engine.ID, err error)
}

// The window of the agenda a subscription carries: calendar applications keep what
// they fetched, so a month back is enough history and a quarter ahead covers what an
// attendant plans.
const (
	calendarFeedPast   = 31 * 24 * time.Hour
	calendarFeedAhead  = 92 * 24 * time.Hour
	calendarFeedTasks  = 500
	calendarTaskLength = engine.BookingDefaultDuration * time.Minute
)

// calendarFeedView is the answer of GET, POST and DELETE /calendar-feed. URL is set only
// by POST, the one time the secret exists outside the database.
type calendarFeedView struct {
	Active   bool       `json:"active"`
	IssuedAt *time.Time `json:"issuedAt,omitempty"`
	URL      string     `json:"url,omitempty"`
}

func (s *Server) calendarFeedRoutes() {
	s.route("GET /calendar-feed", s.authed(s.calendarFeedStatus))
	s.route("POST /calendar-feed", s.authed(s.issueCalendarFeed))
	s.route("DELETE /calendar-feed", s.authed(s.revokeCalendarFeed))
	// Public: the secret in the path is the credential, as calendar applications
	// (Google Calendar's "From URL") send no header of ours. Mounted, so that a
	// browser opening the link (Accept: text/html) gets the calendar, not the app.
	s.Mount("GET /ical/{file}", s.public(s.calendarFeed))
}

// calendarFeedAllowed: the subscription is the agenda, so it needs the schedule menu.
func (s *Server) calendarFeedAllowed(p engine.Principal) error {
	if s.deps.CalendarFeeds == nil || s.deps.Bookings == nil || s.deps.Schedules == nil {
		return engine.E(engine.ErrUnavailable)
	}
	return requirePermission(p, engine.ActViewScheduleMenu)
}

// calendarFeedStatus: GET /calendar-feed → {active, issuedAt?}.
func (s *Server) calendarFeedStatus(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := s.calendarFeedAllowed(p); err != nil {
		return err
	}
	at, ok, err := s.deps.CalendarFeeds.Issued(r.Context(), p.CompanyID, p.UserID)
	if err != nil {
		return err
	}
	v := calendarFeedView{Active: ok}
	if ok {
		v.IssuedAt = &at
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// issueCalendarFeed: POST /calendar-feed → 201 {active, issuedAt, url}: a new link,
// which replaces the caller's earlier one.
func (s *Server) issueCalendarFeed(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := s.calendarFeedAllowed(p); err != nil {
		return err
	}
	secret, at, err := s.deps.CalendarFeeds.Issue(r.Context(), p.CompanyID, p.UserID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, calendarFeedView{Active: true, IssuedAt: &at,
		URL: s.publicBase(r) + "/ical/" + secret + ".ics"})
	return nil
}

// revokeCalendarFeed: DELETE /calendar-feed → 200 {active: false}.
func (s *Server) revokeCalendarFeed(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := s.calendarFeedAllowed(p); err != nil {
		return err
	}
	if err := s.deps.CalendarFeeds.Revoke(r.Context(), p.CompanyID, p.UserID); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, calendarFeedView{})
	return nil
}

// calendarFeed: GET /ical/{secret}.ics → text/calendar: the tenant's bookings and
// agenda tasks from a month back to a quarter ahead. An unknown or replaced secret,
// or one whose user is gone, whose tenant is disabled or who lost the schedule menu,
// is 404 ERR_NO_CALENDAR_FEED: nothing tells a guesser which.
func (s *Server) calendarFeed(w http.ResponseWriter, r *http.Request) error {
	if s.deps.CalendarFeeds == nil || s.deps.Bookings == nil || s.deps.Schedules == nil || s.deps.Users == nil {
		return engine.E(engine.ErrUnavailable)
	}
	secret, ok := strings.CutSuffix(r.PathValue("file"), ".ics")
	if !ok {
		return engine.E(engine.ErrNoCalendarFeed)
	}
	companyID, userID, err := s.deps.CalendarFeeds.Resolve(r.Context(), secret)
	if err != nil {
		return err
	}
	if err := s.calendarFeedOwnerActive(r.Context(), companyID, userID); err != nil {
		return err
	}
	now := s.clock.Now()
	from, to := now.Add(-calendarFeedPast), now.Add(calendarFeedAhead)
	bookings, err := s.deps.Bookings.Range(r.Context(), companyID, from, to)
	if err != nil {
		return err
	}
	tasks, _, _, err := s.deps.Schedules.List(r.Context(), companyID, engine.ScheduleQuery{
		Kind: engine.ScheduleTask, From: from, To: to, Limit: calendarFeedTasks})
	if err != nil {
		return err
	}
	zone := ""
	if s.deps.Settings != nil {
		if loc, err := engine.TenantZone(r.Context(), s.deps.Settings, companyID); err == nil {
			zone = loc.String()
		}
	}
	var buf bytes.Buffer
	if err := agendaCalendar(now, zone, bookings, tasks).SerializeTo(&buf); err != nil {
		return fmt.Errorf("write calendar: %w", err)
	}
	w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
	w.Header().Set("Cache-Control", "private, max-age=300")
	w.Header().Set("Content-Disposition", `inline; filename="atende.ics"`)
	_, _ = w.Write(buf.Bytes())
	return nil
}

// calendarFeedOwnerActive checks that the link's user can still log in (not deleted,
// tenant not disabled) and still has the schedule menu.
func (s *Server) calendarFeedOwnerActive(ctx context.Context, companyID, userID engine.ID) error {
	if _, err := s.deps.Users.Auth(ctx, userID); err != nil {
		return engine.E(engine.ErrNoCalendarFeed)
	}
	u, err := s.deps.Users.Get(ctx, companyID, userID)
	if err != nil {
		return engine.E(engine.ErrNoCalendarFeed)
	}
	if !engine.Can(u.Profile, engine.ActViewScheduleMenu) {
		return engine.E(engine.ErrNoCalendarFeed)
	}
	return nil
}

// agendaCalendar renders bookings and agenda tasks as an iCalendar (RFC 5545) of
// UTC times; zone names the tenant's zone for applications that show it. A task is
// an event of the agenda's 30-minute step at its time; a cancelled booking is an
// event with STATUS:CANCELLED, so that subscribers drop it.
func agendaCalendar(now time.Time, zone string, bookings []engine.Booking, tasks []engine.Schedule) *ics.Calendar {
	cal := ics.NewCalendarFor("Atende")
	cal.SetMethod(ics.MethodPublish)
	cal.SetXWRCalName("Atende")
	if zone != "" {
		cal.SetXWRTimezone(zone)
	}
	cal.SetRefreshInterval("PT15M")
	cal.SetXPublishedTTL("PT15M")
	for _, b := range bookings {
		ev := cal.AddEvent(fmt.Sprintf("booking-%d@atende", b.ID))
		ev.SetDtStampTime(now)
		ev.SetStartAt(b.BookingTzidFrom.UTC())
		ev.SetEndAt(b.BookingTzidTo.UTC())
		ev.SetSummary(bookingSummary(b))
		ev.SetDescription(b.Description)
		if b.PositionName != "" {
			ev.SetLocation(b.PositionName)
		}
		if b.Archived {
			if b.Label == engine.BookingLabelLost {
				ev.SetStatus(ics.ObjectStatusCancelled)
			}
		} else {
			ev.SetStatus(ics.ObjectStatusConfirmed)
		}
	}
	for _, t := range tasks {
		ev := cal.AddEvent(fmt.Sprintf("task-%d@atende", t.ID))
		ev.SetDtStampTime(now)
		ev.SetStartAt(t.SendAt.UTC())
		ev.SetEndAt(t.SendAt.Add(calendarTaskLength).UTC())
		ev.SetSummary(t.TaskName)
		ev.SetDescription(t.Message)
	}
	return cal
}

// bookingSummary is the event title: the booking's name, and its contact's when set.
func bookingSummary(b engine.Booking) string {
	switch {
	case b.BookingName != "" && b.Name != "" && b.Name != b.BookingName:
		return b.BookingName + " — " + b.Name
	case b.BookingName != "":
		return b.BookingName
	default:
		return b.Name
	}
}
