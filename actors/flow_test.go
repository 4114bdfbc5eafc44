package actors

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/connection"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/flow"
	"atende/persistence/jobs"
	"atende/persistence/journal"
	"atende/persistence/schedule"
	"atende/persistence/store"
)

// flowDoc is the flow of the runtime tests: greet with buttons, wait, branch on
// "sim"/"não", call the HTTP endpoint on yes, tag and say goodbye on no.
const flowDoc = `{"nodes":[
 {"id":"s","type":"start","data":{}},
 {"id":"hello","type":"message","data":{"text":"Olá! Quer um orçamento?","buttons":["Sim","Não"]}},
 {"id":"w","type":"wait","data":{"timeoutSeconds":3600}},
 {"id":"b","type":"branch","data":{"rules":[{"id":"yes","match":"keywords","value":"sim"},{"id":"no","match":"regex","value":"(?i)^n(ão|ao)?$"}]}},
 {"id":"h","type":"http","data":{"method":"POST","url":"URL","body":"{}","timeoutSeconds":1}},
 {"id":"okmsg","type":"end","data":{"text":"Orçamento enviado."}},
 {"id":"failmsg","type":"end","data":{"text":"Falhou."}},
 {"id":"t","type":"tag","data":{"tagId":7}},
 {"id":"bye","type":"end","data":{"text":"Até logo."}}
],"edges":[
 {"source":"s","sourceHandle":"out","target":"hello"},
 {"source":"hello","sourceHandle":"out","target":"w"},
 {"source":"w","sourceHandle":"reply","target":"b"},
 {"source":"w","sourceHandle":"timeout","target":"bye"},
 {"source":"b","sourceHandle":"yes","target":"h"},
 {"source":"b","sourceHandle":"no","target":"t"},
 {"source":"b","sourceHandle":"else","target":"hello"},
 {"source":"h","sourceHandle":"ok","target":"okmsg"},
 {"source":"h","sourceHandle":"fail","target":"failmsg"},
 {"source":"h","sourceHandle":"error","target":"failmsg"},
 {"source":"t","sourceHandle":"out","target":"bye"}
]}`

// crashJournal is a journal that, once armed, fails the append of a step at node
// after writing it: what a process that died between the journal write and the
// step's effect leaves behind.
type crashJournal struct {
	*journal.Store
	node atomic.Value // string: the node whose step "crashes"
}

func (j *crashJournal) Append(ctx context.Context, company engine.ID, stream string, v int64, evs ...engine.EventData) (engine.AppendResult, error) {
	res, err := j.Store.Append(ctx, company, stream, v, evs...)
	node, _ := j.node.Load().(string)
	if err == nil && node != "" && strings.HasPrefix(stream, "flow/") {
		for _, ev := range evs {
			if ev.Type == "flow.stepped" && strings.Contains(string(ev.Data), `"nodeId":"`+node+`"`) {
				j.node.Store("")
				return res, errors.New("node died after the append")
			}
		}
	}
	return res, err
}

type flowRig struct {
	d        *db.DB
	journal  *crashJournal
	flows    *flow.Store
	runs     *flow.Runs
	timers   *jobs.Client // the node's River client, working the flow timers
	factory  *recFactory
	conns    *connection.Store
	node     *Node
	routines *Routines
	httpHits atomic.Int64
	http     *httptest.Server
	delay    time.Duration // how long the HTTP endpoint takes
	status   int
	quit     chan struct{} // closed when the test ends: the endpoint stops waiting
	all      []*recChannel // every channel the connection had, across restarts
}

func newFlowRig(t *testing.T, d *db.DB) *flowRig {
	t.Helper()
	j, err := journal.New(d, journal.Config{Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	if err := schedule.Migrate(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	dbtest.MustExec(t, d, `INSERT INTO companies (id, name) VALUES (1, 'Demo')`)
	r := &flowRig{d: d, journal: &crashJournal{Store: j}, flows: flow.NewStore(d, nil), conns: connection.New(d, nil),
		factory: &recFactory{chs: map[engine.ID]*recChannel{}}, status: http.StatusOK, quit: make(chan struct{})}
	r.runs = flow.NewRuns(r.flows)
	r.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.httpHits.Add(1)
		if req.Header.Get("Idempotency-Key") == "" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		select {
		case <-time.After(r.delay):
		case <-req.Context().Done():
			return
		case <-r.quit:
			return
		}
		w.WriteHeader(r.status)
	}))
	t.Cleanup(r.http.Close)
	t.Cleanup(func() { close(r.quit) })
	r.start(t)
	return r
}

