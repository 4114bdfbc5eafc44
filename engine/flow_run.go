package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A flow run: one flow walked by one ticket's conversation. The flow actor
// (actors/flow.go) owns it and journals every step on the stream flow/<ticketId>
// before doing what the step says, so that after a restart it folds the stream, does
// the last step's effect again (sends are keyed by the message id the step
// recorded, which the ticket records once) and carries on from the node after it.
// The decisions are the pure functions below; the actor runs their effects.

// Flow run statuses (FlowRunState.Status).
const (
	FlowRunning = "running" // executing nodes
	FlowWaiting = "waiting" // at a wait node, for a reply or the timeout
	FlowEnded   = "ended"   // reached an end or a transfer, or a dead end
	FlowStopped = "stopped" // an attendant took the ticket, or the ticket closed
)

// Reasons a run ended or stopped (FlowEnded / FlowStopped events).
const (
	FlowReasonEnd       = "end"
	FlowReasonTransfer  = "transfer"
	FlowReasonDeadEnd   = "dead end"
	FlowReasonStepLimit = "step limit"
	FlowReasonAccepted  = "accepted"
	FlowReasonClosed    = "ticket closed"
)

// FlowMaxSteps bounds the steps of one run. Validation forbids loops without a wait,
// so a run only repeats at the customer's pace or a wait's timeout; the bound stops a
// timeout loop nobody answers from writing forever.
const FlowMaxSteps = 500

// ErrFlowAINotConfigured is the reason an ai node takes its error branch when the
// tenant has no AI configured.
var ErrFlowAINotConfigured = errors.New("AI not configured")

// FlowAI answers an ai node's question. A tenant without AI configured answers
// ErrFlowAINotConfigured. history is the conversation's last messages, oldest first.
type FlowAI interface {
	AskFlow(ctx context.Context, companyID ID, question string, history []string) (string, error)
}

// FlowStream is the journal stream of the flow run of ticket id.
func FlowStream(ticketID ID) string { return "flow/" + strconv.FormatInt(ticketID, 10) }

// FlowRunState is a run folded from its stream.
type FlowRunState struct {
	TicketID     ID        `json:"ticketId"`
	CompanyID    ID        `json:"companyId"`
	FlowID       ID        `json:"flowId"`
	ConnectionID ID        `json:"connectionId"`
	Graph        FlowGraph `json:"graph"` // as it was when the run started: later edits do not change it
	Version      int64     `json:"version"`
	Status       string    `json:"status"` // "" before the start
	Node         string    `json:"node"`   // the node to run next, or the wait being waited at
	Steps        int64     `json:"steps"`  // steps taken; the next step's number is Steps+1
	WaitSeq      int64     `json:"waitSeq"`
	WaitUntil    time.Time `json:"waitUntil"`
	LastReply    string    `json:"lastReply"`
	Reason       string    `json:"reason,omitempty"`
	// Pending is the last step taken, whose effect the actor does again after an
	// activation (it may not have been done before the node stopped); nil once a
	// later event showed it done.
	Pending *FlowStepped `json:"pending,omitempty"`
}

// Live reports a run that still acts: running or waiting.
func (s FlowRunState) Live() bool { return s.Status == FlowRunning || s.Status == FlowWaiting }

// FlowEvent is an event of a flow run's stream.
type FlowEvent interface{ FlowEventType() string }

// FlowStarted opens a run on a ticket with the flow's graph as it is now.
type FlowStarted struct {
	TicketID     ID        `json:"ticketId"`
	CompanyID    ID        `json:"companyId"`
	FlowID       ID        `json:"flowId"`
	ConnectionID ID        `json:"connectionId"`
	Graph        FlowGraph `json:"graph"`
	At           time.Time `json:"at"`
}

// FlowStepped is one node run: written before its effect is done. Step is the
// step's number in the run (its idempotency key with the ticket id); MessageID and
// Body the message it sends, if any; Outcome the handle it left by; Next the node
// after it ("" when the run ends with it).
type FlowStepped struct {
	Step      int64     `json:"step"`
	NodeID    string    `json:"nodeId"`
	Kind      string    `json:"kind"`
	MessageID ID        `json:"messageId,omitempty"`
	Body      string    `json:"body,omitempty"`
	MediaURL  string    `json:"mediaUrl,omitempty"`
	TagID     ID        `json:"tagId,omitempty"`
	QueueID   ID        `json:"queueId,omitempty"`
	UserID    ID        `json:"userId,omitempty"`
	Outcome   string    `json:"outcome,omitempty"`
	Detail    string    `json:"detail,omitempty"` // why an http or ai node took its error branch
	Next      string    `json:"next,omitempty"`
	At        time.Time `json:"at"`
}

