package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"atende/persistence/importwhaticket"
)

// Side by side with whaticket-community: the workload shapes its figures were published
// for (cmd/benchreport prints them beside ours), on the shop BenchmarkFootprintAtVolume
// loaded and the server it started.
const (
	sideSamples         = 200 // timed requests per REST shape, after sideWarmUp untimed ones
	sideWarmUp          = 10
	sideSocketsPerUser  = 10 // × the shop's 20 attendants: 200 sockets
	sideUpdatesPerSec   = 20
	sideUpdatesDuration = 30 * time.Second
	sideLaterPage       = 26 // the page the keyset shape reads, after following 25 cursors
)

// sideWords are the words the search shape asks for in turn: words of the shop's
// messages (importwhaticket's phrases), common and rare.
var sideWords = []string{"pedido", "frete", "pix", "boleto", "camiseta", "rastreio", "azul", "prazo", "troca", "cartão"}

// sideBySide is the side-by-side phase of BenchmarkFootprintAtVolume. Each REST shape
// is timed sideSamples times, one request at a time, from request to the answer's
// last byte; metrics <shape>-p50-ms and <shape>-p95-ms. The attendant's requests are
// the web app's (features/tickets): its queues always in queueIds, pageNumber=1.
//
//   - open: an attendant's open tab, first page (status=open): the tickets they hold;
//   - open-queues: the admin's open tab filtered by three of the four queues
//     (status=open&showAll=true&queueIds=[…]): the tenant's open tickets in them;
//   - closed: the attendant's closed tab, first page (status=closed);
//   - later-page: page 26 of the same list, reached through the keyset cursor the API
//     gives (nextCursor), the cursor of page 25 asked again each time;
//   - search: the attendant's search box (searchParam=<word>&showAll=true, as the web
//     app's search results ask: the contacts' names, numbers and e-mails, and the
//     words of the messages), sideWords in turn; each word's p50 and count are logged;
//   - messages: the first page of messages of a ticket (GET /messages/{id}), 200
//     different closed tickets.
//
// Then sockets: sideSocketsPerUser Socket.IO v4 sockets for each attendant, connected
// as the web app connects (token at CONNECT, the open and pending lists and the
// notifications joined), while the admin hands sideUpdatesPerSec open tickets a second
// to another attendant of their queue (PUT /tickets/{id}, each ticket once) for
// sideUpdatesDuration. event-p50-ms and event-p99-ms are the time from the PUT's start
// to the "ticket" update's arrival, over every socket that sees the ticket (its
// queue's attendants: engine.SeesTicket), so the fan-out is smaller than a server that
// sends every update to every socket; deliveries/s says how many arrived a second, and
// missed-deliveries counts the expected ones that never came.
//
// The shop's tables have their statistics: the import analyses what it loaded
// (db.Analyze), which matters on the test machines' PostgreSQL, which runs without
// autovacuum.
//
// This process, the clients, is pinned to the last core (pinToLastCore) for the phase.
func sideBySide(b *testing.B, base string) {
	pinned, unpin := pinToLastCore()
	defer unpin()
	admin := login(b, base, importwhaticket.VolumeAdmin, importwhaticket.VolumePassword)
	staff := make([]*api, importwhaticket.VolumeAttendants)
	for i := range staff {
		staff[i] = login(b, base, fmt.Sprintf("atendente%d@volume.test", i+1), importwhaticket.VolumePassword)
	}
	attendant := staff[0]
	queues := map[int64]bool{}
	for _, a := range staff {
		for _, q := range a.queues {
			queues[q] = true
		}
	}
	ids := make([]int64, 0, len(queues))
	for q := range queues {
		ids = append(ids, q)
	}
	slices.Sort(ids)
	if len(ids) < 3 {
		b.Fatalf("the attendants are in %d queues, want the shop's 4", len(ids))
	}
	inQueues, _ := json.Marshal(ids[:3])
	own, _ := json.Marshal(attendant.queues)
	tab := func(kv ...string) url.Values { // the web app's list request of the attendant
		q := url.Values{"pageNumber": {"1"}, "queueIds": {string(own)}}
		for i := 0; i+1 < len(kv); i += 2 {
			q.Set(kv[i], kv[i+1])
		}
		return q
	}
	search := func(i int) string {
		return "/tickets?" + tab("searchParam", sideWords[i%len(sideWords)], "showAll", "true").Encode()
	}

	closed := tab("status", "closed")
	var closedIDs []int64
	cursor := ""
	for page := 1; page < sideLaterPage; page++ {
		p := listPage(attendant, closed, cursor)
		closedIDs = append(closedIDs, p.ids()...)
		if p.NextCursor == "" { // a small shop: its last page stands in
			b.Logf("the closed list ends at page %d: later-page reads page %d", page, page)
			break
		}
		cursor = p.NextCursor
	}
	later := tab("status", "closed", "cursor", cursor)
	later.Del("pageNumber")

	shapes := []struct {
		name string
		who  *api
		path func(i int) string
	}{
		{"open", attendant, fixed("/tickets?" + tab("status", "open").Encode())},
		{"open-queues", admin, fixed("/tickets?" + url.Values{"status": {"open"}, "pageNumber": {"1"}, "showAll": {"true"},
			"queueIds": {string(inQueues)}}.Encode())},
		{"closed", attendant, fixed("/tickets?" + closed.Encode())},
		{"later-page", attendant, fixed("/tickets?" + later.Encode())},
		{"search", attendant, search},
		{"messages", attendant, func(i int) string { return fmt.Sprintf("/messages/%d", closedIDs[i%len(closedIDs)]) }},
	}
	for _, s := range shapes {
		for i := range sideWarmUp {
			s.who.call("GET", s.path(i), nil, http.StatusOK, nil)
		}
		lat := make([]time.Duration, sideSamples)
		for i := range lat {
			at := time.Now()
			s.who.call("GET", s.path(i), nil, http.StatusOK, nil)
			lat[i] = time.Since(at)
		}
		b.ReportMetric(pct(lat, 50), s.name+"-p50-ms")
		b.ReportMetric(pct(lat, 95), s.name+"-p95-ms")
		if s.name == "search" {
			logWords(b, attendant, search, lat)
		}
	}

	u := sideUpdates(b, base, admin, staff)
	b.ReportMetric(pct(u.latencies, 50), "event-p50-ms")
	b.ReportMetric(pct(u.latencies, 99), "event-p99-ms")
	b.ReportMetric(float64(len(u.latencies))/u.elapsed.Seconds(), "deliveries/s")
	b.ReportMetric(float64(u.updates)/u.elapsed.Seconds(), "updates/s")
	b.ReportMetric(float64(u.missed), "missed-deliveries")
	b.ReportMetric(float64(u.sockets), "sockets")
	b.ReportMetric(pinned, "loadgen-pinned")
}

