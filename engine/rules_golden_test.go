package engine_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"atende/engine"
	"atende/engine/visibilitytest"
)

// rulesDir holds the golden files the web's twins of the Go rules are checked
// against (web/src/app/rules.test.ts reads them).
var rulesDir = filepath.Join("..", "web", "src", "app", "golden")

type goldenPrincipal struct {
	UserID    engine.ID   `json:"userId"`
	CompanyID engine.ID   `json:"companyId"`
	Profile   string      `json:"profile"`
	QueueIDs  []engine.ID `json:"queueIds"`
}

type goldenTicket struct {
	ID        engine.ID `json:"id"`
	CompanyID engine.ID `json:"companyId"`
	Status    string    `json:"status"`
	QueueID   engine.ID `json:"queueId"`
	UserID    engine.ID `json:"userId"`
	// Guests are the users who accepted an invitation to the ticket.
	Guests []engine.ID `json:"guests,omitempty"`
}

// TestVisibilityGolden writes engine.SeesTicket over the generated principals (plus
// an unknown profile) and tickets (plus one of another tenant): sees[i][j] is "1"
// when principal i sees ticket j.
func TestVisibilityGolden(t *testing.T) {
	principals := append(visibilitytest.Principals(1),
		engine.Principal{UserID: 1, CompanyID: 1, Profile: "boss", QueueIDs: []engine.ID{10}})
	tickets := append(visibilitytest.Tickets(),
		engine.Ticket{ID: 1000, CompanyID: 2, Status: engine.StatusClosed},
		engine.Ticket{ID: 1001, CompanyID: 2, Status: engine.StatusPending})
	out := struct {
		Principals []goldenPrincipal `json:"principals"`
		Tickets    []goldenTicket    `json:"tickets"`
		Sees       []string          `json:"sees"`
	}{Principals: []goldenPrincipal{}, Tickets: []goldenTicket{}, Sees: []string{}}
	for _, tk := range tickets {
		out.Tickets = append(out.Tickets, goldenTicket{tk.ID, tk.CompanyID, tk.Status, tk.QueueID, tk.UserID, tk.Guests})
	}
	seen, hidden := 0, 0
	for _, p := range principals {
		queues := p.QueueIDs
		if queues == nil {
			queues = []engine.ID{}
		}
		out.Principals = append(out.Principals, goldenPrincipal{p.UserID, p.CompanyID, p.Profile, queues})
		var row strings.Builder
		for _, tk := range tickets {
			if engine.SeesTicket(p, tk) {
				row.WriteByte('1')
				seen++
			} else {
				row.WriteByte('0')
				hidden++
			}
		}
		out.Sees = append(out.Sees, row.String())
	}
	if seen == 0 || hidden == 0 {
		t.Fatalf("the cases do not tell seeing from not seeing: %d seen, %d hidden", seen, hidden)
	}
	engine.CheckGolden(t, filepath.Join(rulesDir, "visibility.json"), engine.IndentJSON(t, out))
}

// TestTicketAgeGolden writes the age badge (engine.TicketAge, TicketAgeColor,
// AgeParts) for ages around every threshold, long ages and a last update in the
// future (clock skew).
func TestTicketAgeGolden(t *testing.T) {
	type ageCase struct {
		Seconds int64           `json:"seconds"` // now minus the last update
		Color   engine.AgeColor `json:"color"`
		Days    int             `json:"days"`
		Hours   int             `json:"hours"`
		Minutes int             `json:"minutes"`
	}
	updated := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
	cases := []ageCase{}
	for _, s := range []int64{-3600, -1, 0, 1, 59, 60, 119, 120, 179, 180, 181, 239, 240, 299, 300, 359, 360, 361,
		3599, 3600, 3661, 86399, 86400, 90061, 2*86400 + 23*3600 + 59*60 + 59, 400 * 86400} {
		age := engine.TicketAge(updated, updated.Add(time.Duration(s)*time.Second))
		d, h, m := engine.AgeParts(age)
		cases = append(cases, ageCase{s, engine.TicketAgeColor(age), d, h, m})
	}
	engine.CheckGolden(t, filepath.Join(rulesDir, "ticketAge.json"), engine.IndentJSON(t, cases))
}

