package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"atende/engine"
)

// scheduleEvent is the payload of the realtime "scheduledMessage" event (scheduled
// messages) and of the "agenda" event (agenda tasks).
type scheduleEvent struct {
	Action string           `json:"action"` // create | update | delete
	Item   *engine.Schedule `json:"-"`
	ID     engine.ID        `json:"-"`
	Kind   string           `json:"-"`
}

// MarshalJSON names the payload's fields by kind: {action, scheduledMessage |
// scheduledMessageId} or {action, task | taskId}.
func (e scheduleEvent) MarshalJSON() ([]byte, error) {
	item, id := "scheduledMessage", "scheduledMessageId"
	if e.Kind == engine.ScheduleTask {
		item, id = "task", "taskId"
	}
	m := map[string]any{"action": e.Action}
	if e.Item != nil {
		m[item] = e.Item
	} else {
		m[id] = e.ID
	}
	return json.Marshal(m)
}

// eventOf is the realtime event name of a kind.
func eventOf(kind string) string {
	if kind == engine.ScheduleTask {
		return "agenda"
	}
	return "scheduledMessage"
}

// PublishSchedule publishes a schedule that changed outside a request (a timer fired:
// sent, error, or a retry's error text) to the tenant's screens.
func (s *Server) PublishSchedule(sc engine.Schedule) {
	s.publish(sc.CompanyID, eventOf(sc.Kind), scheduleEvent{Action: "update", Item: &sc, Kind: sc.Kind})
}

// scheduleBody is the JSON body of POST and PUT /scheduledMessages and POST /agenda.
// status is accepted for the spec's client and ignored: a schedule is created and
// re-scheduled pending, and only its timer moves it on.
type scheduleBody struct {
	ContactID   idField         `json:"contactId"`
	PhoneNumber json.RawMessage `json:"phoneNumber"`
	Message     string          `json:"message"`
	ImagePath   *string         `json:"imagePath"`
	WpID        idField         `json:"wpId"`
	UserID      idField         `json:"userId"`
	TicketID    idField         `json:"ticketId"`
	SendAt      string          `json:"sendAt"`
	Status      string          `json:"status"`
	TaskName    string          `json:"taskName"`
	TagFilter   []idField       `json:"tagFilter"`
}

// parseSendAt reads sendAt: an RFC 3339 instant, or a wall-clock time without offset
// ("2026-11-26T09:00", the form's datetime-local value, seconds optional) read in the
// tenant's zone, so that 09:00 is 09:00 there on any day, daylight saving or not. The
// seconds are kept: the server takes any future instant (the form's 10-minute step is
// the form's; a datetime-local value with seconds is what lets the browser flows
// schedule a few seconds ahead instead of waiting for the next minute).
func parseSendAt(raw string, loc *time.Location) (time.Time, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, raw); err == nil {
		return t.UTC(), nil
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02 15:04:05"} {
		if t, err := time.ParseInLocation(layout, raw, loc); err == nil {
			at := engine.LocalToUTC(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), loc)
			return at.Add(time.Duration(t.Second()) * time.Second), nil
		}
	}
	return time.Time{}, fieldError("sendAt", engine.MsgInvalidTime)
}

// phoneDigits reads phoneNumber (a string or a JSON number) and drops the formatting
// people type (spaces, '+', '-', parentheses, dots); anything else stays for the
// validation to refuse.
func phoneDigits(raw json.RawMessage) (string, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return "", nil
	}
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fieldError("phoneNumber", engine.MsgInvalidNumber)
		}
	}
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(" +-().", r) {
			return -1
		}
		return r
	}, s), nil
}

