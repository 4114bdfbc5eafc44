package engine

import (
	"context"
	"time"
)

// Stores of a tenant's reference data: contacts, queues, tags and quick answers.
// persistence/store implements them on both SQL dialects. Every method that takes a
// companyID reads and writes only that tenant's rows: a row of another tenant is "not
// found" (ErrNoContactFound, ErrNoQueueFound, ErrNoTagFound, ErrNoQuickAnswerFound).
//
// Stores validate their input with the Validate* functions of validate_forms.go and
// answer *Error values for what a client may see (ErrValidation with field messages,
// ErrDuplicatedContact, ErrQueueColorAlreadyExists, ErrInvalidTransition) and wrapped
// plain errors for everything else.

// MsgAlreadyExists is the field message of a rename onto a name another row of the
// tenant already has (a tag).
const MsgAlreadyExists = "Already exists"

// ContactPageSize is the number of contacts GET /contacts answers per page.
const ContactPageSize = 40

// QuickAnswerPageSize is the number of quick answers GET /quickAnswers answers per page.
const QuickAnswerPageSize = 20

// ContactQuery selects a page of a tenant's contacts, ordered by folded name
// (lower case, accents removed) then id.
//
// Search matches a contact whose folded name, digits of number, or e-mail contains
// the folded term ('joao' and 'JOÃO' both find 'João Silva'; '(65) 9999' finds
// 5565999990000). A term longer than 256 characters matches nothing.
//
// Paging is by keyset when Cursor is set (the NextCursor of the previous page): the
// page costs the same at any depth. Without a cursor, Offset rows are skipped, which
// costs in proportion to Offset; the spec's pageNumber maps to it.
//
// Counting every match costs a scan of them (a quarter of a second for a million
// contacts on PostgreSQL); SkipCount leaves ContactPage.Count at -1 instead, for the
// pages after the first of a cursor walk, whose client already has the count.
type ContactQuery struct {
	Search    string
	Cursor    string // opaque; "" for the first page or when paging by Offset
	Offset    int
	Limit     int // page size; ≤ 0 means ContactPageSize
	SkipCount bool
}

// ContactPage is one page of contacts. Count is the number of contacts the search
// matches in all (-1 when the query skipped counting); NextCursor continues after the
// last contact of this page ("" when there is no more).
type ContactPage struct {
	Contacts   []Contact
	Count      int
	HasMore    bool
	NextCursor string
}

// ContactStore keeps a tenant's contacts with their extra info and sales
// opportunities (in list order). Numbers are unique per tenant (empty numbers —
// Facebook, Instagram contacts — are not compared).
type ContactStore interface {
	// List answers ErrValidation{cursor} for a cursor it did not issue.
	List(ctx context.Context, companyID ID, q ContactQuery) (ContactPage, error)
	// Get answers ErrNoContactFound when id is not a contact of companyID.
	Get(ctx context.Context, companyID, id ID) (Contact, error)
	// Create validates in (ValidateContact) and stores a contact; a number the tenant
	// already has answers ErrDuplicatedContact. Ids of extra info and opportunities in
	// are ignored.
	Create(ctx context.Context, companyID ID, in ContactInput) (Contact, error)
	// Update validates in and replaces name, number and e-mail. A nil ExtraInfo or
	// SalesOpps leaves that list as it is; a non-nil one replaces it: an item that
	// comes back with the id of one of the contact's items keeps that id (and row),
	// items without an id (or with an id that is not the contact's) are added, items
	// left out are removed. A closing status once set is final: Update keeps the stored
	// one.
	Update(ctx context.Context, companyID, id ID, in ContactInput) (Contact, error)
	// Delete removes the contact with its extra info and opportunities.
	Delete(ctx context.Context, companyID, id ID) error
	// CloseSalesOpp marks an open opportunity won (OppWon) or lost (OppLost) and
	// returns its contact. contactID 0 accepts the opportunity of any contact of the
	// tenant. An unknown opportunity answers ErrNoContactFound; one already marked
	// answers ErrInvalidTransition; a status other than 0 or 1 ErrValidation.
	CloseSalesOpp(ctx context.Context, companyID, contactID, oppID ID, status int) (Contact, error)
	// FindOrCreateByNumber returns the tenant's contact with number, creating it (named
	// name, or the number when name is empty) when there is none; created tells which.
	// It is safe to call concurrently for the same number: exactly one row results.
	// Channels call it with the provider's number or id, taken as given (trimmed).
	FindOrCreateByNumber(ctx context.Context, companyID ID, number, name string) (c Contact, created bool, err error)
	// FindByNumber returns the tenant's contact with exactly that number, or
	// ErrNoContactFound.
	FindByNumber(ctx context.Context, companyID ID, number string) (Contact, error)
	// AddAppraisal adds one satisfaction answer (1 to 3) to the contact's sums.
	AddAppraisal(ctx context.Context, companyID, contactID ID, score int) error
}

