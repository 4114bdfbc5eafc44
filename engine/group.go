package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Sequential WhatsApp groups (issue 12 item 4, the /Groups page, docs/groups.md): a
// batch creates Count groups named "<name> <NNN>" where NNN is Root, Root+1, …
// written with three digits (the spec's "root numbering with the last 3 digits"), each
// with Admin1 and Admin2 as participants promoted to admins and the batch's picture.
// The public /groupjoin link of a batch sends each visitor to the first group that
// still has room (joined < MaxParticipants).

// Group limits.
const (
	// MaxGroupsPerBatch caps Count: a batch is a job of minutes, not of days.
	MaxGroupsPerBatch = 100
	// MinGroupParticipants: the account and the two admins take three seats of a
	// group, so a smaller maximum would leave no room for anyone.
	MinGroupParticipants = 4
	// MaxGroupParticipants is WhatsApp's participant limit of a group.
	MaxGroupParticipants = 1024
	// MaxGroupRoot is the last root a three-digit numbering can write.
	MaxGroupRoot = 999
	// maxGroupBaseName keeps "<name> NNN" within WhatsApp's 25-character subject.
	maxGroupBaseName = 21
)

// Statuses of a batch and of each of its groups.
const (
	GroupBatchRunning  = "running"
	GroupBatchFinished = "finished"
	GroupPending       = "pending"
	GroupCreated       = "created"
	GroupError         = "error"
)

// GroupBatchInput is what the Group modal submits (spec section 5).
type GroupBatchInput struct {
	Name            string `json:"name"`
	Root            string `json:"root"` // 1–3 digits: the number of the first group
	Admin1          string `json:"admin1"`
	Admin2          string `json:"admin2"`
	Count           int    `json:"count"`
	MaxParticipants int    `json:"maxParticipants"`
	ConnectionID    ID     `json:"connectionId"`
	MediaPath       string `json:"mediaPath"` // the picture, uploaded first (POST /groups/media)
	MediaType       string `json:"mediaType"` // MediaImage
}

// GroupBatch is a batch with its progress.
type GroupBatch struct {
	ID              ID        `json:"id"`
	CompanyID       ID        `json:"companyId"`
	ConnectionID    ID        `json:"connectionId"`
	Name            string    `json:"name"`
	Root            int       `json:"root"`
	Admin1          string    `json:"admin1"`
	Admin2          string    `json:"admin2"`
	Count           int       `json:"count"`
	MaxParticipants int       `json:"maxParticipants"`
	MediaPath       string    `json:"mediaPath"`
	MediaType       string    `json:"mediaType"`
	Token           string    `json:"token"` // the public /groupjoin/{token} link's secret
	Status          string    `json:"status"`
	Created         int       `json:"created"` // groups created so far
	Failed          int       `json:"failed"`
	Joined          int       `json:"joined"` // visitors sent to a group by /groupjoin
	CreatedAt       time.Time `json:"createdAt"`
	UpdatedAt       time.Time `json:"updatedAt"`
	Groups          []Group   `json:"groups"`
}

// Group is one group of a batch.
type Group struct {
	Seq          int    `json:"seq"` // 0-based position in the batch
	Name         string `json:"name"`
	Status       string `json:"status"`
	JID          string `json:"jid,omitempty"`
	InviteLink   string `json:"inviteLink,omitempty"`
	Participants int    `json:"participants"`
	Joined       int    `json:"joined"`
	Error        string `json:"error,omitempty"`
}

// GroupName is the name of the group at seq of a batch named name from root.
func GroupName(name string, root, seq int) string {
	return fmt.Sprintf("%s %03d", name, root+seq)
}