// readSchedule reads a JSON or multipart schedule body into in, storing an attached
// image. The answer's path is the stored file to discard if the request fails later.
func (s *Server) readSchedule(w http.ResponseWriter, r *http.Request, p engine.Principal, kind string) (engine.ScheduleInput, string, error) {
	var b scheduleBody
	stored := ""
	if isMultipart(r) {
		var err error
		if b, stored, err = s.readScheduleForm(w, r, p); err != nil {
			return engine.ScheduleInput{}, stored, err
		}
	} else if err := s.decodeJSON(r, &b); err != nil {
		return engine.ScheduleInput{}, "", err
	}
	ids := map[string]idField{"contactId": b.ContactID, "wpId": b.WpID, "userId": b.UserID, "ticketId": b.TicketID}
	if err := checkIDFields(ids); err != nil {
		return engine.ScheduleInput{}, stored, err
	}
	phone, err := phoneDigits(b.PhoneNumber)
	if err != nil {
		return engine.ScheduleInput{}, stored, err
	}
	loc, err := s.tenantZone(r.Context(), p.CompanyID)
	if err != nil {
		return engine.ScheduleInput{}, stored, err
	}
	sendAt, err := parseSendAt(b.SendAt, loc)
	if err != nil {
		return engine.ScheduleInput{}, stored, err
	}
	in := engine.ScheduleInput{Kind: kind, TaskName: strings.TrimSpace(b.TaskName), ContactID: b.ContactID.ID,
		PhoneNumber: phone, Message: strings.TrimSpace(b.Message), ConnectionID: b.WpID.ID, UserID: b.UserID.ID,
		TicketID: b.TicketID.ID, SendAt: sendAt, ImagePath: stored}
	for _, t := range b.TagFilter {
		if t.Bad {
			return in, stored, fieldError("tagFilter", engine.MsgInvalidValue)
		}
		in.TagFilter = append(in.TagFilter, t.ID)
	}
	if stored == "" && b.ImagePath != nil && strings.TrimSpace(*b.ImagePath) != "" {
		path, typ, err := s.storedMedia(r.Context(), p, *b.ImagePath)
		if err != nil || typ != engine.MediaImage {
			return in, "", fieldError("imagePath", engine.MsgInvalidValue)
		}
		in.ImagePath = path
	}
	// The scheduling user is the caller unless a supervisor schedules for another.
	switch {
	case in.UserID == 0:
		in.UserID = p.UserID
	case in.UserID != p.UserID && !p.Can(engine.ActManageScheduledMessages):
		return in, stored, engine.E(engine.ErrNoPermission)
	}
	needNumber := in.ContactID == 0 && in.TicketID == 0
	if err := engine.ValidateSchedule(in, needNumber, s.clock.Now()); err != nil {
		return in, stored, err
	}
	if kind == engine.ScheduleTask && in.ContactID == 0 && in.TicketID == 0 {
		// A task without contact or ticket is a reminder on the calendar; it has
		// nobody to send its message to.
		return in, stored, fieldError("contactId", engine.MsgRequired)
	}
	return in, stored, nil
}

// maxScheduleFormBytes bounds a multipart schedule: one image and the fields.
const maxScheduleFormBytes = 32 << 20

// readScheduleForm reads the multipart form of a schedule: the JSON fields as form
// fields (tagFilter as a JSON array), plus "file" (or "medias"): one image.
func (s *Server) readScheduleForm(w http.ResponseWriter, r *http.Request, p engine.Principal) (b scheduleBody, stored string, err error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxScheduleFormBytes)
	mr, err := r.MultipartReader()
	if err != nil {
		return b, "", engine.Wrap(engine.ErrInvalidJSON, fmt.Errorf("multipart: %w", err))
	}
	fields := map[string]json.RawMessage{}
	for parts := 0; ; parts++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return b, stored, bodyError(err)
		}
		if parts >= maxUploadParts {
			_ = part.Close()
			return b, stored, engine.Wrap(engine.ErrInvalidJSON, fmt.Errorf("more than %d parts", maxUploadParts))
		}
		name := part.FormName()
		if name == "file" || name == "medias" {
			if stored != "" {
				_ = part.Close()
				return b, stored, fieldError("file", engine.MsgTooLong)
			}
			if s.deps.Media == nil {
				_ = part.Close()
				return b, "", engine.Wrap(engine.ErrUnavailable, errors.New("no media store"))
			}
			f, err := s.deps.Media.Save(r.Context(), p.CompanyID, part, part.FileName(), part.Header.Get("Content-Type"))
			_ = part.Close()
			if err != nil {
				return b, "", uploadError(err)
			}
			stored = f.Path
			if f.Type != engine.MediaImage {
				return b, stored, fieldError("file", engine.MsgInvalidValue)
			}
			continue
		}
		v, err := io.ReadAll(io.LimitReader(part, maxFieldBytes+1))
		_ = part.Close()
		if err != nil {
			return b, stored, bodyError(err)
		}
		if len(v) > maxFieldBytes {
			return b, stored, fieldError(name, engine.MsgTooLong)
		}
		switch name {
		case "tagFilter":
			fields[name] = v
		case "contactId", "wpId", "userId", "ticketId", "phoneNumber", "message", "sendAt", "taskName", "status":
			q, _ := json.Marshal(string(v))
			fields[name] = q
		}
	}
	raw, _ := json.Marshal(fields)
	if err := json.Unmarshal(raw, &b); err != nil {
		return b, stored, fieldError("tagFilter", engine.MsgInvalidValue)
	}
	return b, stored, nil
}

