package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// sampleFlow is the flow of the runtime tests: greet, wait, branch on "sim"/"não",
// call an HTTP endpoint on yes, tag on no.
const sampleFlow = `{"nodes":[
 {"id":"s","type":"start","position":{"x":0,"y":0},"data":{}},
 {"id":"hello","type":"message","data":{"text":"Olá! Quer um orçamento?","buttons":["Sim","Não"]}},
 {"id":"w","type":"wait","data":{"timeoutSeconds":60}},
 {"id":"b","type":"branch","data":{"rules":[{"id":"yes","match":"keywords","value":"sim, 1"},{"id":"no","match":"regex","value":"(?i)^n(ão|ao|o)?$|^2$"}]}},
 {"id":"h","type":"http","data":{"method":"POST","url":"http://127.0.0.1:9/quote","timeoutSeconds":2}},
 {"id":"okmsg","type":"end","data":{"text":"Orçamento enviado."}},
 {"id":"failmsg","type":"end","data":{"text":"Falhou."}},
 {"id":"t","type":"tag","data":{"tagId":7}},
 {"id":"bye","type":"end","data":{"text":"Até logo."}}
],"edges":[
 {"id":"e1","source":"s","sourceHandle":"out","target":"hello"},
 {"id":"e2","source":"hello","target":"w"},
 {"id":"e3","source":"w","sourceHandle":"reply","target":"b"},
 {"id":"e4","source":"w","sourceHandle":"timeout","target":"bye"},
 {"id":"e5","source":"b","sourceHandle":"yes","target":"h"},
 {"id":"e6","source":"b","sourceHandle":"no","target":"t"},
 {"id":"e7","source":"b","sourceHandle":"else","target":"hello"},
 {"id":"e8","source":"h","sourceHandle":"ok","target":"okmsg"},
 {"id":"e9","source":"h","sourceHandle":"fail","target":"failmsg"},
 {"id":"e10","source":"h","sourceHandle":"error","target":"failmsg"},
 {"id":"e11","source":"t","sourceHandle":"out","target":"bye"}
]}`