// start starts a node (again, after stop: a restart with the same database).
func (r *flowRig) start(t *testing.T) {
	t.Helper()
	r.routines = &Routines{}
	var node *Node
	tm, err := flow.NewTimers(r.d, r.runs, waker{&node}, flow.TimersConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if r.timers, err = jobs.New(r.d, jobs.Config{PollInterval: 50 * time.Millisecond, Kinds: []jobs.Kinds{tm.Kinds()}}); err != nil {
		t.Fatal(err)
	}
	cc := ConnectionConfig{Connections: r.conns, Contacts: store.NewContacts(r.d, nil), Guard: connection.NewGuard(r.d),
		IDs: db.NewIDs(r.d, 100), Channels: r.factory, Journal: r.journal, Logger: zerolog.Nop(),
		SendBackoff: 5 * time.Millisecond, Routines: r.routines, Flows: r.flows}
	kinds := []*cluster.Kind{
		TicketKind(TicketConfig{Journal: r.journal, Logger: zerolog.Nop(), Dispatch: StopFlows(DispatchToConnections)}),
		ConnectionKind(cc),
		FlowKind(FlowConfig{Journal: r.journal, Flows: r.flows, IDs: db.NewIDs(r.d, 100), Timers: tm, Runs: r.runs, Logger: zerolog.Nop()}),
	}
	n, err := StartNode(NodeConfig{Kinds: kinds, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	node = n
	r.node = n
	if err := r.timers.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.stop)
}

// stop stops the node and its timers (idempotent).
func (r *flowRig) stop() {
	if r.node == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = r.timers.Stop(ctx)
	r.node.Stop(false)
	r.routines.Close()
	r.node = nil
}

// waker hands the flow jobs to the rig's current node.
type waker struct{ n **Node }

func (w waker) Timeout(ctx context.Context, c, tid engine.ID, seq int64) error {
	return Flows{Node: *w.n}.Timeout(ctx, c, tid, seq)
}
func (w waker) Wake(ctx context.Context, c, tid engine.ID) error {
	return Flows{Node: *w.n}.Wake(ctx, c, tid)
}

// connect creates a web chat connection with a greeting (which the flow silences)
// and the flow starting on it.
func (r *flowRig) connect(t *testing.T, doc string) (engine.Connection, *recChannel) {
	t.Helper()
	ctx := context.Background()
	c, err := r.conns.Create(ctx, 1, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket, GreetingMessage: "Bem-vindo!"})
	if err != nil {
		t.Fatal(err)
	}
	doc = strings.ReplaceAll(doc, "URL", r.http.URL+"/quote")
	if _, err := r.flows.Create(ctx, 1, engine.FlowInput{Name: "Orçamento", IsActive: true, DataJSON: json.RawMessage(doc),
		ConnectionIDs: []engine.ID{c.ID}}); err != nil {
		t.Fatal(err)
	}
	return c, r.startConn(t, c.ID)
}

func (r *flowRig) startConn(t *testing.T, id engine.ID) *recChannel {
	t.Helper()
	if _, err := (Connections{Node: r.node}).Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	ch := r.factory.get(id)
	select {
	case <-ch.started:
	case <-time.After(10 * time.Second):
		t.Fatal("channel never started")
	}
	r.all = append(r.all, ch)
	return ch
}

// bodies are the texts the customer received on every channel the rig made.
func (r *flowRig) bodies(to string) []string {
	var out []string
	for _, c := range r.all {
		for _, m := range c.sentTo(to) {
			out = append(out, m.Body)
		}
	}
	return out
}

func (r *flowRig) run(t *testing.T, tid engine.ID) engine.FlowRunState {
	t.Helper()
	rep, err := Flows{Node: r.node}.Do(context.Background(), 1, tid, CmdFlowState, struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Run
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

const customer = "webchat:flow1"

// say sends a customer message and returns the customer's ticket.
func (r *flowRig) say(t *testing.T, ch *recChannel, conn engine.ID, pid, body string) engine.ID {
	t.Helper()
	// A provider redelivers a message it got no answer for (same id: stored once);
	// on a loaded machine the first delivery may time out.
	var err error
	for range 3 {
		if err = ch.sink.Inbound(context.Background(), inbound(customer, pid, body)); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	contacts := store.NewContacts(r.d, nil)
	cs, _, err := contacts.FindOrCreateByNumber(context.Background(), 1, customer, "x")
	if err != nil {
		t.Fatal(err)
	}
	tid, err := connection.NewGuard(r.d).Current(context.Background(), conn, cs.ID)
	if err != nil || tid == 0 {
		t.Fatalf("no ticket: %v", err)
	}
	return tid
}

var (
	hello = engine.FlowMessageText(engine.FlowNodeData{Text: "Olá! Quer um orçamento?", Buttons: []string{"Sim", "Não"}})
)

func equalBodies(got []string, want ...string) bool {
	return strings.Join(got, "|") == strings.Join(want, "|")
}

func TestFlowRunsToTheEnd(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r := newFlowRig(t, d)
		conn, ch := r.connect(t, flowDoc)
		tid := r.say(t, ch, conn.ID, "m1", "oi")
		waitFor(t, "the greeting of the flow", func() bool { return r.run(t, tid).Status == engine.FlowWaiting })
		waitFor(t, "hello sent", func() bool { return len(r.bodies(customer)) == 1 })
		r.say(t, ch, conn.ID, "m2", "SIM!")
		waitFor(t, "the end", func() bool { return r.run(t, tid).Status == engine.FlowEnded })
		waitFor(t, "the last message", func() bool { return len(r.bodies(customer)) == 2 })
		if got := r.bodies(customer); !equalBodies(got, hello, "Orçamento enviado.") {
			t.Fatalf("customer received %q (the connection's greeting must not be among them)", got)
		}
		if r.httpHits.Load() != 1 {
			t.Fatalf("the endpoint was called %d times", r.httpHits.Load())
		}
		if refs, _ := r.runs.Stalled(context.Background(), 0, 10); len(refs) != 0 {
			t.Fatalf("an ended run is still listed: %v", refs)
		}
	})
}

func TestFlowHTTPTimeoutTakesTheErrorBranch(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r := newFlowRig(t, d)
		r.delay = 10 * time.Second // the node waits 1 s
		conn, ch := r.connect(t, flowDoc)
		tid := r.say(t, ch, conn.ID, "m1", "oi")
		waitFor(t, "the wait", func() bool { return r.run(t, tid).Status == engine.FlowWaiting })
		r.say(t, ch, conn.ID, "m2", "sim")
		waitFor(t, "the end", func() bool { return r.run(t, tid).Status == engine.FlowEnded })
		waitFor(t, "the failure message", func() bool { return len(r.bodies(customer)) == 2 })
		if got := r.bodies(customer); !equalBodies(got, hello, "Falhou.") {
			t.Fatalf("customer received %q", got)
		}
		recs, _ := r.journal.ReadStream(context.Background(), engine.FlowStream(tid), 1, 0)
		found := false
		for _, rec := range recs {
			found = found || strings.Contains(string(rec.Data), `"outcome":"error","detail":"timeout"`)
		}
		if !found {
			t.Fatal("no step left the http node by its error branch with a timeout")
		}
	})
}