// discardStored removes an image stored for a request that failed.
func (s *Server) discardStored(r *http.Request, p engine.Principal, path string) {
	if path != "" && s.deps.Media != nil {
		s.discardMedia(r, p, []outgoing{{mediaPath: path}})
	}
}

// zone is the tenant's time zone.
// tenantZone is the zone the tenant's times are read and shown in (its timeZone
// setting, America/Cuiaba by default).
func (s *Server) tenantZone(ctx context.Context, companyID engine.ID) (*time.Location, error) {
	return engine.TenantZone(ctx, s.deps.Settings, companyID)
}

// listSchedules: GET /scheduledMessages/ and GET /agenda/ ?searchParam=&pageNumber=
// &from=&to= → {schedules | tasks, count, hasMore}, 20 a page by sendAt. from and to
// (RFC 3339) bound sendAt, for a calendar's visible range. Every profile of the
// tenant reads every schedule of it (a shared agenda).
func (s *Server) listSchedules(kind string) authedFunc {
	return func(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
		search, page, err := listParams(r)
		if err != nil {
			return err
		}
		q := engine.ScheduleQuery{Kind: kind, Search: search, Offset: (page - 1) * engine.SchedulePageSize}
		for name, dst := range map[string]*time.Time{"from": &q.From, "to": &q.To} {
			if v := queryString(r, name); v != "" {
				t, err := time.Parse(time.RFC3339Nano, v)
				if err != nil {
					return fieldError(name, engine.MsgInvalidTime)
				}
				*dst = t
			}
		}
		if !q.From.IsZero() && !q.To.IsZero() {
			// A calendar range is answered whole (at most a few hundred items).
			q.Limit, q.Offset = 500, 0
		}
		list, count, more, err := s.deps.Schedules.List(r.Context(), p.CompanyID, q)
		if err != nil {
			return err
		}
		key := "schedules"
		if kind == engine.ScheduleTask {
			key = "tasks"
		}
		writeJSON(w, http.StatusOK, map[string]any{key: list, "count": count, "hasMore": more})
		return nil
	}
}

// getSchedule: GET /scheduledMessages/{id} and GET /agenda/{id}.
func (s *Server) getSchedule(kind string) authedFunc {
	return func(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
		sc, err := s.scheduleOf(r, p, kind)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, sc)
		return nil
	}
}

// scheduleOf reads the schedule of the path's id; another kind is not found.
func (s *Server) scheduleOf(r *http.Request, p engine.Principal, kind string) (engine.Schedule, error) {
	id, err := pathID(r, "id", engine.ErrNoScheduleFound)
	if err != nil {
		return engine.Schedule{}, err
	}
	sc, err := s.deps.Schedules.Get(r.Context(), p.CompanyID, id)
	if err != nil {
		return sc, err
	}
	if sc.Kind != kind {
		return sc, engine.E(engine.ErrNoScheduleFound)
	}
	return sc, nil
}

// createSchedule: POST /scheduledMessages and POST /agenda → 201 and the schedule,
// status pending. JSON or multipart (with an image "file"). Needs
// scheduled-messages:create. Checks in the spec's order (section 5): a scheduled
// message's number (when it has no contact or ticket), connection (unless it has a
// ticket), schedule, message; an agenda task's schedule, name, message.
func (s *Server) createSchedule(kind string) authedFunc {
	return func(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
		if err := requirePermission(p, engine.ActCreateScheduledMessage); err != nil {
			return err
		}
		in, stored, err := s.readSchedule(w, r, p, kind)
		if err == nil {
			var sc engine.Schedule
			if sc, err = s.deps.Schedules.Create(r.Context(), p.CompanyID, in); err == nil {
				s.publish(p.CompanyID, eventOf(kind), scheduleEvent{Action: "create", Item: &sc, Kind: kind})
				writeJSON(w, http.StatusCreated, sc)
				return nil
			}
		}
		s.discardStored(r, p, stored)
		return err
	}
}