// QueueStore keeps a tenant's queues, ordered by name then id. Colours are unique per
// tenant (ErrQueueColorAlreadyExists); names need not be.
type QueueStore interface {
	List(ctx context.Context, companyID ID) ([]Queue, error)
	// Get answers ErrNoQueueFound when id is not a queue of companyID.
	Get(ctx context.Context, companyID, id ID) (Queue, error)
	// Create and Update validate in with ValidateQueue, setting GreetingRequired
	// themselves when the tenant has (or will have) more than one queue.
	Create(ctx context.Context, companyID ID, in QueueInput) (Queue, error)
	Update(ctx context.Context, companyID, id ID, in QueueInput) (Queue, error)
	Delete(ctx context.Context, companyID, id ID) error
}

// TagStore keeps a tenant's tags, ordered by folded name then id. Names are unique per
// tenant ignoring case and accents.
type TagStore interface {
	// List returns the tags whose folded name contains the folded search ("" for all).
	List(ctx context.Context, companyID ID, search string) ([]Tag, error)
	Get(ctx context.Context, companyID, id ID) (Tag, error)
	// Create validates in (ValidateTag) and stores a tag, or returns the tenant's tag
	// of the same name with created false (its colour unchanged). An empty colour gets
	// one of a fixed palette, chosen by name.
	Create(ctx context.Context, companyID ID, in TagInput) (t Tag, created bool, err error)
	// Update renames and recolours; a name another tag has answers
	// ErrValidation{name: MsgAlreadyExists}. An empty colour keeps the stored one.
	Update(ctx context.Context, companyID, id ID, in TagInput) (Tag, error)
	Delete(ctx context.Context, companyID, id ID) error
}

// QuickAnswerQuery selects a page of quick answers ordered by shortcut then id. Search
// matches the folded shortcut or message (a leading '/' of the term is dropped).
type QuickAnswerQuery struct {
	Search string
	Offset int
	Limit  int // ≤ 0 means QuickAnswerPageSize
}

// QuickAnswerStore keeps a tenant's quick answers.
type QuickAnswerStore interface {
	// List returns one page, the number the search matches in all, and whether more follow.
	List(ctx context.Context, companyID ID, q QuickAnswerQuery) (page []QuickAnswer, count int, hasMore bool, err error)
	Get(ctx context.Context, companyID, id ID) (QuickAnswer, error)
	Create(ctx context.Context, companyID ID, in QuickAnswerInput) (QuickAnswer, error)
	Update(ctx context.Context, companyID, id ID, in QuickAnswerInput) (QuickAnswer, error)
	Delete(ctx context.Context, companyID, id ID) error
}

// QueueTimeZone is the zone queue working hours are read in (spec section 9: the
// product keeps Cuiabá time).
const QueueTimeZone = "America/Cuiaba"

// QueueOpenAt reports whether q is within its working hours at local wall-clock time
// now (already in QueueTimeZone). A queue without hours (startWork or endWork empty)
// is always open. The window includes startWork and excludes endWork; when endWork is
// before startWork the window runs over midnight (22:00–06:00); equal ends mean open
// all day. Hours that do not parse count as no hours.
func QueueOpenAt(q Queue, now time.Time) bool {
	if q.StartWork == "" || q.EndWork == "" || !isHHMM(q.StartWork) || !isHHMM(q.EndWork) {
		return true
	}
	minutes := func(s string) int {
		return (int(s[0]-'0')*10+int(s[1]-'0'))*60 + int(s[3]-'0')*10 + int(s[4]-'0')
	}
	start, end := minutes(q.StartWork), minutes(q.EndWork)
	m := now.Hour()*60 + now.Minute()
	switch {
	case start == end:
		return true
	case start < end:
		return m >= start && m < end
	default:
		return m >= start || m < end
	}
}