func TestFlowResumesAfterARestartWithoutRepeatingAStep(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r := newFlowRig(t, d)
		conn, ch := r.connect(t, flowDoc)
		tid := r.say(t, ch, conn.ID, "m1", "oi")
		waitFor(t, "the wait", func() bool { return r.run(t, tid).Status == engine.FlowWaiting })
		waitFor(t, "hello sent", func() bool { return len(r.bodies(customer)) == 1 })

		// Restart while waiting: the new node's run still waits at the same place.
		r.stop()
		r.start(t)
		ch = r.startConn(t, conn.ID)
		if st := r.run(t, tid); st.Status != engine.FlowWaiting || st.Node != "w" || st.WaitSeq != 1 {
			t.Fatalf("after the restart: %+v", st)
		}

		// The node dies right after journaling the last step, before sending it.
		r.journal.node.Store("okmsg")
		r.say(t, ch, conn.ID, "m2", "sim")
		waitFor(t, "the crash", func() bool { s, _ := r.journal.node.Load().(string); return s == "" })
		r.stop()
		r.start(t)
		r.startConn(t, conn.ID)
		// The sweep (or any event) wakes the run: it does the step's effect again.
		if err := (Flows{Node: r.node}).Wake(context.Background(), 1, tid); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the last message", func() bool { return len(r.bodies(customer)) >= 2 })
		// Waking again (a second sweep, a late job) sends nothing more.
		if err := (Flows{Node: r.node}).Wake(context.Background(), 1, tid); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		if got := r.bodies(customer); !equalBodies(got, hello, "Orçamento enviado.") {
			t.Fatalf("customer received %q", got)
		}
		if st := r.run(t, tid); st.Status != engine.FlowEnded {
			t.Fatalf("run %+v", st)
		}
		if r.httpHits.Load() != 1 {
			t.Fatalf("the endpoint was called %d times", r.httpHits.Load())
		}
	})
}

func TestFlowStopsWhenAnAttendantAccepts(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r := newFlowRig(t, d)
		conn, ch := r.connect(t, flowDoc)
		tid := r.say(t, ch, conn.ID, "m1", "oi")
		waitFor(t, "the wait", func() bool { return r.run(t, tid).Status == engine.FlowWaiting })
		admin := &engine.Principal{UserID: 5, CompanyID: 1, Profile: engine.ProfileAdmin}
		if _, err := (Tickets{Node: r.node}).Do(context.Background(), 1, tid, admin, 0, engine.Accept{UserID: 5}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the stop", func() bool {
			st := r.run(t, tid)
			return st.Status == engine.FlowStopped && st.Reason == engine.FlowReasonAccepted
		})
		r.say(t, ch, conn.ID, "m2", "sim")
		time.Sleep(300 * time.Millisecond)
		if got := r.bodies(customer); !equalBodies(got, hello) {
			t.Fatalf("customer received %q after the accept", got)
		}
		if r.httpHits.Load() != 0 {
			t.Fatal("a stopped flow called its endpoint")
		}
	})
}
