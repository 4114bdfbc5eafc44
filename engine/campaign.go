package engine

import (
	"context"
	"math"
	"strings"
	"time"
)

// Campaigns and broadcasts (issue 12): an outbound job that sends one or more messages
// to a segment of the tenant's contacts through one or more connections, paced, held
// to each connection's dailyMax, resumable after a crash. A broadcast is the simple
// form (one connection, picked contacts, one message, credits); a campaign adds the
// segment filters, a start time, several messages in sequence, buttons and the
// @param1–@param5 variables of a CSV import. Both run on the same engine
// (persistence/campaign).

// Kinds of outbound job.
const (
	KindCampaign  = "campaign"
	KindBroadcast = "broadcast"
)

// Statuses of a campaign.
const (
	CampaignScheduled = "scheduled" // waiting for its start time
	CampaignRunning   = "running"
	CampaignPaused    = "paused"
	CampaignCancelled = "cancelled"
	CampaignFinished  = "finished"
)

// Statuses of one send (spec section 3, broadcast contact statuses).
const (
	SendPending = "pending"
	SendSent    = "sent"
	SendError   = "error"
)

// MsgCSVFormat is the section-5 message for a CSV line that cannot be read.
const MsgCSVFormat = "CSV format wrong"

// MaxCampaignParams is how many @param variables a contact line carries.
const MaxCampaignParams = 5

// CampaignButtons are the buttons of a campaign message (spec section 3): two web
// addresses with captions, a phone with caption, a message and a destination. They go
// as an interactive message where the channel supports one, else as text with links.
type CampaignButtons struct {
	URL1Caption  string `json:"url1Caption,omitempty"`
	URL1         string `json:"url1,omitempty"`
	URL2Caption  string `json:"url2Caption,omitempty"`
	URL2         string `json:"url2,omitempty"`
	PhoneCaption string `json:"phoneCaption,omitempty"`
	Phone        string `json:"phone,omitempty"`
	Message      string `json:"message,omitempty"`
	Destination  string `json:"destination,omitempty"`
}

// Empty tells whether no button is set.
func (b CampaignButtons) Empty() bool { return b == CampaignButtons{} }

// CampaignMessage is one message of a campaign, sent in Seq order to every contact.
type CampaignMessage struct {
	Seq       int    `json:"seq"`
	Body      string `json:"body"`
	MediaType string `json:"mediaType,omitempty"`
	MediaPath string `json:"mediaPath,omitempty"`
}

// CampaignContactParams is one contact line of a CSV import: the number and the
// values of @param1–@param5.
type CampaignContactParams struct {
	Number string   `json:"number"`
	Name   string   `json:"name,omitempty"`
	Params []string `json:"params"`
}

// CampaignInput is what creates a campaign or a broadcast.
type CampaignInput struct {
	Kind     string `json:"kind"`
	Name     string `json:"name"`
	PlanName string `json:"planName"`
	// Segment: picked contacts, contacts tagged (on one of their tickets) with one of
	// TagIDs, the groups (IsGroup contacts) when Groups, the leads (contacts with
	// no ticket yet) when Leads, the contacts inside Polygon, and CSV lines (a contact
	// is created for a number the tenant does not know). The union of them all.
	ContactIDs []ID                    `json:"contactIds"`
	TagIDs     []ID                    `json:"tagIds"`
	Groups     bool                    `json:"groups"`
	Leads      bool                    `json:"leads"`
	Polygon    []Location              `json:"polygon"`
	CSV        []CampaignContactParams `json:"csv"`
	// NameFilter is a LIKE pattern on the contact's name ('%' for all).
	NameFilter string `json:"nameFilter"`
	// IncludeDefault lets the tenant's default connection send too (else it is left
	// out when other connections match).
	IncludeDefault bool `json:"includeDefault"`
	// SendFrom names the connections that send; empty means every connection whose
	// channel matches ChannelFilter (a LIKE pattern, '%' for all).
	SendFrom      []ID   `json:"sendFrom"`
	ChannelFilter string `json:"channelFilter"`
	// StartAt is when sending starts (UTC); zero means now.
	StartAt  time.Time         `json:"startAt"`
	Messages []CampaignMessage `json:"messages"`
	Buttons  CampaignButtons   `json:"buttons"`
	// IntervalMs overrides the connection pacing (milliseconds between two sends of
	// a connection); nil uses the server's default.
	IntervalMs *int `json:"intervalMs,omitempty"`
}