// FlowWaited starts waiting at a wait node; Seq names this wait (its timeout job
// carries it, so a late timeout of an earlier wait changes nothing).
type FlowWaited struct {
	NodeID string    `json:"nodeId"`
	Seq    int64     `json:"seq"`
	Until  time.Time `json:"until"`
}

// FlowReplied takes the customer's reply to the wait Seq.
type FlowReplied struct {
	Seq  int64  `json:"seq"`
	Body string `json:"body"`
	Next string `json:"next"`
}

// FlowTimedOut leaves the wait Seq by its timeout.
type FlowTimedOut struct {
	Seq  int64  `json:"seq"`
	Next string `json:"next"`
}

// FlowFinished ends or stops the run (Status FlowEnded or FlowStopped).
type FlowFinished struct {
	Status string    `json:"status"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

func (FlowStarted) FlowEventType() string  { return "flow.started" }
func (FlowStepped) FlowEventType() string  { return "flow.stepped" }
func (FlowWaited) FlowEventType() string   { return "flow.waited" }
func (FlowReplied) FlowEventType() string  { return "flow.replied" }
func (FlowTimedOut) FlowEventType() string { return "flow.timed_out" }
func (FlowFinished) FlowEventType() string { return "flow.finished" }

// EncodeFlowEvent is the journal type and data of ev.
func EncodeFlowEvent(ev FlowEvent) (string, []byte, error) {
	b, err := json.Marshal(ev)
	return ev.FlowEventType(), b, err
}

// DecodeFlowEvent reads a journal event of a flow stream.
func DecodeFlowEvent(typ string, data []byte) (FlowEvent, error) {
	var ev FlowEvent
	switch typ {
	case "flow.started":
		ev = &FlowStarted{}
	case "flow.stepped":
		ev = &FlowStepped{}
	case "flow.waited":
		ev = &FlowWaited{}
	case "flow.replied":
		ev = &FlowReplied{}
	case "flow.timed_out":
		ev = &FlowTimedOut{}
	case "flow.finished":
		ev = &FlowFinished{}
	default:
		return nil, fmt.Errorf("unknown flow event %q", typ)
	}
	if err := json.Unmarshal(data, ev); err != nil {
		return nil, fmt.Errorf("decode %s: %w", typ, err)
	}
	switch e := ev.(type) {
	case *FlowStarted:
		return *e, nil
	case *FlowStepped:
		return *e, nil
	case *FlowWaited:
		return *e, nil
	case *FlowReplied:
		return *e, nil
	case *FlowTimedOut:
		return *e, nil
	case *FlowFinished:
		return *e, nil
	}
	return ev, nil
}

// EvolveFlow applies one event (version is the stream version it was recorded at).
func EvolveFlow(s FlowRunState, ev FlowEvent, version int64) FlowRunState {
	s.Version = version
	switch e := ev.(type) {
	case FlowStarted:
		s.TicketID, s.CompanyID, s.FlowID, s.ConnectionID = e.TicketID, e.CompanyID, e.FlowID, e.ConnectionID
		s.Graph, s.Status, s.Node = e.Graph, FlowRunning, e.Graph.Start()
	case FlowStepped:
		step := e
		s.Steps, s.Node, s.Pending = e.Step, e.Next, &step
	case FlowWaited:
		s.Status, s.Node, s.WaitSeq, s.WaitUntil, s.Pending = FlowWaiting, e.NodeID, e.Seq, e.Until, nil
	case FlowReplied:
		s.Status, s.Node, s.LastReply, s.Pending = FlowRunning, e.Next, e.Body, nil
	case FlowTimedOut:
		s.Status, s.Node, s.LastReply, s.Pending = FlowRunning, e.Next, "", nil
	case FlowFinished:
		s.Status, s.Reason, s.Node = e.Status, e.Reason, ""
		// Pending stays: the step that ended the run (a transfer, an end's message)
		// still has its effect to do after a restart.
	}
	return s
}

// DecideFlowStart starts flow f on a ticket that has never run one. A ticket runs
// at most one flow, once.
func DecideFlowStart(s FlowRunState, f Flow, ticketID, connectionID ID, now time.Time) ([]FlowEvent, error) {
	if s.Status != "" {
		return nil, nil
	}
	g, err := ParseFlowGraph(f.DataJSON)
	if err != nil {
		return nil, Wrap(ErrFlowInvalid, err)
	}
	if err := ValidateFlowGraph(g); err != nil {
		return nil, err
	}
	return []FlowEvent{FlowStarted{TicketID: ticketID, CompanyID: f.CompanyID, FlowID: f.ID,
		ConnectionID: connectionID, Graph: g, At: now}}, nil
}

// FlowStepInput is what the actor learned before deciding the current node: a
// message id for a node that sends, the answer of an http or ai node.
type FlowStepInput struct {
	MessageID  ID
	HTTPStatus int    // http: the answer's status; 0 with HTTPError set when none came
	HTTPError  string // http: why no answer came (timeout, refused)
	AIAnswer   string // ai: the answer
	AIError    string // ai: why there is none
	Now        time.Time
}

// FlowNeeds says what the current node needs before DecideFlowStep: a message id, an
// HTTP call or an AI answer (the actor gets it, then decides).
type FlowNeeds struct {
	MessageID bool
	HTTP      bool
	AI        bool
}

// FlowNeedsOf is what running s's current node needs.
func FlowNeedsOf(s FlowRunState) FlowNeeds {
	n, ok := s.Graph.Node(s.Node)
	if !ok || s.Status != FlowRunning {
		return FlowNeeds{}
	}
	switch n.Type {
	case FlowMessage:
		return FlowNeeds{MessageID: true}
	case FlowEnd:
		return FlowNeeds{MessageID: strings.TrimSpace(n.Data.Text) != ""}
	case FlowHTTP:
		return FlowNeeds{HTTP: true}
	case FlowAsk:
		return FlowNeeds{AI: true, MessageID: true}
	}
	return FlowNeeds{}
}

// DecideFlowStep runs the current node of a running flow: the step it takes, and the
// wait or the end it leads to. Nothing when the run is not running.
func DecideFlowStep(s FlowRunState, in FlowStepInput) []FlowEvent {
	if s.Status != FlowRunning {
		return nil
	}
	finish := func(reason string) FlowEvent {
		return FlowFinished{Status: FlowEnded, Reason: reason, At: in.Now}
	}
	n, ok := s.Graph.Node(s.Node)
	if !ok {
		return []FlowEvent{finish(FlowReasonDeadEnd)}
	}
	if s.Steps >= FlowMaxSteps {
		return []FlowEvent{finish(FlowReasonStepLimit)}
	}
	step := FlowStepped{Step: s.Steps + 1, NodeID: n.ID, Kind: n.Type, At: in.Now}
	next := func(handle string) []FlowEvent {
		step.Outcome, step.Next = handle, s.Graph.Next(n.ID, handle)
		if step.Next == "" {
			return []FlowEvent{step, finish(FlowReasonDeadEnd)}
		}
		return []FlowEvent{step}
	}
	switch n.Type {
	case FlowStart, FlowTag, FlowQueue:
		step.TagID, step.QueueID = n.Data.TagID, n.Data.QueueID
		if n.Type != FlowTag {
			step.TagID = 0
		}
		if n.Type != FlowQueue {
			step.QueueID = 0
		}
		return next(FlowOut)
	case FlowMessage:
		step.MessageID, step.Body, step.MediaURL = in.MessageID, FlowMessageText(n.Data), n.Data.MediaURL
		return next(FlowOut)
	case FlowWait:
		return []FlowEvent{FlowWaited{NodeID: n.ID, Seq: s.WaitSeq + 1,
			Until: in.Now.Add(time.Duration(n.Data.TimeoutSeconds) * time.Second)}}
	case FlowBranch:
		return next(FlowBranchChoice(n.Data.Rules, s.LastReply))
	case FlowTransfer:
		step.UserID, step.QueueID = n.Data.UserID, n.Data.QueueID
		return []FlowEvent{step, finish(FlowReasonTransfer)}
	case FlowHTTP:
		switch {
		case in.HTTPError != "" || in.HTTPStatus == 0:
			step.Detail = in.HTTPError
			return next(FlowError)
		case in.HTTPStatus >= 200 && in.HTTPStatus < 300:
			return next(FlowOK)
		}
		step.Detail = strconv.Itoa(in.HTTPStatus)
		return next(FlowFail)
	case FlowAsk:
		if in.AIError != "" || strings.TrimSpace(in.AIAnswer) == "" {
			step.Detail = in.AIError
			if step.Detail == "" {
				step.Detail = "empty answer"
			}
			return next(FlowError)
		}
		step.MessageID, step.Body = in.MessageID, in.AIAnswer
		return next(FlowOut)
	case FlowEnd:
		if strings.TrimSpace(n.Data.Text) != "" {
			step.MessageID, step.Body = in.MessageID, n.Data.Text
		}
		return []FlowEvent{step, finish(FlowReasonEnd)}
	}
	return []FlowEvent{finish(FlowReasonDeadEnd)}
}

// DecideFlowReply takes a customer's message: the answer to the current wait, or
// nothing when the run is not waiting (a message while it runs is not an answer to a
// question not asked yet).
func DecideFlowReply(s FlowRunState, body string) []FlowEvent {
	if s.Status != FlowWaiting {
		return nil
	}
	return []FlowEvent{FlowReplied{Seq: s.WaitSeq, Body: body, Next: s.Graph.Next(s.Node, FlowReply)}}
}

// DecideFlowTimeout leaves the wait seq by its timeout, if the run still waits there.
func DecideFlowTimeout(s FlowRunState, seq int64) []FlowEvent {
	if s.Status != FlowWaiting || s.WaitSeq != seq {
		return nil
	}
	return []FlowEvent{FlowTimedOut{Seq: seq, Next: s.Graph.Next(s.Node, FlowTimeout)}}
}

// DecideFlowStop stops a live run (an attendant accepted the ticket, it closed).
func DecideFlowStop(s FlowRunState, reason string, now time.Time) []FlowEvent {
	if !s.Live() {
		return nil
	}
	return []FlowEvent{FlowFinished{Status: FlowStopped, Reason: reason, At: now}}
}

// FlowTicketStops reports why a run must stop given its ticket: an attendant holds
// it, or it is closed or deleted; "" when the flow may go on.
func FlowTicketStops(t TicketState) string {
	switch {
	case t.Deleted || t.Status == StatusClosed:
		return FlowReasonClosed
	case t.UserID != 0 || t.Status == StatusOpen:
		return FlowReasonAccepted
	}
	return ""
}

// FlowMessageText is a message node's text with its buttons as numbered options
// (channels without reply buttons show them as text; "1 - Yes").
func FlowMessageText(d FlowNodeData) string {
	if len(d.Buttons) == 0 {
		return d.Text
	}
	var b strings.Builder
	b.WriteString(d.Text)
	for i, label := range d.Buttons {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d - %s", i+1, label)
	}
	return b.String()
}

// FlowBranchChoice is the handle a branch leaves by for reply: the first rule that
// matches, else FlowElse. Keywords match a whole word (or the whole reply) of the
// reply, case and accents ignored; a regex matches anywhere in the reply as typed.
func FlowBranchChoice(rules []FlowRule, reply string) string {
	folded := foldFlow(reply)
	words := strings.FieldsFunc(folded, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
	for _, r := range rules {
		switch r.Match {
		case FlowMatchKeywords:
			for _, kw := range strings.Split(r.Value, ",") {
				kw = foldFlow(strings.TrimSpace(kw))
				if kw == "" {
					continue
				}
				if kw == strings.TrimSpace(folded) {
					return r.ID
				}
				for _, w := range words {
					if w == kw {
						return r.ID
					}
				}
			}
		case FlowMatchRegex:
			re, err := regexp.Compile(r.Value)
			if err == nil && re.MatchString(reply) {
				return r.ID
			}
		}
	}
	return FlowElse
}

// foldFlow lower-cases s and strips the accents of Latin letters.
func foldFlow(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if f, ok := flowFold[r]; ok {
			r = f
		}
		b.WriteRune(r)
	}
	return b.String()
}

var flowFold = func() map[rune]rune {
	m := map[rune]rune{}
	for base, accented := range map[rune]string{
		'a': "áàâãäå", 'e': "éèêë", 'i': "íìîï", 'o': "óòôõö", 'u': "úùûü", 'c': "ç", 'n': "ñ",
	} {
		for _, r := range accented {
			m[r] = base
		}
	}
	return m
}()
