package engine

import (
	"context"
	"strings"
	"time"
	"unicode"
)

// Kinds of a schedule: a scheduled message (/scheduledMessages) or an agenda task
// (/agenda). Both send their message at SendAt through the same timer.
const (
	ScheduleMessage = "message"
	ScheduleTask    = "task"
)

// Statuses of a schedule (spec section 4: created pending).
const (
	SchedulePending = "pending"
	ScheduleSent    = "sent"
	ScheduleError   = "error"
)

// Limits of schedules (spec sections 5 and 9).
const (
	ScheduleTextMin   = 3   // message and taskName, in characters
	ScheduleTextMax   = 400 // message and taskName, in characters
	SchedulePhoneMin  = 12  // digits with country code
	SchedulePhoneMax  = 15
	SchedulePageSize  = 20 // GET /agenda/ and GET /scheduledMessages/
	ScheduleMaxFilter = 50 // tags in an agenda task's tagFilter
)

// TenantTimeZone is the zone a tenant's times are shown and read in when it set none
// (spec section 9: history times in Cuiaba time). Message variables of the date and
// the greeting use it.
const TenantTimeZone = "America/Cuiaba"

// Schedule is a scheduled message or an agenda task. Times are UTC.
type Schedule struct {
	ID           ID        `json:"id"`
	CompanyID    ID        `json:"companyId"`
	Kind         string    `json:"kind"`
	TaskName     string    `json:"taskName,omitempty"`
	ContactID    ID        `json:"contactId"`
	PhoneNumber  string    `json:"phoneNumber"`
	Message      string    `json:"message"`
	ImagePath    string    `json:"imagePath"`
	ConnectionID ID        `json:"wpId"`
	UserID       ID        `json:"userId"`
	TicketID     ID        `json:"ticketId"`
	TagFilter    []ID      `json:"tagFilter"`
	SendAt       time.Time `json:"sendAt"`
	Status       string    `json:"status"`
	ErrorMessage string    `json:"errorMessage"`
	// MessageID is the id the message gets on its ticket when it fires, fixed when
	// the schedule is created: the ticket records a message id once, so a timer that
	// fires twice (a retry after a crash) cannot send twice.
	MessageID ID `json:"-"`
	// SentTicketID is the ticket the message went to (its own ticket, or the one
	// found or opened for its contact).
	SentTicketID ID               `json:"sentTicketId,omitempty"`
	Contact      *ScheduleContact `json:"contact"`
	CreatedAt    time.Time        `json:"createdAt"`
	UpdatedAt    time.Time        `json:"updatedAt"`
}

// ScheduleContact is the contact summary a schedule is listed with.
type ScheduleContact struct {
	ID     ID     `json:"id"`
	Name   string `json:"name"`
	Number string `json:"number"`
}

// ScheduleInput is the body of POST and PUT /scheduledMessages and POST /agenda, as
// the server has read it.
type ScheduleInput struct {
	Kind         string
	TaskName     string
	ContactID    ID
	PhoneNumber  string
	Message      string
	ImagePath    string
	ConnectionID ID
	UserID       ID
	TicketID     ID
	TagFilter    []ID
	SendAt       time.Time
}

// ScheduleQuery selects schedules of a tenant.
type ScheduleQuery struct {
	Kind   string // "" for both kinds
	Search string // folded match on message, task name, phone
	UserID ID     // only this user's (0: everybody's)
	From   time.Time
	To     time.Time
	Offset int
	Limit  int
}

// ScheduleStore keeps schedules and their timers: every write changes the row and its
// timer in one transaction.
type ScheduleStore interface {
	Create(ctx context.Context, companyID ID, in ScheduleInput) (Schedule, error)
	Update(ctx context.Context, companyID, id ID, in ScheduleInput) (Schedule, error)
	// Delete removes a pending or failed schedule and cancels its timer; a sent one
	// answers ErrScheduleSent.
	Delete(ctx context.Context, companyID, id ID) error
	Get(ctx context.Context, companyID, id ID) (Schedule, error)
	List(ctx context.Context, companyID ID, q ScheduleQuery) (list []Schedule, count int, hasMore bool, err error)
}