// Campaign is a stored campaign or broadcast with its progress.
type Campaign struct {
	ID         ID        `json:"id"`
	CompanyID  ID        `json:"companyId"`
	Kind       string    `json:"kind"`
	Name       string    `json:"name"`
	PlanName   string    `json:"planName"`
	Status     string    `json:"status"`
	StartAt    time.Time `json:"startAt"`
	UserID     ID        `json:"userId"`
	Total      int       `json:"total"`
	Sent       int       `json:"sent"`
	Errors     int       `json:"errors"`
	Pending    int       `json:"pending"`
	NextSendAt time.Time `json:"nextSendAt"`
	// WaitReason says why sending waits while running: an error code (the connection
	// is down, ERR_DAILY_MAX until tomorrow, no credits), "" when it does not.
	WaitReason string        `json:"waitReason"`
	Spec       CampaignInput `json:"spec"`
	CreatedAt  time.Time     `json:"createdAt"`
	UpdatedAt  time.Time     `json:"updatedAt"`
}

// CampaignSend is one (contact, message) of a campaign and its outcome.
type CampaignSend struct {
	ID           ID        `json:"id"`
	CampaignID   ID        `json:"campaignId"`
	ContactID    ID        `json:"contactId"`
	ContactName  string    `json:"contactName"`
	Number       string    `json:"number"`
	Seq          int       `json:"seq"`
	ConnectionID ID        `json:"connectionId"`
	Status       string    `json:"status"`
	Error        string    `json:"error"`
	SentAt       time.Time `json:"sentAt"`
}

// campaignStartGrace is how far in the past a campaign's start may be and still mean
// "now": the form has minute precision, so the current minute typed at hh:mm:59 and
// saved a few seconds later is already more than a minute old.
const campaignStartGrace = 2 * time.Minute

