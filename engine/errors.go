package engine

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// Code is a client-facing error code of the catalogue (spec section 8). The web app
// translates it through the i18n key backendErrors.<Code>.
type Code string

// The catalogue. Codes of the brief come first; the ones after "Atende's own" are
// the ones a server that enforces the brief needs beyond it (docs/api.md lists them).
const (
	ErrNoOtherWhatsapp         Code = "ERR_NO_OTHER_WHATSAPP"
	ErrNoDefWappFound          Code = "ERR_NO_DEF_WAPP_FOUND"
	ErrWappNotInitialized      Code = "ERR_WAPP_NOT_INITIALIZED"
	ErrWappCheckContact        Code = "ERR_WAPP_CHECK_CONTACT"
	ErrWappDownloadMedia       Code = "ERR_WAPP_DOWNLOAD_MEDIA"
	ErrSendingWappMsg          Code = "ERR_SENDING_WAPP_MSG"
	ErrDeleteWappMsg           Code = "ERR_DELETE_WAPP_MSG"
	ErrNoWappFound             Code = "ERR_NO_WAPP_FOUND"
	ErrWappInvalidContact      Code = "ERR_WAPP_INVALID_CONTACT"
	ErrInvalidCredentials      Code = "ERR_INVALID_CREDENTIALS"
	ErrOtherOpenTicket         Code = "ERR_OTHER_OPEN_TICKET"
	ErrSessionExpired          Code = "ERR_SESSION_EXPIRED"
	ErrUserCreationDisabled    Code = "ERR_USER_CREATION_DISABLED"
	ErrNoPermission            Code = "ERR_NO_PERMISSION"
	ErrDuplicatedContact       Code = "ERR_DUPLICATED_CONTACT"
	ErrNoSettingFound          Code = "ERR_NO_SETTING_FOUND"
	ErrNoContactFound          Code = "ERR_NO_CONTACT_FOUND"
	ErrNoTicketFound           Code = "ERR_NO_TICKET_FOUND"
	ErrNoUserFound             Code = "ERR_NO_USER_FOUND"
	ErrCreatingMessage         Code = "ERR_CREATING_MESSAGE"
	ErrCreatingTicket          Code = "ERR_CREATING_TICKET"
	ErrFetchWappMsg            Code = "ERR_FETCH_WAPP_MSG"
	ErrQueueColorAlreadyExists Code = "ERR_QUEUE_COLOR_ALREADY_EXISTS"
	ErrWappGreetingRequired    Code = "ERR_WAPP_GREETING_REQUIRED"
	ErrCategoryNameDuplicated  Code = "ERR_CATEGORYNAME_DUPLICATED"
	ErrNoCategoryFound         Code = "ERR_NO_CATEGORY_FOUND"
	ErrCatalogDuplicated       Code = "ERR_CATALOG_DUPLICATED"
	ErrNoCatalogFound          Code = "ERR_NO_CATALOG_FOUND"

	// Atende's own.
	ErrValidation          Code = "ERR_VALIDATION"
	ErrInvalidJSON         Code = "ERR_INVALID_JSON"
	ErrBodyTooLarge        Code = "ERR_BODY_TOO_LARGE"
	ErrInvalidToken        Code = "ERR_INVALID_TOKEN"
	ErrTooManyAttempts     Code = "ERR_TOO_MANY_ATTEMPTS"
	ErrOutOfOrder          Code = "ERR_OUT_OF_ORDER" // a web chat message ahead of its visitor's seq: retried, it is taken in order
	ErrInvalidTransition   Code = "ERR_INVALID_TRANSITION"
	ErrConcurrentUpdate    Code = "ERR_CONCURRENT_UPDATE"
	ErrNotFound            Code = "ERR_NOT_FOUND"
	ErrNoQueueFound        Code = "ERR_NO_QUEUE_FOUND"
	ErrNoTagFound          Code = "ERR_NO_TAG_FOUND"
	ErrNoQuickAnswerFound  Code = "ERR_NO_QUICK_ANSWER_FOUND"
	ErrNoBotFound          Code = "ERR_NO_BOT_FOUND"
	ErrNoMessageFound      Code = "ERR_NO_MESSAGE_FOUND"
	ErrEmailAlreadyExists  Code = "ERR_EMAIL_ALREADY_EXISTS"
	ErrMediaTooLarge       Code = "ERR_MEDIA_TOO_LARGE"
	ErrMediaTypeNotAllowed Code = "ERR_MEDIA_TYPE_NOT_ALLOWED"
	ErrInvalidSignature    Code = "ERR_INVALID_SIGNATURE"
	// ErrUnsupportedMediaType: a JSON route got a body not declared application/json.
	ErrUnsupportedMediaType Code = "ERR_UNSUPPORTED_MEDIA_TYPE"
	// ErrForbiddenOrigin: a browser request from an origin that may not make it.
	ErrForbiddenOrigin Code = "ERR_FORBIDDEN_ORIGIN"
	// A channel provider (Meta Graph, Telegram) refused the connection's credentials
	// (expired or revoked token), or refused a message for good (not retried).
	ErrChannelCredentials Code = "ERR_CHANNEL_CREDENTIALS"
	ErrChannelRefused     Code = "ERR_CHANNEL_REFUSED"
	// A send whose request reached the provider but whose answer was lost: it may
	// have been delivered. Not retried (the cloud providers have no idempotency key);
	// the message is marked failed rather than risk sending it twice.
	ErrChannelOutcomeUnknown Code = "ERR_CHANNEL_OUTCOME_UNKNOWN"
	// The booking scheduler (engine/booking.go): a slot already booked, a place that
	// positions are still at, and the scheduler's not-found codes.
	ErrSlotTaken       Code = "ERR_SLOT_TAKEN"
	ErrPlaceInUse      Code = "ERR_PLACE_IN_USE"
	ErrNoSlotFound     Code = "ERR_NO_SLOT_FOUND"
	ErrNoPlaceFound    Code = "ERR_NO_PLACE_FOUND"
	ErrNoPositionFound Code = "ERR_NO_POSITION_FOUND"
	ErrUnavailable     Code = "ERR_UNAVAILABLE"
	ErrInternal        Code = "ERR_INTERNAL"
	// ErrNoScheduleFound: no scheduled message or agenda task of the tenant has the id.
	ErrNoScheduleFound Code = "ERR_NO_SCHEDULE_FOUND"
	// ErrScheduleSent: a scheduled message already sent cannot be changed or deleted.
	ErrScheduleSent Code = "ERR_SCHEDULE_SENT"
	// ErrPendingSchedules: a contact or connection still has pending schedules.
	ErrPendingSchedules Code = "ERR_PENDING_SCHEDULES"
	// Tenants (engine/tenant.go): an unknown tenant id, a name another tenant has
	// (case ignored), a login to a disabled tenant, and a super disabling its own.
	ErrNoTenantFound        Code = "ERR_NO_TENANT_FOUND"
	ErrTenantNameDuplicated Code = "ERR_TENANT_NAME_DUPLICATED"
	ErrTenantDisabled       Code = "ERR_TENANT_DISABLED"
	ErrTenantOwn            Code = "ERR_TENANT_OWN"
	// ErrNoCalendarFeed: a calendar subscription link that was never issued, was
	// replaced by a newer one, or whose user or tenant is gone or disabled.
	ErrNoCalendarFeed Code = "ERR_NO_CALENDAR_FEED"
	// ErrNoAPITokenFound: no API token of the tenant has the id (engine/apitoken.go).
	ErrNoAPITokenFound Code = "ERR_NO_API_TOKEN_FOUND"
	// Bizflow (engine/flow.go): a flow document refused on save, its fields naming
	// the faulty nodes ("nodes.<id>"); no flow of the tenant has the id.
	ErrFlowInvalid Code = "ERR_FLOW_INVALID"
	ErrNoFlowFound Code = "ERR_NO_FLOW_FOUND"
	// AI assistance (engine/ai.go): the tenant has no AI endpoint configured; the
	// endpoint refused the key (401/403); it limits the tenant's requests (429); it
	// failed, timed out or answered something unreadable.
	ErrAINotConfigured Code = "ERR_AI_NOT_CONFIGURED"
	ErrAICredentials   Code = "ERR_AI_CREDENTIALS"
	ErrAIRateLimited   Code = "ERR_AI_RATE_LIMITED"
	ErrAIUnavailable   Code = "ERR_AI_UNAVAILABLE"

	// Campaigns and broadcasts (issue 12).
	ErrNoCampaignFound      Code = "ERR_NO_CAMPAIGN_FOUND"
	ErrCampaignNotRemovable Code = "ERR_CAMPAIGN_NOT_REMOVABLE"
	ErrCampaignTransition   Code = "ERR_CAMPAIGN_TRANSITION"
	ErrNoChannelSelected    Code = "ERR_NO_CHANNEL_SELECTED"
	ErrNoContactsSelected   Code = "ERR_NO_CONTACTS_SELECTED"
	ErrNoCredits            Code = "ERR_NO_CREDITS"
	ErrDailyMaxReached      Code = "ERR_DAILY_MAX_REACHED"

	// Sequential groups (issue 12 item 4, engine/group.go): no batch of the tenant
	// has the id or the /groupjoin token; the connection's channel cannot create
	// groups; every group of a /groupjoin batch is full (or none is created yet).
	ErrNoGroupBatchFound  Code = "ERR_NO_GROUP_BATCH_FOUND"
	ErrGroupsNotSupported Code = "ERR_GROUPS_NOT_SUPPORTED"
	ErrGroupsFull         Code = "ERR_GROUPS_FULL"
)