// logWords logs the p50 of each word of the search shape (lat[i] asked sideWords[i %
// len]) and how many tickets it finds.
func logWords(b *testing.B, who *api, path func(int) string, lat []time.Duration) {
	for w, word := range sideWords {
		var mine []time.Duration
		for i := w; i < len(lat); i += len(sideWords) {
			mine = append(mine, lat[i])
		}
		var out struct {
			Count       int  `json:"count"`
			CountCapped bool `json:"countCapped"`
		}
		who.call("GET", path(w), nil, http.StatusOK, &out)
		b.Logf("search %q: p50 %.1f ms, %d tickets (capped: %v)", word, pct(mine, 50), out.Count, out.CountCapped)
	}
}

// fixed is a shape's path that is the same for every request.
func fixed(path string) func(int) string { return func(int) string { return path } }

// ticketPage is the part of a GET /tickets answer the side-by-side phase reads.
type ticketPage struct {
	Tickets []struct {
		ID      int64 `json:"id"`
		UserID  int64 `json:"userId"`
		QueueID int64 `json:"queueId"`
	} `json:"tickets"`
	NextCursor string `json:"nextCursor"`
}

func (p ticketPage) ids() []int64 {
	out := make([]int64, len(p.Tickets))
	for i, t := range p.Tickets {
		out[i] = t.ID
	}
	return out
}

// listPage is the page of list q that follows cursor ("" the first).
func listPage(who *api, q url.Values, cursor string) ticketPage {
	q = maps.Clone(q)
	if cursor != "" {
		q.Del("pageNumber")
		q.Set("cursor", cursor)
	}
	var p ticketPage
	who.call("GET", "/tickets?"+q.Encode(), nil, http.StatusOK, &p)
	return p
}

// sideUpdateRun is what the socket part of the side-by-side phase measured.
type sideUpdateRun struct {
	latencies []time.Duration // PUT start → the update's arrival, one per delivery
	updates   int
	missed    int // deliveries expected (engine.SeesTicket) that did not arrive
	sockets   int
	elapsed   time.Duration // from the first PUT to the last
}