func mustGraph(t *testing.T, doc string) FlowGraph {
	t.Helper()
	g, err := ParseFlowGraph([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// edit applies fn to the sample graph and re-encodes it.
func editSample(t *testing.T, fn func(g *FlowGraph)) FlowGraph {
	g := mustGraph(t, sampleFlow)
	fn(&g)
	return g
}

func TestValidateFlowGraph(t *testing.T) {
	if err := ValidateFlowGraph(mustGraph(t, sampleFlow)); err != nil {
		t.Fatalf("sample refused: %v", err)
	}
	cases := []struct {
		name  string
		edit  func(g *FlowGraph)
		key   string
		msg   string
		other string // another key that must be named too, if any
	}{
		{"unknown kind", func(g *FlowGraph) { g.Nodes[7].Type = "teleport" }, "nodes.t", FlowMsgUnknownKind, ""},
		{"unreachable", func(g *FlowGraph) {
			g.Nodes = append(g.Nodes, FlowNode{ID: "lost", Type: FlowEnd})
		}, "nodes.lost", FlowMsgUnreachable, ""},
		{"missing branch", func(g *FlowGraph) { g.Edges = g.Edges[:3] }, "nodes.w", FlowMsgMissingBranch, ""},
		{"bad regex", func(g *FlowGraph) { g.Nodes[3].Data.Rules[1].Value = "(unclosed" }, "nodes.b", FlowMsgBadRegex, ""},
		{"bad url", func(g *FlowGraph) { g.Nodes[4].Data.URL = "ftp://x" }, "nodes.h", FlowMsgBadURL, ""},
		{"relative url", func(g *FlowGraph) { g.Nodes[4].Data.URL = "/quote" }, "nodes.h", FlowMsgBadURL, ""},
		{"user info url", func(g *FlowGraph) { g.Nodes[4].Data.URL = "http://u:p@x/" }, "nodes.h", FlowMsgBadURL, ""},
		{"cycle without a wait", func(g *FlowGraph) {
			// tag → back to the branch: branch ↔ tag loops without the customer.
			g.Edges[10].Target = "b"
		}, "nodes.b", FlowMsgCycle, "nodes.t"},
		{"no start", func(g *FlowGraph) { g.Nodes[0].Type = FlowEnd }, "dataJson", FlowMsgNoStart, ""},
		{"two starts", func(g *FlowGraph) {
			g.Nodes = append(g.Nodes, FlowNode{ID: "s2", Type: FlowStart})
			g.Edges = append(g.Edges, FlowEdge{Source: "s2", Target: "bye"})
		}, "nodes.s2", FlowMsgManyStarts, ""},
		{"unknown handle", func(g *FlowGraph) { g.Edges[1].SourceHandle = "maybe" }, "nodes.hello", FlowMsgBadHandle, ""},
		{"edge to nowhere", func(g *FlowGraph) { g.Edges[1].Target = "ghost" }, "nodes.hello", FlowMsgBadEdge, ""},
		{"handle twice", func(g *FlowGraph) {
			g.Edges = append(g.Edges, FlowEdge{Source: "hello", SourceHandle: "out", Target: "bye"})
		}, "nodes.hello", FlowMsgTwoEdges, ""},
		{"wait without timeout", func(g *FlowGraph) { g.Nodes[2].Data.TimeoutSeconds = 0 }, "nodes.w", FlowMsgOutOfRange, ""},
		{"empty message", func(g *FlowGraph) { g.Nodes[1].Data.Text = " " }, "nodes.hello", FlowMsgRequired, ""},
		{"tag without id", func(g *FlowGraph) { g.Nodes[7].Data.TagID = 0 }, "nodes.t", FlowMsgRequired, ""},
		{"bad method", func(g *FlowGraph) { g.Nodes[4].Data.Method = "DELETE" }, "nodes.h", FlowMsgBadMethod, ""},
		{"duplicate node id", func(g *FlowGraph) { g.Nodes[8].ID = "t" }, "nodes.t", FlowMsgDuplicateID, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateFlowGraph(editSample(t, tc.edit))
			if CodeOf(err) != ErrFlowInvalid {
				t.Fatalf("err = %v, want ERR_FLOW_INVALID", err)
			}
			fields := err.(*Error).Fields
			if fields[tc.key] != tc.msg {
				t.Fatalf("fields = %v, want %s: %q", fields, tc.key, tc.msg)
			}
			if tc.other != "" && fields[tc.other] == "" {
				t.Fatalf("fields = %v, want %s named too", fields, tc.other)
			}
		})
	}
}

func TestValidateFlowInput(t *testing.T) {
	ok := FlowInput{Name: " Vendas ", DataJSON: json.RawMessage(sampleFlow), ConnectionIDs: []ID{3, 3, 1}}
	in, err := ValidateFlow(ok)
	if err != nil || in.Name != "Vendas" || len(in.ConnectionIDs) != 2 {
		t.Fatalf("ValidateFlow = %+v, %v", in, err)
	}
	for name, tc := range map[string]struct {
		in    FlowInput
		field string
	}{
		"no name":      {FlowInput{DataJSON: json.RawMessage(sampleFlow)}, "name"},
		"long name":    {FlowInput{Name: strings.Repeat("x", 101), DataJSON: json.RawMessage(sampleFlow)}, "name"},
		"no document":  {FlowInput{Name: "ab"}, "dataJson"},
		"not json":     {FlowInput{Name: "ab", DataJSON: json.RawMessage(`{"nodes":[`)}, "dataJson"},
		"nodes object": {FlowInput{Name: "ab", DataJSON: json.RawMessage(`{"nodes":{}}`)}, "dataJson"},
		"bad conn id":  {FlowInput{Name: "ab", DataJSON: json.RawMessage(sampleFlow), ConnectionIDs: []ID{-1}}, "connectionIds"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ValidateFlow(tc.in)
			e, ok := err.(*Error)
			if !ok || e.Code != ErrValidation || e.Fields[tc.field] == "" {
				t.Fatalf("err = %v, want ERR_VALIDATION on %s", err, tc.field)
			}
		})
	}
}

// run folds evs into s, numbering versions on.
func run(s FlowRunState, evs ...FlowEvent) FlowRunState {
	for _, ev := range evs {
		s = EvolveFlow(s, ev, s.Version+1)
	}
	return s
}

func TestFlowRunWalksTheSample(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	f := Flow{ID: 5, CompanyID: 1, DataJSON: json.RawMessage(sampleFlow)}
	evs, err := DecideFlowStart(FlowRunState{}, f, 42, 9, now)
	if err != nil || len(evs) != 1 {
		t.Fatalf("start = %v, %v", evs, err)
	}
	s := run(FlowRunState{}, evs...)
	if again, _ := DecideFlowStart(s, f, 42, 9, now); again != nil {
		t.Fatalf("a second start decided %v", again)
	}
	s = run(s, DecideFlowStep(s, FlowStepInput{Now: now})...) // start
	if !FlowNeedsOf(s).MessageID {
		t.Fatalf("message node needs no id: %+v", s)
	}
	s = run(s, DecideFlowStep(s, FlowStepInput{MessageID: 100, Now: now})...)
	if s.Pending == nil || s.Pending.MessageID != 100 || !strings.Contains(s.Pending.Body, "2 - Não") {
		t.Fatalf("pending step = %+v", s.Pending)
	}
	s = run(s, DecideFlowStep(s, FlowStepInput{Now: now})...) // wait
	if s.Status != FlowWaiting || s.WaitSeq != 1 || !s.WaitUntil.Equal(now.Add(time.Minute)) || s.Pending != nil {
		t.Fatalf("after wait: %+v", s)
	}
	if DecideFlowTimeout(s, 0) != nil || DecideFlowStep(s, FlowStepInput{}) != nil {
		t.Fatal("a stale timeout or a step acted on a waiting run")
	}
	s = run(s, DecideFlowReply(s, "SIM, por favor")...)
	if DecideFlowTimeout(s, 1) != nil {
		t.Fatal("the timeout of an answered wait acted")
	}
	s = run(s, DecideFlowStep(s, FlowStepInput{Now: now})...) // branch
	if s.Node != "h" || !FlowNeedsOf(s).HTTP {
		t.Fatalf("branch went to %q", s.Node)
	}
	s = run(s, DecideFlowStep(s, FlowStepInput{HTTPError: "timeout", Now: now})...)
	if s.Node != "failmsg" || s.Pending.Outcome != FlowError {
		t.Fatalf("http timeout went to %q by %q", s.Node, s.Pending.Outcome)
	}
	s = run(s, DecideFlowStep(s, FlowStepInput{MessageID: 101, Now: now})...)
	if s.Status != FlowEnded || s.Reason != FlowReasonEnd || s.Pending.MessageID != 101 {
		t.Fatalf("end: %+v", s)
	}
	if DecideFlowStop(s, FlowReasonAccepted, now) != nil {
		t.Fatal("an ended run stopped")
	}
}

func TestFlowBranchChoice(t *testing.T) {
	rules := mustGraph(t, sampleFlow).Nodes[3].Data.Rules
	for reply, want := range map[string]string{
		"sim": "yes", "Sim!": "yes", "1": "yes", "não": "no", "NAO": "no", "2": "no",
		"simulação": FlowElse, "talvez": FlowElse, "": FlowElse,
	} {
		if got := FlowBranchChoice(rules, reply); got != want {
			t.Errorf("%q → %q, want %q", reply, got, want)
		}
	}
}

func TestFlowStopAndHTTPOutcomes(t *testing.T) {
	now := time.Now()
	s := run(FlowRunState{}, FlowStarted{Graph: mustGraph(t, sampleFlow)})
	s.Node = "h"
	for status, want := range map[int]string{200: FlowOK, 204: FlowOK, 302: FlowFail, 500: FlowFail} {
		if got := DecideFlowStep(s, FlowStepInput{HTTPStatus: status, Now: now})[0].(FlowStepped).Outcome; got != want {
			t.Errorf("status %d → %q, want %q", status, got, want)
		}
	}
	stop := DecideFlowStop(s, FlowReasonAccepted, now)
	if len(stop) != 1 || run(s, stop...).Status != FlowStopped {
		t.Fatalf("stop = %v", stop)
	}
	if FlowTicketStops(TicketState{Status: StatusPending}) != "" ||
		FlowTicketStops(TicketState{Status: StatusOpen, UserID: 3}) != FlowReasonAccepted ||
		FlowTicketStops(TicketState{Status: StatusClosed}) != FlowReasonClosed {
		t.Fatal("FlowTicketStops")
	}
}

func TestFlowEventsRoundTrip(t *testing.T) {
	evs := []FlowEvent{
		FlowStarted{TicketID: 1, Graph: mustGraph(t, sampleFlow)},
		FlowStepped{Step: 1, NodeID: "x", MessageID: 4, Body: "b"},
		FlowWaited{Seq: 2}, FlowReplied{Seq: 2, Body: "oi"}, FlowTimedOut{Seq: 3},
		FlowFinished{Status: FlowEnded, Reason: FlowReasonEnd},
	}
	for _, ev := range evs {
		typ, data, err := EncodeFlowEvent(ev)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeFlowEvent(typ, data)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(ev)
		b, _ := json.Marshal(back)
		if string(a) != string(b) || back.FlowEventType() != typ {
			t.Fatalf("%s: %s != %s", typ, a, b)
		}
	}
	if _, err := DecodeFlowEvent("flow.nope", []byte(`{}`)); err == nil {
		t.Fatal("unknown type decoded")
	}
	if _, err := DecodeFlowEvent("flow.stepped", []byte(`[`)); err == nil {
		t.Fatal("bad JSON decoded")
	}
}

// FuzzFlowDocument feeds hostile documents to the parser and the validator: they
// must not panic, and a document they accept must run from its start to a wait or
// an end without a step that leads to a missing node.
func FuzzFlowDocument(f *testing.F) {
	f.Add([]byte(sampleFlow))
	f.Add([]byte(`{"nodes":[{"id":"s","type":"start"},{"id":"e","type":"end"}],"edges":[{"source":"s","target":"e"}]}`))
	f.Add([]byte(`{"nodes":[{"id":"s","type":"start"}],"edges":[{"source":"s","target":"s"}]}`))
	f.Add([]byte(`{"nodes":null,"edges":[{}]}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"nodes":[{"id":"b","type":"branch","data":{"rules":[{"id":"else","match":"regex","value":"(a*)*$"}]}}]}`))
	f.Add([]byte("\xff\xfe"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		g, err := ParseFlowGraph(doc)
		if err != nil {
			return
		}
		if ValidateFlowGraph(g) != nil {
			return
		}
		s := run(FlowRunState{}, FlowStarted{Graph: g})
		for i := 0; i < 2*len(g.Nodes)+2 && s.Status == FlowRunning; i++ {
			evs := DecideFlowStep(s, FlowStepInput{MessageID: 1, HTTPStatus: 200, AIAnswer: "a"})
			if len(evs) == 0 {
				t.Fatalf("a running flow decided nothing at %q", s.Node)
			}
			s = run(s, evs...)
			if s.Reason == FlowReasonDeadEnd {
				t.Fatalf("a valid flow reached a dead end: %s", doc)
			}
		}
		if s.Status == FlowRunning {
			t.Fatalf("a valid flow ran %d steps without waiting or ending: %s", s.Steps, doc)
		}
	})
}