// statusOf maps every code of the catalogue to its HTTP status, once.
var statusOf = map[Code]int{
	ErrNoOtherWhatsapp:         http.StatusBadRequest,
	ErrNoDefWappFound:          http.StatusNotFound,
	ErrWappNotInitialized:      http.StatusBadRequest,
	ErrWappCheckContact:        http.StatusBadRequest,
	ErrWappDownloadMedia:       http.StatusBadGateway,
	ErrSendingWappMsg:          http.StatusBadGateway,
	ErrDeleteWappMsg:           http.StatusBadGateway,
	ErrNoWappFound:             http.StatusNotFound,
	ErrWappInvalidContact:      http.StatusBadRequest,
	ErrInvalidCredentials:      http.StatusUnauthorized,
	ErrOtherOpenTicket:         http.StatusConflict,
	ErrSessionExpired:          http.StatusUnauthorized,
	ErrUserCreationDisabled:    http.StatusForbidden,
	ErrNoPermission:            http.StatusForbidden,
	ErrDuplicatedContact:       http.StatusConflict,
	ErrNoSettingFound:          http.StatusNotFound,
	ErrNoContactFound:          http.StatusNotFound,
	ErrNoTicketFound:           http.StatusNotFound,
	ErrNoScheduleFound:         http.StatusNotFound,
	ErrScheduleSent:            http.StatusConflict,
	ErrPendingSchedules:        http.StatusConflict,
	ErrNoUserFound:             http.StatusNotFound,
	ErrCreatingMessage:         http.StatusInternalServerError,
	ErrCreatingTicket:          http.StatusInternalServerError,
	ErrFetchWappMsg:            http.StatusNotFound,
	ErrQueueColorAlreadyExists: http.StatusConflict,
	ErrWappGreetingRequired:    http.StatusBadRequest,
	ErrCategoryNameDuplicated:  http.StatusConflict,
	ErrNoCategoryFound:         http.StatusNotFound,
	ErrCatalogDuplicated:       http.StatusConflict,
	ErrNoCatalogFound:          http.StatusNotFound,

	ErrValidation:            http.StatusBadRequest,
	ErrInvalidJSON:           http.StatusBadRequest,
	ErrBodyTooLarge:          http.StatusRequestEntityTooLarge,
	ErrInvalidToken:          http.StatusForbidden,
	ErrTooManyAttempts:       http.StatusTooManyRequests,
	ErrOutOfOrder:            http.StatusConflict,
	ErrInvalidTransition:     http.StatusConflict,
	ErrConcurrentUpdate:      http.StatusConflict,
	ErrNotFound:              http.StatusNotFound,
	ErrNoQueueFound:          http.StatusNotFound,
	ErrNoTagFound:            http.StatusNotFound,
	ErrNoQuickAnswerFound:    http.StatusNotFound,
	ErrNoBotFound:            http.StatusNotFound,
	ErrNoMessageFound:        http.StatusNotFound,
	ErrEmailAlreadyExists:    http.StatusConflict,
	ErrMediaTooLarge:         http.StatusRequestEntityTooLarge,
	ErrMediaTypeNotAllowed:   http.StatusUnsupportedMediaType,
	ErrInvalidSignature:      http.StatusUnauthorized,
	ErrUnsupportedMediaType:  http.StatusUnsupportedMediaType,
	ErrForbiddenOrigin:       http.StatusForbidden,
	ErrChannelCredentials:    http.StatusBadRequest,
	ErrChannelRefused:        http.StatusBadGateway,
	ErrChannelOutcomeUnknown: http.StatusBadGateway,
	ErrSlotTaken:             http.StatusConflict,
	ErrPlaceInUse:            http.StatusConflict,
	ErrNoSlotFound:           http.StatusNotFound,
	ErrNoPlaceFound:          http.StatusNotFound,
	ErrNoPositionFound:       http.StatusNotFound,
	ErrUnavailable:           http.StatusServiceUnavailable,
	ErrInternal:              http.StatusInternalServerError,
	ErrNoTenantFound:         http.StatusNotFound,
	ErrTenantNameDuplicated:  http.StatusConflict,
	ErrTenantDisabled:        http.StatusForbidden,
	ErrTenantOwn:             http.StatusConflict,
	ErrNoCalendarFeed:        http.StatusNotFound,
	ErrNoAPITokenFound:       http.StatusNotFound,
	ErrFlowInvalid:           http.StatusBadRequest,
	ErrNoFlowFound:           http.StatusNotFound,
	ErrAINotConfigured:       http.StatusConflict,
	ErrAICredentials:         http.StatusBadGateway,
	ErrAIRateLimited:         http.StatusTooManyRequests,
	ErrAIUnavailable:         http.StatusBadGateway,

	ErrNoCampaignFound:      http.StatusNotFound,
	ErrCampaignNotRemovable: http.StatusMethodNotAllowed,
	ErrCampaignTransition:   http.StatusConflict,
	ErrNoChannelSelected:    http.StatusBadRequest,
	ErrNoContactsSelected:   http.StatusBadRequest,
	ErrNoCredits:            http.StatusPaymentRequired,
	ErrDailyMaxReached:      http.StatusTooManyRequests,

	ErrNoGroupBatchFound:  http.StatusNotFound,
	ErrGroupsNotSupported: http.StatusBadRequest,
	ErrGroupsFull:         http.StatusGone,
}

