package readmodel

import (
	"strings"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// filters are the conditions of a ticket query that are not scope: tags, the date,
// unread messages and the search. They are appended to every branch.
type filters struct {
	tags    []engine.ID
	day     *[2]time.Time // [start, end) of the created-on day, from the date param
	unread  bool
	search  engine.TicketSearch
	company engine.ID
	loc     *time.Location // the tenant's zone, in which days are read
	// driver, on PostgreSQL, is the small set the page is read from (see
	// tickets_driven.go); nil walks the list.
	driver *driver
	// wordWalk: a common word is searched by walking the list; its count is not read.
	wordWalk bool
	// counting: the condition is for a count, which reads every match. Its tag test
	// then names the tenant, which lets the planner read the tag's tickets from
	// ticket_tags_tag (company_id, tag_id, ticket_id) and join: without it, counting
	// a tag over four queues read ticket_tags whole once per queue (11,680 buffers at
	// 1M tickets, 664 with it). A page's walk stops after a page, where probing
	// ticket_tags' key per ticket is cheaper; with the tenant named the planner
	// joined there too and read 48k rows instead of 9k.
	counting bool
	// contacts, when not nil, are the contacts a plain search matched (planSearch):
	// the walk tests contact_id against them instead of searching contacts again.
	contacts []engine.ID
}

// dimensional reports whether the query is scope only, so that its count can be read
// from ticket_counts.
func (f filters) dimensional() bool {
	return len(f.tags) == 0 && f.day == nil && !f.unread && f.search.Kind == engine.SearchNone
}

// sql is the filters as a condition over alias t ("" for none).
func (f filters) sql(a *args, d db.Dialect, loc *time.Location) string {
	var conj []string
	for _, tag := range unique(f.tags) {
		cond := "tt.ticket_id = t.id AND tt.tag_id = " + a.add(tag)
		if f.counting {
			cond = "tt.company_id = " + a.add(f.company) + " AND " + cond
		}
		conj = append(conj, "EXISTS (SELECT 1 FROM ticket_tags tt WHERE "+cond+")")
	}
	if f.day != nil {
		conj = append(conj, "t.created_at >= "+a.add(tsArg(d, f.day[0]))+" AND t.created_at < "+a.add(tsArg(d, f.day[1])))
	}
	if f.unread {
		conj = append(conj, "t.unread_messages > 0")
	}
	if !f.driver.covers() {
		if s := searchSQL(a, d, loc, f.company, f.search, f.contacts); s != "" {
			conj = append(conj, s)
		}
	}
	return strings.Join(conj, " AND ")
}

// dayRange is the [start, end) of the civil date day (at 00:00 UTC) in loc.
func dayRange(day time.Time, loc *time.Location) [2]time.Time {
	y, m, d := day.Date()
	start := time.Date(y, m, d, 0, 0, 0, 0, loc)
	return [2]time.Time{start, time.Date(y, m, d+1, 0, 0, 0, 0, loc)}
}

// searchSQL is the condition of a parsed searchParam; contacts, when not nil, are the
// contacts a plain search matched, found already (PostgreSQL only).
func searchSQL(a *args, d db.Dialect, loc *time.Location, company engine.ID, s engine.TicketSearch, contacts []engine.ID) string {
	switch s.Kind {
	case engine.SearchContact:
		// contacts.search is name_norm, number and e-mail joined by U+001F (migration
		// 0151); on PostgreSQL a trigram index serves the LIKE. Plain text also finds
		// the tickets whose messages hold its words (whaticket's search box).
		// (Placeholders are added only for the parts the condition keeps: PostgreSQL
		// refuses a parameter no part of the query uses.)
		if len(s.Words) > 0 && contacts != nil {
			words := wordsCond(a, d, company, s.Words)
			if len(contacts) == 0 {
				return words
			}
			return "(t.contact_id = ANY(" + a.add(contacts) + ") OR " + words + ")"
		}
		contact := "t.contact_id IN (SELECT c.id FROM contacts c WHERE c.company_id = " + a.add(company) +
			" AND c.search LIKE " + a.add(likeContains(s.Text)) + ` ESCAPE '\')`
		if len(s.Words) == 0 {
			return contact
		}
		return "(" + contact + " OR " + wordsCond(a, d, company, s.Words) + ")"
	case engine.SearchPhone:
		pat := a.add(likeContains(s.Text))
		return "t.contact_id IN (SELECT c.id FROM contacts c WHERE c.company_id = " + a.add(company) +
			" AND c.search LIKE " + pat + ` ESCAPE '\' AND c.number LIKE ` + pat + ` ESCAPE '\')`
	case engine.SearchProtocol:
		// A bytewise range is a prefix match that both dialects serve from the index.
		// The prefix is ASCII (ParseTicketSearch), so its last byte can be raised.
		hi := s.Text[:len(s.Text)-1] + string(s.Text[len(s.Text)-1]+1)
		return "t.protocol <> '' AND t.protocol >= " + a.add(s.Text) + " AND t.protocol < " + a.add(hi)
	case engine.SearchDate:
		r := dayRange(s.Day, loc)
		return "t.created_at >= " + a.add(tsArg(d, r[0])) + " AND t.created_at < " + a.add(tsArg(d, r[1]))
	case engine.SearchWord:
		return wordsCond(a, d, company, s.Words)
	}
	return ""
}

// wordsCond is "every word occurs in ticket t's messages" (migration 0212): the word
// index on PostgreSQL, FTS5 on SQLite.
func wordsCond(a *args, d db.Dialect, company engine.ID, words []string) string {
	if d == db.Postgres {
		return wordsSQL(a, words)
	}
	c := a.add(company)
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = "SELECT m.ticket_id FROM messages_fts f JOIN messages m ON m.id = f.rowid WHERE messages_fts MATCH " +
			a.add(ftsTerm(w, i == len(words)-1)) + " AND m.company_id = " + c + " AND m.is_deleted = FALSE"
	}
	return "t.id IN (" + strings.Join(parts, " INTERSECT ") + ")"
}

// wordsSQL is, on PostgreSQL, "ticket t holds every word": one probe per word of the
// ticket's chunks of ticket_words.
func wordsSQL(a *args, words []string) string {
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = "EXISTS (SELECT 1 FROM ticket_words w WHERE w.ticket_id = t.id AND w.words @@ to_tsquery('simple', " +
			a.add(tsTerm(w, i == len(words)-1)) + "))"
	}
	return strings.Join(parts, " AND ")
}

// prefixMin is the length from which the last word of a word search also matches as
// a prefix ("bol" finds "boleto"); shorter prefixes would match most of the index.
const prefixMin = 3

// tsTerm is the PostgreSQL tsquery text of one word (letters and digits only, from
// engine.SearchWords): quoted, and a prefix query when it is the last word of the
// search.
func tsTerm(w string, last bool) string {
	if last && len([]rune(w)) >= prefixMin {
		return "'" + w + "':*"
	}
	return "'" + w + "'"
}

// ftsTerm is the FTS5 query of one word (letters and digits only): quoted, and a
// prefix query when it is the last word of the search.
func ftsTerm(w string, last bool) string {
	if last && len([]rune(w)) >= prefixMin {
		return `"` + w + `"*`
	}
	return `"` + w + `"`
}

// likeContains is the LIKE pattern (ESCAPE '\') of any text containing term.
func likeContains(term string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(term) + "%"
}
