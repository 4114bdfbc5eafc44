package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // the zone database, so tenant zones load on hosts without one
)

// MessageVars are the values the variables of a scheduled message are rendered from
// (spec section 9), read at send time.
type MessageVars struct {
	ContactName  string
	ContactEmail string
	ContactPhone string
	TicketID     ID
	Protocol     string // the ticket's protocol; "" makes one from the time and ticket id
	UserName     string
	Now          time.Time      // the moment of sending
	Location     *time.Location // the tenant's zone; nil means TenantTimeZone
}

// RenderMessage replaces the variables of body by their values. Variables are written
// {{name}} as in whaticket and ticketz:
//
//	{{firstName}} {{name}} {{email}} {{phone}}  the contact
//	{{date}} dd/MM/yyyy, {{hour}} HH:mm, {{day}} {{month}} {{year}}  now, tenant's zone
//	{{ms}} or {{greeting}}  "Bom dia" / "Boa tarde" / "Boa noite" (Greeting)
//	{{protocol}}  the ticket's protocol, else yyyyMMddHHmmss of now and the ticket id
//	{{ticket_id}} {{user}}  the ticket and the attendant who scheduled it
//
// An unknown variable is left as written, so a typo shows instead of vanishing.
func RenderMessage(body string, v MessageVars) string {
	if !strings.Contains(body, "{{") {
		return body
	}
	loc := v.Location
	if loc == nil {
		loc = LoadZone(TenantTimeZone)
	}
	now := v.Now.In(loc)
	first, _, _ := strings.Cut(strings.TrimSpace(v.ContactName), " ")
	ticket := ""
	if v.TicketID != 0 {
		ticket = fmt.Sprint(v.TicketID)
	}
	protocol := v.Protocol
	if protocol == "" {
		protocol = now.Format("20060102150405") + ticket
	}
	return strings.NewReplacer(
		"{{firstName}}", first,
		"{{name}}", v.ContactName,
		"{{email}}", v.ContactEmail,
		"{{phone}}", v.ContactPhone,
		"{{date}}", now.Format("02/01/2006"),
		"{{hour}}", now.Format("15:04"),
		"{{day}}", now.Format("02"),
		"{{month}}", now.Format("01"),
		"{{year}}", now.Format("2006"),
		"{{ms}}", Greeting(now, loc),
		"{{greeting}}", Greeting(now, loc),
		"{{protocol}}", protocol,
		"{{ticket_id}}", ticket,
		"{{user}}", v.UserName,
	).Replace(body)
}

// zones keeps every valid zone loaded so far (name → *time.Location): time.LoadLocation
// reads and parses the zone database on every call, and a due schedule asks for its
// tenant's zone each time it fires. Only names ValidZoneName accepts are kept, so the
// map is bounded by the zone database.
var zones sync.Map

// zoneNamed is the zone of a valid IANA name, loaded once per process; nil when the
// name is not one.
func zoneNamed(name string) *time.Location {
	if l, ok := zones.Load(name); ok {
		return l.(*time.Location)
	}
	if !ValidZoneName(name) {
		return nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil
	}
	zones.Store(name, loc)
	return loc
}

// LoadZone loads the IANA zone name, falling back to UTC when the name is unknown.
func LoadZone(name string) *time.Location {
	if loc := zoneNamed(name); loc != nil {
		return loc
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

// ZoneOrDefault is the zone a tenant's timeZone setting value names, TenantTimeZone
// when the value is empty or no longer loads (a zone dropped from the database).
func ZoneOrDefault(name string) *time.Location {
	if loc := zoneNamed(name); loc != nil {
		return loc
	}
	return LoadZone(TenantTimeZone)
}

// LocalToUTC is the instant a wall-clock time (year, month, day, hour, minute) of
// zone loc names: a schedule set for 09:00 local fires at 09:00 local whatever the
// daylight-saving offset of that day. A wall time skipped by a spring-forward gap is
// moved forward by the gap (Go's time.Date rule).
func LocalToUTC(year int, month time.Month, day, hour, minute int, loc *time.Location) time.Time {
	return time.Date(year, month, day, hour, minute, 0, 0, loc).UTC()
}

// TenantZone is the tenant's time zone: its timeZone setting, TenantTimeZone when it
// set none. A stored name that no longer loads (a zone dropped from the database)
// falls back to the default rather than failing every time the tenant reads a time.
func TenantZone(ctx context.Context, settings SettingReader, companyID ID) (*time.Location, error) {
	if settings == nil {
		return LoadZone(TenantTimeZone), nil
	}
	st, err := settings.Get(ctx, companyID, SettingTimeZone)
	if err != nil {
		return nil, err
	}
	return ZoneOrDefault(st.Value), nil
}
