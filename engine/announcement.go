package engine

import (
	"context"
	"strings"
	"time"
)

// Announcement priorities (spec section 3): the colour the web app shows.
const (
	AnnouncementHigh   = 1 // red
	AnnouncementMedium = 2 // orange
	AnnouncementLow    = 3 // grey
)

// AnnouncementPageSize is the number of announcements GET /announcements answers per
// page.
const AnnouncementPageSize = 20

// AnnouncementTitleMax caps an announcement's title (Atende's choice).
const AnnouncementTitleMax = 100

// Announcement is a notice the supervision posts to every user of the tenant; the top
// bar shows the newest active one. Status true means active (shown); false keeps it
// in the list without showing it. MediaPath and MediaName are the attached file (an
// image, video, audio or document uploaded with the form; empty when none): the
// stored path "<companyId>/<file>" in the store, a signed URL in the API's answers.
type Announcement struct {
	ID        ID        `json:"id"`
	CompanyID ID        `json:"companyId"`
	Title     string    `json:"title"`
	Text      string    `json:"text"`
	Priority  int       `json:"priority"`
	MediaPath string    `json:"mediaPath"`
	MediaName string    `json:"mediaName"`
	Status    bool      `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// AnnouncementInput is the announcement form (POST and PUT /announcements).
// Priority 0 means AnnouncementLow. A nil Status means active on create and
// unchanged on update.
type AnnouncementInput struct {
	Title    string `json:"title"`
	Text     string `json:"text"`
	Priority int    `json:"priority"`
	Status   *bool  `json:"status"`
	// Media, set by the API from an uploaded file (never from a JSON body), is the
	// attachment to store: nil leaves it (none on create), a zero AnnouncementMedia
	// removes it.
	Media *AnnouncementMedia `json:"-"`
}

// AnnouncementMedia is an announcement's attachment: the media store's path and the
// sender's file name.
type AnnouncementMedia struct {
	Path string
	Name string
}

// ValidateAnnouncement: title required, 1 to 100, single line; text required, up to
// 4096 characters, multi-line; priority 1, 2 or 3 (0 becomes 3).
func ValidateAnnouncement(in AnnouncementInput) (AnnouncementInput, error) {
	out := AnnouncementInput{Title: strings.TrimSpace(in.Title), Text: strings.TrimSpace(in.Text),
		Priority: in.Priority, Status: in.Status, Media: in.Media}
	if out.Priority == 0 {
		out.Priority = AnnouncementLow
	}
	f := fieldErrors{}
	f.text("title", out.Title, true, 1, AnnouncementTitleMax)
	f.longText("text", out.Text, true, LongTextMax)
	if out.Priority < AnnouncementHigh || out.Priority > AnnouncementLow {
		f.add("priority", MsgInvalidValue)
	}
	return finish(in, out, f)
}

// AnnouncementQuery selects a page of announcements, newest first (createdAt then id,
// descending). Search matches the folded title or text; ActiveOnly keeps those with
// status true.
type AnnouncementQuery struct {
	Search     string
	ActiveOnly bool
	Offset     int
	Limit      int // ≤ 0 means AnnouncementPageSize
}

// AnnouncementStore keeps a tenant's announcements. A row of another tenant is not
// found (ErrNotFound).
type AnnouncementStore interface {
	// List returns one page, the number the query matches in all, and whether more follow.
	List(ctx context.Context, companyID ID, q AnnouncementQuery) (page []Announcement, count int, hasMore bool, err error)
	Get(ctx context.Context, companyID, id ID) (Announcement, error)
	// Create and Update validate in with ValidateAnnouncement. Update answers the
	// announcement before the change too (its old attachment is the caller's to
	// remove).
	Create(ctx context.Context, companyID ID, in AnnouncementInput) (Announcement, error)
	Update(ctx context.Context, companyID, id ID, in AnnouncementInput) (before, after Announcement, err error)
	Delete(ctx context.Context, companyID, id ID) error
}