// updateSchedule: PUT /scheduledMessages/{id} and PUT /agenda/{id}: the whole
// schedule again; it becomes pending at its (new) time. Users and userplus change only
// their own (403 otherwise), superv and upward anybody's; a sent one is
// ERR_SCHEDULE_SENT (409); another tenant's is 404.
func (s *Server) updateSchedule(kind string) authedFunc {
	return func(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
		old, err := s.scheduleOf(r, p, kind)
		if err != nil {
			return err
		}
		if err := engine.CanChangeSchedule(p, old, false); err != nil {
			return err
		}
		in, stored, err := s.readSchedule(w, r, p, kind)
		if err == nil {
			var sc engine.Schedule
			if sc, err = s.deps.Schedules.Update(r.Context(), p.CompanyID, old.ID, in); err == nil {
				s.publish(p.CompanyID, eventOf(kind), scheduleEvent{Action: "update", Item: &sc, Kind: kind})
				writeJSON(w, http.StatusOK, sc)
				return nil
			}
		}
		s.discardStored(r, p, stored)
		return err
	}
}

// deleteSchedule: DELETE /scheduledMessages/{id} and DELETE /agenda/{id} → 204; its
// timer is cancelled with it. The rules of updateSchedule; a sent one cannot be
// deleted (spec section 5).
func (s *Server) deleteSchedule(kind string) authedFunc {
	return func(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
		old, err := s.scheduleOf(r, p, kind)
		if err != nil {
			return err
		}
		if err := engine.CanChangeSchedule(p, old, true); err != nil {
			return err
		}
		if err := s.deps.Schedules.Delete(r.Context(), p.CompanyID, old.ID); err != nil {
			return err
		}
		s.publish(p.CompanyID, eventOf(kind), scheduleEvent{Action: "delete", ID: old.ID, Kind: kind})
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

// pendingCounter is the part of the schedule store that counts the pending
// schedules of a contact or a connection (persistence/schedule.Scheduler).
type pendingCounter interface {
	PendingFor(ctx context.Context, companyID, contactID, connectionID engine.ID) (int, error)
}

// refusePendingSchedules answers 409 ERR_PENDING_SCHEDULES when the contact or the
// connection (one id non-zero) still has pending schedules, so that deleting it says
// so instead of leaving them to fail when they fall due. The check is read before the
// delete: a schedule created in between turns error when it falls due.
func (s *Server) refusePendingSchedules(r *http.Request, p engine.Principal, contactID, connectionID engine.ID) error {
	pc, ok := s.deps.Schedules.(pendingCounter)
	if !ok {
		return nil
	}
	n, err := pc.PendingFor(r.Context(), p.CompanyID, contactID, connectionID)
	if err != nil {
		return err
	}
	if n > 0 {
		return engine.Wrap(engine.ErrPendingSchedules, fmt.Errorf("%d pending schedules", n))
	}
	return nil
}

// scheduleRoutes registers the scheduled-message and agenda-task routes.
func (s *Server) scheduleRoutes() {
	wired := s.deps.Schedules != nil
	for _, k := range []struct{ base, kind string }{
		{"/scheduledMessages", engine.ScheduleMessage},
		{"/agenda", engine.ScheduleTask},
	} {
		s.refRoute("GET "+k.base, wired, s.listSchedules(k.kind))
		s.refRoute("GET "+k.base+"/{$}", wired, s.listSchedules(k.kind))
		s.refRoute("GET "+k.base+"/{id}", wired, s.getSchedule(k.kind))
		s.refRoute("POST "+k.base, wired, s.createSchedule(k.kind))
		s.refRoute("PUT "+k.base+"/{id}", wired, s.updateSchedule(k.kind))
		s.refRoute("DELETE "+k.base+"/{id}", wired, s.deleteSchedule(k.kind))
	}
}