// Codes lists every code of the catalogue, sorted. The web app's locales are checked
// against it.
func Codes() []Code {
	out := make([]Code, 0, len(statusOf))
	for c := range statusOf {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// HTTPStatus is the status a code answers with; an unknown code is a 500.
func (c Code) HTTPStatus() int {
	if s, ok := statusOf[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Error is a client-facing failure: a catalogue code, for validation the field
// messages of spec section 5, and the underlying cause for the logs (never shown).
type Error struct {
	Code   Code
	Fields map[string]string // field name -> 'Required', 'Too Short!', …; only for ErrValidation and ErrFlowInvalid
	Cause  error
}

// E builds an *Error for code.
func E(code Code) *Error { return &Error{Code: code} }

// Wrap builds an *Error for code that keeps cause for the logs.
func Wrap(code Code, cause error) *Error { return &Error{Code: code, Cause: cause} }

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Code))
	if len(e.Fields) > 0 {
		keys := make([]string, 0, len(e.Fields))
		for k := range e.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, " %s=%q", k, e.Fields[k])
		}
	}
	if e.Cause != nil {
		b.WriteString(": ")
		b.WriteString(e.Cause.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Cause }

// Is lets errors.Is(err, engine.E(code)) match on the code alone.
func (e *Error) Is(target error) bool {
	var t *Error
	if errors.As(target, &t) {
		return t.Code == e.Code && t.Fields == nil && t.Cause == nil
	}
	return false
}

// CodeOf is the catalogue code of err, ErrInternal for anything that is not an *Error.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ErrInternal
}