// ValidateGroupBatch checks in in the order of spec section 5 (group name, root of
// the sequence, Admin 1, Admin 2, number of groups, max participants, profile image)
// and returns it trimmed, with the admins as digits only. The connection is the
// store's to check (it must be one of the tenant's).
func ValidateGroupBatch(in GroupBatchInput) (GroupBatchInput, int, error) {
	f := fieldErrors{}
	in.Name = strings.TrimSpace(in.Name)
	in.Root = strings.TrimSpace(in.Root)
	in.Admin1 = digitsOf(in.Admin1)
	in.Admin2 = digitsOf(in.Admin2)
	f.text("name", in.Name, true, 1, maxGroupBaseName)
	root := 0
	switch {
	case in.Root == "":
		f.add("root", MsgRequired)
	case len(in.Root) > 3 || strings.Trim(in.Root, "0123456789") != "":
		f.add("root", MsgInvalidValue)
	default:
		root, _ = strconv.Atoi(in.Root)
	}
	for _, a := range []struct{ field, v string }{{"admin1", in.Admin1}, {"admin2", in.Admin2}} {
		switch {
		case a.v == "":
			f.add(a.field, MsgRequired)
		case len(a.v) < 8 || len(a.v) > 15:
			f.add(a.field, MsgInvalidNumber)
		}
	}
	if in.Admin1 != "" && in.Admin1 == in.Admin2 {
		f.add("admin2", MsgInvalidValue)
	}
	switch {
	case in.Count == 0:
		f.add("count", MsgRequired)
	case in.Count < 0 || in.Count > MaxGroupsPerBatch:
		f.add("count", MsgInvalidValue)
	case root+in.Count-1 > MaxGroupRoot:
		f.add("count", MsgTooLong) // the numbering would need a fourth digit
	}
	switch {
	case in.MaxParticipants == 0:
		f.add("maxParticipants", MsgRequired)
	case in.MaxParticipants < MinGroupParticipants || in.MaxParticipants > MaxGroupParticipants:
		f.add("maxParticipants", MsgInvalidValue)
	}
	f.id("connectionId", in.ConnectionID, true)
	if in.MediaPath == "" {
		f.add("media", MsgRequired)
	} else if in.MediaType != MediaImage {
		f.add("media", MsgInvalidValue) // a picture (POST /groups/media takes JPEG only)
	}
	return in, root, f.err()
}

// digitsOf keeps the digits of a typed phone number ("+55 (11) 9…" → "5511…"); any
// other character makes it invalid, answered as no digits plus a marker.
func digitsOf(s string) string {
	s = strings.TrimSpace(s)
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '+' || r == ' ' || r == '-' || r == '(' || r == ')':
		default:
			return "x" // not a phone number: fails the length check as Invalid number
		}
	}
	return b.String()
}

// GroupRequest asks a channel to create one group (engine.GroupCreator).
type GroupRequest struct {
	// Key identifies the group in its batch across retries: the same key is the same
	// group (the channel sends it as WhatsApp's create key and, when Resume, looks for
	// a group it already created under Name before creating one).
	Key    string   `json:"key"`
	Name   string   `json:"name"`
	Admins []string `json:"admins"` // phone numbers, digits only
	// Resume: an earlier attempt of this group may have created it.
	Resume    bool   `json:"resume,omitempty"`
	MediaPath string `json:"mediaPath"`
	MediaType string `json:"mediaType"`
}

// GroupResult is a created group.
type GroupResult struct {
	JID          string `json:"jid"`
	InviteLink   string `json:"inviteLink"`
	Participants int    `json:"participants"`
}

// GroupCreator is a channel that creates groups (WhatsApp). A channel without it
// answers ErrGroupsNotSupported.
type GroupCreator interface {
	CreateGroup(ctx context.Context, companyID ID, req GroupRequest) (GroupResult, error)
}

// GroupMaker creates a group on a tenant's connection wherever its actor runs
// (actors.Connections); a connection of another tenant answers ErrNoWappFound.
type GroupMaker interface {
	CreateGroup(ctx context.Context, companyID, connectionID ID, req GroupRequest) (GroupResult, error)
}