// ValidateSchedule checks in against the rules of spec section 5 and answers only the
// first failing field, in the order the spec's form checks them, so that client and
// server name the same problem: a scheduled message checks number, connection,
// schedule, message; an agenda task checks schedule, name, message. needNumber is
// false when the schedule has a contact or a ticket (the number field is then not
// shown). now is the moment "later than now" is judged at.
func ValidateSchedule(in ScheduleInput, needNumber bool, now time.Time) error {
	first := func(field, msg string) error {
		return &Error{Code: ErrValidation, Fields: map[string]string{field: msg}}
	}
	text := func(field, v string) error {
		v = strings.TrimSpace(v)
		switch n := runeLen(v); {
		case v == "":
			return first(field, MsgRequired)
		case !multiLine(v):
			return first(field, MsgInvalidValue)
		case n < ScheduleTextMin:
			return first(field, MsgTooShort)
		case n > ScheduleTextMax:
			return first(field, MsgTooLong)
		}
		return nil
	}
	sendAt := func() error {
		switch {
		case in.SendAt.IsZero():
			return first("sendAt", MsgRequired)
		case !in.SendAt.After(now):
			return first("sendAt", MsgDateInPast)
		}
		return nil
	}
	ids := map[string]ID{"contactId": in.ContactID, "wpId": in.ConnectionID, "userId": in.UserID, "ticketId": in.TicketID}
	for _, f := range []string{"contactId", "wpId", "userId", "ticketId"} {
		if ids[f] < 0 {
			return first(f, MsgInvalidValue)
		}
	}
	if in.Kind == ScheduleTask {
		if err := sendAt(); err != nil {
			return err
		}
		if err := text("taskName", in.TaskName); err != nil {
			return err
		}
		if len(in.TagFilter) > ScheduleMaxFilter {
			return first("tagFilter", MsgTooLong)
		}
		for _, t := range in.TagFilter {
			if t <= 0 {
				return first("tagFilter", MsgInvalidValue)
			}
		}
		return text("message", in.Message)
	}
	if needNumber {
		d := in.PhoneNumber
		switch {
		case d == "":
			return first("phoneNumber", MsgRequired)
		case strings.IndexFunc(d, func(r rune) bool { return r > unicode.MaxASCII || !unicode.IsDigit(r) }) >= 0:
			return first("phoneNumber", MsgInvalidNumber)
		case len(d) < SchedulePhoneMin:
			return first("phoneNumber", MsgTooShort)
		case len(d) > SchedulePhoneMax:
			return first("phoneNumber", MsgTooLong)
		}
	}
	if in.ConnectionID == 0 && in.TicketID == 0 {
		return first("wpId", MsgRequired)
	}
	if err := sendAt(); err != nil {
		return err
	}
	return text("message", in.Message)
}

// MsgDateInPast is the field message of a date before the current moment (spec
// section 5's generic messages).
const MsgDateInPast = "Date before current moment"

// CanChangeSchedule decides whether p may edit or delete s (spec section 6): users and
// userplus only their own; superv and upward any of their tenant. Another tenant's
// schedule is not found.
func CanChangeSchedule(p Principal, s Schedule, del bool) error {
	if s.CompanyID != p.CompanyID {
		return E(ErrNoScheduleFound)
	}
	if p.Can(ActManageScheduledMessages) {
		return nil
	}
	own := ActEditOwnScheduledMessage
	if del {
		own = ActDeleteOwnScheduledMessage
	}
	if p.Can(own) && s.UserID == p.UserID {
		return nil
	}
	return E(ErrNoPermission)
}

// Greeting is the greeting of the time of day at t in loc: "Bom dia" from 05:00 to
// noon, "Boa tarde" until 18:00, "Boa noite" otherwise (the tenant's language is
// pt-BR, as whaticket's {{ms}} variable).
func Greeting(t time.Time, loc *time.Location) string {
	switch h := t.In(loc).Hour(); {
	case h >= 5 && h < 12:
		return "Bom dia"
	case h >= 12 && h < 18:
		return "Boa tarde"
	default:
		return "Boa noite"
	}
}

// ScheduledDelivery is a due schedule handed to the outbound path: the rendered body,
// the contact it goes to (found or created by number before), and the message id that
// makes the send idempotent.
type ScheduledDelivery struct {
	CompanyID    ID
	ConnectionID ID // 0: the ticket's, or the tenant's default connection
	ContactID    ID
	TicketID     ID // 0: the contact's current ticket on the connection, else a new pending one
	MessageID    ID
	UserID       ID // who scheduled it
	Body         string
	MediaType    string
	MediaPath    string
	// What the sender would otherwise read again, as the fire read it just before:
	// the contact's number, the scheduler as a principal (profile and queues as they
	// are now) and (CurrentRead) the contact's current ticket on ConnectionID, 0 for
	// none. Empty and zero: not read, the sender reads them itself.
	ContactNumber string
	By            Principal
	Current       ID
	CurrentRead   bool
}

// ScheduleSender records a due scheduled message on its ticket through the ordinary
// outbound path (the ticket actor, then the connection's outbox). Delivering the same
// MessageID twice records and sends it once. It answers the ticket used.
type ScheduleSender interface {
	DeliverScheduled(ctx context.Context, d ScheduledDelivery) (ticketID ID, err error)
}