// TestSatisfactionGolden writes engine.SatisfactionScore for every sum of up to 12
// answers and for large counts at the 7 and 9 thresholds, where a floating-point
// comparison could fall on the wrong side.
func TestSatisfactionGolden(t *testing.T) {
	type satCase struct {
		TotalSum   int     `json:"totalsum"`
		TotalCount int     `json:"totalcount"`
		Score      float64 `json:"score"`
		Icon       int     `json:"icon"`
	}
	cases := []satCase{}
	add := func(sum, count int) {
		score, icon := engine.SatisfactionScore(engine.AppraisalData{TotalSum: sum, TotalCount: count})
		cases = append(cases, satCase{sum, count, score, icon})
	}
	add(0, 0)
	add(5, 0)
	add(3, -1)
	for count := 1; count <= 12; count++ {
		for sum := 0; sum <= 3*count; sum++ {
			add(sum, count)
		}
	}
	for _, count := range []int{10, 30, 100, 1000, 3000, 99999} {
		for _, tenths := range []int{7, 9} {
			exact := 3 * count * tenths // 10 × the sum at which the score is exactly tenths
			if exact%10 == 0 {
				add(exact/10-1, count)
				add(exact/10, count)
				add(exact/10+1, count)
			}
		}
	}
	engine.CheckGolden(t, filepath.Join(rulesDir, "satisfaction.json"), engine.IndentJSON(t, cases))
}

// TestListsGolden writes engine.ListsTicket outside a search, for users 1 of every
// profile in queue 10 over every generated query and ticket: lists[i] is the row of
// query i of principal i / len(queries), "1" where the list shows ticket j. The web's
// ticket-list machine (belongs) is checked against it.
func TestListsGolden(t *testing.T) {
	type goldenQuery struct {
		Status             string      `json:"status"`
		ShowAll            bool        `json:"showAll"`
		QueueIDs           []engine.ID `json:"queueIds"`
		UserIDs            []engine.ID `json:"users"`
		WithUnreadMessages bool        `json:"withUnreadMessages"`
	}
	type goldenListTicket struct {
		goldenTicket
		UnreadMessages int `json:"unreadMessages"`
	}
	var principals []engine.Principal
	for _, p := range visibilitytest.Principals(1) {
		if p.UserID == 1 && len(p.QueueIDs) == 1 {
			principals = append(principals, p)
		}
	}
	queries, tickets := visibilitytest.Queries(), visibilitytest.Tickets()
	out := struct {
		Principals []goldenPrincipal  `json:"principals"`
		Queries    []goldenQuery      `json:"queries"`
		Tickets    []goldenListTicket `json:"tickets"`
		Lists      []string           `json:"lists"`
	}{}
	nonNil := func(ids []engine.ID) []engine.ID {
		if ids == nil {
			return []engine.ID{}
		}
		return ids
	}
	for _, q := range queries {
		out.Queries = append(out.Queries, goldenQuery{q.Status, q.ShowAll, nonNil(q.QueueIDs), nonNil(q.UserIDs), q.WithUnreadMessages})
	}
	for _, tk := range tickets {
		out.Tickets = append(out.Tickets, goldenListTicket{goldenTicket{tk.ID, tk.CompanyID, tk.Status, tk.QueueID, tk.UserID, tk.Guests}, tk.UnreadMessages})
	}
	listed := 0
	for _, p := range principals {
		out.Principals = append(out.Principals, goldenPrincipal{p.UserID, p.CompanyID, p.Profile, nonNil(p.QueueIDs)})
		for _, q := range queries {
			var row strings.Builder
			for _, tk := range tickets {
				if engine.ListsTicket(p, q, false, tk) {
					row.WriteByte('1')
					listed++
				} else {
					row.WriteByte('0')
				}
			}
			out.Lists = append(out.Lists, row.String())
		}
	}
	if len(principals) != len(engine.Profiles()) || listed == 0 {
		t.Fatalf("%d principals, %d listed: the cases changed shape", len(principals), listed)
	}
	engine.CheckGolden(t, filepath.Join(rulesDir, "lists.json"), engine.IndentJSON(t, out))
}
