package engine

import (
	"context"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TicketQueries reads the ticket and message read models (the ticket manager, the chat
// screen, the badges and the notification bell). persistence/readmodel implements it
// on both SQL dialects; the read models trail the journal, so a handler that has just
// appended waits for its position (projection Runner.WaitFor) before reading.
//
// Tenancy: every method reads only the rows of one company — the principal's, or the
// companyID given. Another tenant's ticket answers ErrNoTicketFound, exactly like a
// ticket that does not exist or was deleted. Deleted tickets are never listed.
//
// Errors are *Error values for what a client may see (ErrValidation with field
// messages, ErrNoPermission for an invalid principal, ErrNoTicketFound) and wrapped
// plain errors for database failures.
type TicketQueries interface {
	// ListTickets answers GET /tickets: one page of the tickets q selects among those
	// p may see (see TicketQuery for the filters and the visibility rules), newest
	// update first.
	ListTickets(ctx context.Context, p Principal, q TicketQuery) (TicketPage, error)
	// GetTicket answers GET /tickets/{id}: the ticket with its contact, user, queue and
	// tags. Reading is scoped by tenant only: the closed tab and search show every
	// ticket of the tenant to every profile (spec section 6), so any member of staff
	// may open one (acting on it is AuthorizeTicket's business).
	GetTicket(ctx context.Context, companyID, id ID) (Ticket, error)
	// ListMessages answers GET /messages/{ticketId}: MessagePageSize messages per
	// page, page 1 being the newest; within a page messages run oldest to newest, so
	// the chat screen prepends each older page above what it shows. Whispers are
	// included (staff-only notes, media type whisper). Deleted messages come back
	// with IsDeleted true and their body kept (audit; the web app styles them as
	// deleted). Quoted messages carry id, body, fromMe and the name of their author
	// (the contact for a customer's message, the attendant for ours).
	ListMessages(ctx context.Context, companyID, ticketID ID, q MessageQuery) (MessagePage, error)
	// AllMessages answers GET /allmessages/{ticketId}: the whole conversation, oldest
	// first, shaped as ListMessages shapes it.
	AllMessages(ctx context.Context, companyID, ticketID ID) ([]Message, error)
	// CountsByStatus gives the two badges of the open tab under the same filters and
	// visibility as ListTickets (q's Status, PageNumber, Cursor and SearchParam are
	// ignored): Open is the "assigned" sub-tab (for showAll-less views, the tickets
	// open with p), Pending the "pending" sub-tab.
	CountsByStatus(ctx context.Context, p Principal, q TicketQuery) (TicketCounts, error)
	// UnreadTickets feeds the notification bell: the tickets with unread messages that
	// p works — open with p, or pending in one of p's queues or in none (any queue
	// for profiles with tickets-manager:showall), and those p is a guest of (open or
	// pending, as ListsTicket lists them) — newest first, at most
	// UnreadTicketsLimit of them.
	UnreadTickets(ctx context.Context, p Principal) ([]Ticket, error)
}

// MessageLocator finds the ticket a message belongs to: DELETE /messages/{id} names
// the message alone. persistence/readmodel's Queries is meant to implement it beside
// TicketQueries (the REST API finds it by type assertion on its TicketQueries).
// Another tenant's message and an unknown one answer ErrNoMessageFound.
type MessageLocator interface {
	MessageTicket(ctx context.Context, companyID, messageID ID) (ticketID ID, err error)
}

// Sizes and limits of the read-model queries.
const (
	// TicketPageSize is the number of tickets per page of GET /tickets.
	TicketPageSize = 40
	// MessagePageSize is the number of messages per page of GET /messages/{ticketId}.
	MessagePageSize = 20
	// MaxTicketPageNumber bounds pageNumber when no cursor is given: such pages are
	// read with OFFSET, whose cost grows with the page, so deep pages need the cursor
	// (NextCursor) the previous page returned. 250 pages are 10,000 tickets.
	MaxTicketPageNumber = 250
	// MaxMessagePageNumber bounds pageNumber of GET /messages without a cursor
	// (20,000 messages back).
	MaxMessagePageNumber = 1000
	// TicketCountCap: a count that cannot come from the per-status counters (it
	// involves tags, a date, unread messages or a search) is counted up to this many
	// tickets; a larger result answers Count = TicketCountCap and CountCapped true
	// (the web app shows "1000+"). On PostgreSQL the count is not run when the
	// planner's statistics expect at least this many (nor for a word search common
	// enough to be read by walking the list): Count is then the cap, CountCapped, an
	// estimate. Searches that match few tickets are counted exactly.
	TicketCountCap = 1000
	// UnreadTicketsLimit bounds UnreadTickets.
	UnreadTicketsLimit = 100
	// MaxTicketFilterIDs bounds each of TagIDs, UserIDs and QueueIDs.
	MaxTicketFilterIDs = 100
	// MaxSearchParamRunes: a longer searchParam matches nothing (no stored name,
	// number, protocol or word is that long).
	MaxSearchParamRunes = 256
	// MaxSearchWords bounds the words of a word search; later words are ignored.
	MaxSearchWords = 8
	// MaxWordRunes: longer runs of letters and digits (hashes, base64) are not
	// indexed as words, and a searched word that long matches nothing.
	MaxWordRunes = 64
)

// TicketQuery holds the filters of GET /tickets (spec section 7). Zero values mean
// "no filter".
//
// Visibility — which tickets of the tenant p may see — follows the whaticket family's
// tabs, tightened by spec section 6 and consistent with AuthorizeTicket:
//
//   - Closed tab (Status closed) and any search (SearchParam not empty): every ticket
//     of the tenant, for every profile.
//   - ShowAll is honoured only for profiles with tickets-manager:showall (superv and
//     upward); for the others it is ignored, not refused, because the web app
//     remembers the toggle in local storage across a change of profile. Honoured,
//     it shows every open and pending ticket of the tenant.
//   - Otherwise the open tab (Status open) shows the tickets open with p (assigned to
//     p), and the pending tab shows the pending tickets in p's queues or in no queue
//     — for showall profiles, every pending ticket. Tickets with no queue wait for
//     anybody (AuthorizeTicket lets every profile act on them), so they are never
//     hidden by queue.
//   - Status "" (all statuses) is the union of the three rules above.
//
// Filters narrow what is visible, never widen it:
//
//   - QueueIDs (the queue checkboxes): tickets in one of those queues. As in the
//     whaticket family, tickets with no queue and tickets assigned to p always pass
//     this filter, so a ticket transferred to p into someone else's queue stays on p's
//     open tab.
//   - UserIDs (the attendant filter): tickets assigned to one of those users.
//   - TagIDs: tickets that carry every one of those tags.
//   - Date ("YYYY-MM-DD", or "DD/MM/YYYY"): tickets created on that day in Cuiabá time
//     (QueueTimeZone) — the day a conversation started, which does not move as it
//     goes on.
//   - WithUnreadMessages: tickets with unread messages.
//   - SearchParam: see ParseTicketSearch.
//
// Paging: pages are ordered by updatedAt descending, then id descending. Cursor (the
// NextCursor of the previous page) continues exactly after the previous page's last
// ticket, at the cost of the first page at any depth, and tickets that arrive or move
// to the top meanwhile neither repeat nor hide the ones after the cursor. Without a
// cursor, PageNumber (1-based; 0 means 1) skips (PageNumber-1)*TicketPageSize
// tickets, up to MaxTicketPageNumber.
type TicketQuery struct {
	SearchParam        string
	TagIDs             []ID
	UserIDs            []ID
	Status             string // "", StatusOpen, StatusPending or StatusClosed
	Date               string
	ShowAll            bool
	QueueIDs           []ID
	WithUnreadMessages bool
	PageNumber         int
	Cursor             string
	// Location is the tenant's zone the Date filter and the d: search read days in;
	// nil is the read model's default (QueueTimeZone).
	Location *time.Location
}

// Validate checks the query's shape: the status, the date, the id lists (positive, at
// most MaxTicketFilterIDs each) and the page number (0 to MaxTicketPageNumber).
// SearchParam is never invalid: a malformed search matches nothing. The cursor is
// checked by the implementation that issued it.
func (q TicketQuery) Validate() error {
	f := fieldErrors{}
	switch q.Status {
	case "", StatusOpen, StatusPending, StatusClosed:
	default:
		f.add("status", MsgInvalidValue)
	}
	if q.Date != "" {
		if _, ok := ParseTicketDate(q.Date); !ok {
			f.add("date", MsgInvalidValue)
		}
	}
	for field, ids := range map[string][]ID{"tags": q.TagIDs, "users": q.UserIDs, "queueIds": q.QueueIDs} {
		if len(ids) > MaxTicketFilterIDs {
			f.add(field, MsgInvalidValue)
		}
		for _, id := range ids {
			if id <= 0 {
				f.add(field, MsgInvalidValue)
			}
		}
	}
	if q.PageNumber < 0 || (q.PageNumber > MaxTicketPageNumber && q.Cursor == "") {
		f.add("pageNumber", MsgInvalidValue)
	}
	return f.err()
}

// TicketPage is the answer of GET /tickets: {tickets, count, hasMore} plus the cursor
// of the next page. Count is the number of tickets the query selects in all; with
// CountCapped it is a lower bound or an estimate (see TicketCountCap). Each ticket carries contact (id, name, number, email,
// profilePicUrl, displayPic), user {id, name}, queue {id, name, color} and tags
// [{id, name, color}].
type TicketPage struct {
	Tickets     []Ticket `json:"tickets"`
	Count       int      `json:"count"`
	CountCapped bool     `json:"countCapped,omitempty"`
	HasMore     bool     `json:"hasMore"`
	NextCursor  string   `json:"nextCursor,omitempty"`
}

// TicketCounts are the badges of the open tab.
type TicketCounts struct {
	Open    int  `json:"open"`
	Pending int  `json:"pending"`
	Capped  bool `json:"capped,omitempty"` // a count reached TicketCountCap
}

// MessageQuery selects a page of a ticket's messages: Cursor (the NextCursor of the
// previous, newer page) or else PageNumber (1-based, 0 means 1; page 1 is the newest,
// at most MaxMessagePageNumber).
type MessageQuery struct {
	PageNumber int
	Cursor     string
}

// MessagePage is the answer of GET /messages/{ticketId}. HasMore says that older
// messages exist; NextCursor fetches them.
type MessagePage struct {
	Messages   []Message `json:"messages"`
	HasMore    bool      `json:"hasMore"`
	NextCursor string    `json:"nextCursor,omitempty"`
}

// Search kinds of ParseTicketSearch.
type SearchKind string

const (
	SearchNone     SearchKind = ""         // empty searchParam: no search
	SearchContact  SearchKind = "contact"  // contact name, number or e-mail
	SearchProtocol SearchKind = "protocol" // p:
	SearchPhone    SearchKind = "phone"    // t:
	SearchDate     SearchKind = "date"     // d:
	SearchWord     SearchKind = "word"     // m:
	SearchNothing  SearchKind = "nothing"  // malformed or oversize: matches no ticket
)

// TicketSearch is a parsed searchParam.
type TicketSearch struct {
	Kind SearchKind
	// Text is, for SearchContact, the folded text (FoldSearchText) or, when the term
	// reads as a phone number, its digits; for SearchPhone the digits; for
	// SearchProtocol the protocol prefix as typed.
	Text string
	// Words are the folded words of a SearchWord, at most MaxSearchWords. A plain
	// SearchContact carries them too: like whaticket's search box, plain text also
	// finds the tickets whose messages hold every word.
	Words []string
	// Day is the civil date of a SearchDate, at 00:00 UTC (read it with Date()).
	Day time.Time
}

// Search prefixes. A prefix is one letter and a colon at the start of the term, in
// either case; whatever follows it is the value (spaces around it are ignored).
//
//	joão silva       contact name, number or e-mail contains the text (accents and
//	                 case ignored; "(65) 9999-0000" is read as digits), or, for
//	                 text, the ticket's messages contain every word (as m: below) —
//	                 whaticket's search box finds both
//	m:boleto vencido the ticket's messages contain every word, not necessarily in the
//	                 same message (whole words, the last one also as a prefix when it
//	                 has 3 or more characters: "m:bol" finds "boleto"); accents and
//	                 case ignored; whispers are searched, deleted messages are not
//	p:20261122-0000  the protocol starts with the value
//	t:65 99999       the contact's number contains the digits of the value
//	d:22/11/2026     the ticket was created that day, Cuiabá time (also 2026-11-22)
//
// Any other "x:" is plain text, so a name with a colon is still found. A prefix with
// an empty or malformed value (a bad date, a phone without digits, a protocol with
// characters protocols never have, no word) matches nothing rather than failing,
// because the search box queries while the attendant types.
const (
	SearchPrefixWord     = "m:"
	SearchPrefixProtocol = "p:"
	SearchPrefixPhone    = "t:"
	SearchPrefixDate     = "d:"
)

// ParseTicketSearch reads a searchParam (see the Search prefixes).
func ParseTicketSearch(raw string) TicketSearch {
	if len(raw) > 4*MaxSearchParamRunes || utf8.RuneCountInString(raw) > MaxSearchParamRunes {
		return TicketSearch{Kind: SearchNothing}
	}
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return TicketSearch{Kind: SearchNone}
	}
	if len(raw) >= 2 && raw[1] == ':' {
		value := strings.TrimSpace(raw[2:])
		switch strings.ToLower(raw[:2]) {
		case SearchPrefixWord:
			words := SearchWords(value)
			if len(words) == 0 {
				return TicketSearch{Kind: SearchNothing}
			}
			if len(words) > MaxSearchWords {
				words = words[:MaxSearchWords]
			}
			return TicketSearch{Kind: SearchWord, Words: words}
		case SearchPrefixProtocol:
			if value == "" || !isProtocolPrefix(value) {
				return TicketSearch{Kind: SearchNothing}
			}
			return TicketSearch{Kind: SearchProtocol, Text: value}
		case SearchPrefixPhone:
			digits := onlyDigits(value)
			if digits == "" {
				return TicketSearch{Kind: SearchNothing}
			}
			return TicketSearch{Kind: SearchPhone, Text: digits}
		case SearchPrefixDate:
			day, ok := ParseTicketDate(value)
			if !ok {
				return TicketSearch{Kind: SearchNothing}
			}
			return TicketSearch{Kind: SearchDate, Day: day}
		}
	}
	if digits, ok := NormalizePhone(raw); ok && digits != "" {
		return TicketSearch{Kind: SearchContact, Text: digits}
	}
	words := SearchWords(raw)
	if len(words) > MaxSearchWords {
		words = words[:MaxSearchWords]
	}
	if len(words) == 0 {
		words = nil
	}
	folded := FoldSearchText(raw)
	if folded == "" {
		return TicketSearch{Kind: SearchNothing}
	}
	return TicketSearch{Kind: SearchContact, Text: folded, Words: words}
}

// Date gives the civil date of a SearchDate.
func (s TicketSearch) Date() (year int, month time.Month, day int) { return s.Day.Date() }

// ParseTicketDate reads a calendar date written "YYYY-MM-DD" (the API's form) or
// "DD/MM/YYYY" (how the web app shows dates), answering it at 00:00 UTC. Years run
// from 1900 to 9999; impossible dates (2026-02-30) are refused. An RFC 3339 instant
// (whaticket's client sends new Date().toISOString()) is accepted too and gives its
// UTC date; TicketDateIn gives its date in the tenant's zone.
func ParseTicketDate(s string) (time.Time, bool) {
	return TicketDateIn(s, time.UTC)
}

// TicketDateIn is ParseTicketDate with the zone an RFC 3339 instant is read in: the
// answer is the civil date (at 00:00 UTC) the instant falls on in loc.
func TicketDateIn(s string, loc *time.Location) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02", "02/01/2006"} {
		if t, err := time.Parse(layout, s); err == nil && t.Year() >= 1900 {
			return t, true
		}
	}
	if len(s) > 40 {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		y, m, d := t.In(loc).Date()
		if y >= 1900 && y <= 9999 {
			return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), true
		}
	}
	return time.Time{}, false
}

func isProtocolPrefix(s string) bool {
	if len(s) > MaxWordRunes {
		return false
	}
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '-', r == '/', r == '.', r == '_':
		default:
			return false
		}
	}
	return true
}

func onlyDigits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// FoldSearchText is the form text is searched in: compatibility-decomposed, combining
// marks dropped, lower case, control characters and runs of white space turned into
// one space, trimmed ('João  DA Silva' → 'joao da silva'). It is the folding of the
// contact store's search column, so a folded term matches it. The result is valid
// UTF-8 without NUL, whatever the input.
func FoldSearchText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range norm.NFKD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// SearchWords splits text into the words the message index holds and word searches
// look for: the folded text's runs of letters and digits, each at most MaxWordRunes
// long (longer runs are dropped), in order, repeats removed. "Olá, JOÃO! Boleto nº
// 42-B" gives [ola joao boleto no 42 b].
func SearchWords(text string) []string {
	folded := FoldSearchText(text)
	var out []string
	seen := map[string]bool{}
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := folded[start:end]
		start = -1
		if utf8.RuneCountInString(w) > MaxWordRunes || seen[w] {
			return
		}
		seen[w] = true
		out = append(out, w)
	}
	for i, r := range folded {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(folded))
	return out
}