// sideUpdates connects the attendants' sockets and has the admin hand open tickets to
// other attendants at sideUpdatesPerSec (see sideBySide).
func sideUpdates(b *testing.B, base string, admin *api, staff []*api) sideUpdateRun {
	rooms := [][]string{{"joinTickets", "open"}, {"joinTickets", "pending"}, {"joinNotification"}}
	type socketOf struct {
		who  *api
		sock *sioClient
	}
	var socks []socketOf
	for _, a := range staff {
		for range sideSocketsPerUser {
			socks = append(socks, socketOf{a, dialSocket(b, base, a.token, 0, rooms...)})
		}
	}
	inQueue := map[int64][]*api{} // queue → its attendants
	for _, a := range staff {
		for _, q := range a.queues {
			inQueue[q] = append(inQueue[q], a)
		}
	}

	// The tickets to hand over, each once, and to whom: another attendant of its queue.
	type update struct {
		ticket, queue, from, to int64
		at                      time.Time // the PUT's start
	}
	want := sideUpdatesPerSec * int(sideUpdatesDuration/time.Second)
	var updates []*update
	open := url.Values{"status": {"open"}, "showAll": {"true"}, "pageNumber": {"1"}}
	for cursor := ""; len(updates) < want; {
		p := listPage(admin, open, cursor)
		for _, t := range p.Tickets {
			var others []*api
			for _, a := range inQueue[t.QueueID] {
				if a.user != t.UserID {
					others = append(others, a)
				}
			}
			if t.UserID != 0 && len(others) > 0 && len(updates) < want {
				updates = append(updates, &update{ticket: t.ID, queue: t.QueueID, from: t.UserID, to: others[len(updates)%len(others)].user})
			}
		}
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if len(updates) < want {
		b.Logf("the shop has %d open tickets to hand over, not %d: %.1f s of updates", len(updates), want,
			float64(len(updates))/sideUpdatesPerSec)
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []error
	tick := time.NewTicker(time.Second / sideUpdatesPerSec)
	start := time.Now()
	for _, u := range updates {
		<-tick.C
		u.at = time.Now()
		wg.Add(1)
		go func() { // no answer waits for the one before: the rate holds whatever the latency
			defer wg.Done()
			if err := tryCall(admin, "PUT", fmt.Sprintf("/tickets/%d", u.ticket), map[string]any{"status": "open", "userId": u.to}); err != nil {
				mu.Lock()
				failures = append(failures, err)
				mu.Unlock()
			}
		}()
	}
	tick.Stop()
	elapsed := time.Since(start)
	wg.Wait()
	if len(failures) > 0 {
		b.Fatalf("%d of %d updates failed, the first: %v", len(failures), len(updates), failures[0])
	}

	// Which sockets see each update: its queue's attendants, and whoever held it.
	sees := func(who *api, u *update) bool {
		return slices.Contains(who.queues, u.queue) || who.user == u.from || who.user == u.to
	}
	byTicket := map[int64]*update{}
	expected := 0
	for _, u := range updates {
		byTicket[u.ticket] = u
		for _, s := range socks {
			if sees(s.who, u) {
				expected++
			}
		}
	}
	arrived := func(s socketOf) map[int64]time.Time {
		got := map[int64]time.Time{}
		for _, ev := range s.sock.received() {
			t, _ := ev.Body["ticket"].(map[string]any)
			if ev.Name != "ticket" || ev.Body["action"] != "update" || t == nil {
				continue
			}
			id, _ := t["id"].(float64)
			user, _ := t["userId"].(float64)
			if u := byTicket[int64(id)]; u != nil && int64(user) == u.to {
				if _, dup := got[u.ticket]; !dup {
					got[u.ticket] = ev.At
				}
			}
		}
		return got
	}
	count := func() int {
		n := 0
		for _, s := range socks {
			n += len(arrived(s))
		}
		return n
	}
	// A bound against a lost event, not a speed check: what has not come by then is missed.
	deadline := time.Now().Add(30 * time.Second)
	for count() < expected && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	run := sideUpdateRun{updates: len(updates), sockets: len(socks), elapsed: elapsed}
	for _, s := range socks {
		for id, at := range arrived(s) {
			run.latencies = append(run.latencies, at.Sub(byTicket[id].at))
		}
	}
	run.missed = expected - len(run.latencies)
	return run
}

// tryCall is api.call for goroutines other than the benchmark's: it answers an error
// instead of failing the benchmark, and ignores the answer's body.
func tryCall(a *api, method, path string, body any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(method, a.base+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+a.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: status %d: %s", method, path, res.StatusCode, answer)
	}
	return nil
}