// ValidateCampaign checks in in the order of spec section 5 and returns the input
// with texts trimmed. now is the moment of the request: a start in the past is read
// as "now" for broadcasts and refused for campaigns (Date before current moment).
func ValidateCampaign(in CampaignInput, now time.Time) (CampaignInput, error) {
	f := fieldErrors{}
	in.Name = strings.TrimSpace(in.Name)
	in.PlanName = strings.TrimSpace(in.PlanName)
	in.NameFilter = strings.TrimSpace(in.NameFilter)
	in.ChannelFilter = strings.TrimSpace(in.ChannelFilter)
	switch in.Kind {
	case KindBroadcast:
		// Broadcast errors (section 5): no channel, no contacts; credits are the
		// store's to check. Defaults stand in for the campaign-only fields.
		if len(in.SendFrom) == 0 {
			return in, E(ErrNoChannelSelected)
		}
		if len(in.ContactIDs) == 0 && len(in.TagIDs) == 0 && len(in.CSV) == 0 {
			return in, E(ErrNoContactsSelected)
		}
		if in.NameFilter == "" {
			in.NameFilter = "%"
		}
		if in.ChannelFilter == "" {
			in.ChannelFilter = "%"
		}
		if in.StartAt.IsZero() || in.StartAt.Before(now) {
			in.StartAt = now
		}
		if in.Name == "" {
			in.Name = "broadcast"
		}
	case KindCampaign:
		f.text("name", in.Name, true, 1, 100)
		if len(in.ContactIDs) == 0 && len(in.TagIDs) == 0 && !in.Groups && !in.Leads && len(in.Polygon) == 0 && len(in.CSV) == 0 {
			f.add("contacts", MsgRequired) // must state groups or contacts
		}
		f.text("nameFilter", in.NameFilter, true, 1, 100)
		f.text("channelFilter", in.ChannelFilter, true, 1, 100)
		switch {
		case in.StartAt.IsZero():
			f.add("startAt", MsgRequired)
		case in.StartAt.Before(now.Add(-campaignStartGrace)):
			f.add("startAt", MsgDateInPast)
		}
		f.text("planName", in.PlanName, false, 0, 100)
	default:
		f.add("kind", MsgInvalidValue)
	}
	for _, id := range in.ContactIDs {
		f.id("contactIds", id, true)
	}
	for _, id := range in.TagIDs {
		f.id("tagIds", id, true)
	}
	for _, id := range in.SendFrom {
		f.id("sendFrom", id, true)
	}
	if len(in.Polygon) > 0 && !validPolygon(in.Polygon) {
		f.add("polygon", MsgInvalidValue)
	}
	if len(in.Messages) == 0 {
		f.add("messages", MsgRequired)
	}
	seqs := map[int]bool{}
	for i := range in.Messages {
		m := &in.Messages[i]
		m.Body = strings.TrimSpace(m.Body)
		if m.Body == "" && m.MediaPath == "" {
			f.add("messages", MsgRequired)
		}
		if runeLen(m.Body) > 4096 {
			f.add("messages", MsgTooLong)
		}
		if m.Seq <= 0 {
			m.Seq = i + 1
		}
		if seqs[m.Seq] {
			f.add("messages", MsgInvalidValue)
		}
		seqs[m.Seq] = true
		if m.MediaType != "" && m.MediaType != MediaImage && m.MediaType != MediaVideo && m.MediaType != MediaAudio && m.MediaType != MediaDocument {
			f.add("messages", MsgInvalidValue)
		}
	}
	b := in.Buttons
	for _, u := range []string{b.URL1, b.URL2} {
		if u != "" && !(strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")) {
			f.add("buttons", MsgInvalidValue)
		}
	}
	if b.Phone != "" && !allDigits(strings.TrimPrefix(b.Phone, "+")) {
		f.add("buttons", MsgInvalidNumber)
	}
	if in.IntervalMs != nil && (*in.IntervalMs < 0 || *in.IntervalMs > 3_600_000) {
		f.add("intervalMs", MsgInvalidValue)
	}
	if len(in.CSV) > 200_000 {
		f.add("csv", MsgTooLong)
	}
	return in, f.err()
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// validPolygon: 3 to 500 finite points inside the coordinate ranges.
func validPolygon(p []Location) bool {
	if len(p) < 3 || len(p) > 500 {
		return false
	}
	for _, l := range p {
		if math.IsNaN(l.Lat) || math.IsNaN(l.Lng) || l.Lat < -90 || l.Lat > 90 || l.Lng < -180 || l.Lng > 180 {
			return false
		}
	}
	return true
}

// InPolygon tells whether pt lies inside polygon (ray casting; the edge counts as
// either side, which does not matter for a drawn area).
func InPolygon(pt Location, polygon []Location) bool {
	in := false
	for i, j := 0, len(polygon)-1; i < len(polygon); j, i = i, i+1 {
		a, b := polygon[i], polygon[j]
		if (a.Lat > pt.Lat) != (b.Lat > pt.Lat) &&
			pt.Lng < (b.Lng-a.Lng)*(pt.Lat-a.Lat)/(b.Lat-a.Lat)+a.Lng {
			in = !in
		}
	}
	return in
}

// RenderCampaignMessage fills @param1–@param5 from params (missing ones are empty),
// then the contact variables ({{name}}, {{firstName}}, … as RenderMessage).
func RenderCampaignMessage(body string, params []string, v MessageVars) string {
	if strings.Contains(body, "@param") {
		pairs := make([]string, 0, 2*MaxCampaignParams)
		// @param5 before @param1… is not needed (single digits), but a longer
		// token must not be cut: only @param1..@param5 are replaced.
		for i := 1; i <= MaxCampaignParams; i++ {
			val := ""
			if i <= len(params) {
				val = params[i-1]
			}
			pairs = append(pairs, "@param"+string(rune('0'+i)), val)
		}
		body = strings.NewReplacer(pairs...).Replace(body)
	}
	return RenderMessage(body, v)
}

// ButtonsAsText renders buttons for a channel without interactive messages: the
// message, then one line per link and the phone.
func ButtonsAsText(body string, b CampaignButtons) string {
	if b.Empty() {
		return body
	}
	var sb strings.Builder
	sb.WriteString(body)
	line := func(caption, value string) {
		if value == "" {
			return
		}
		sb.WriteString("\n")
		if caption != "" {
			sb.WriteString(caption)
			sb.WriteString(": ")
		}
		sb.WriteString(value)
	}
	if b.Message != "" {
		sb.WriteString("\n\n")
		sb.WriteString(b.Message)
	}
	line(b.URL1Caption, b.URL1)
	line(b.URL2Caption, b.URL2)
	if b.Phone != "" {
		line(b.PhoneCaption, "tel:"+strings.TrimPrefix(b.Phone, "+"))
	}
	line("", b.Destination)
	return sb.String()
}

// CampaignOutbound is one campaign send handed to a connection.
type CampaignOutbound struct {
	// MessageID is the send's idempotency key: fixed when the campaign's segment is
	// expanded, one per (campaign, contact, message), so a send retried after a crash
	// goes out under the same id and a channel that de-duplicates sends it once.
	MessageID ID              `json:"messageId"`
	To        string          `json:"to"`
	Body      string          `json:"body"`
	MediaType string          `json:"mediaType,omitempty"`
	MediaPath string          `json:"mediaPath,omitempty"`
	Buttons   CampaignButtons `json:"buttons,omitempty"`
}

// CampaignSender hands campaign sends to the connection that owns the channel (the
// connection actor, wherever the cluster placed it). An error with ErrUnavailable or
// ErrChannelTemporary is worth retrying later (the connection is down or busy); any
// other error is the channel's refusal of that contact and is recorded on the send.
type CampaignSender interface {
	SendCampaign(ctx context.Context, connectionID ID, m CampaignOutbound) (providerID string, err error)
}

// InteractiveSender is implemented by channels that send buttons as an interactive
// message; the others get ButtonsAsText.
type InteractiveSender interface {
	SendInteractive(ctx context.Context, m OutboundMessage, b CampaignButtons) (providerID string, err error)
}
