package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Bizflow: visual flows (spec sections 1 and 3, "Bizflow: id, name, description,
// isActive, dataJson"). A flow is a graph the /BizFlow editor draws with React Flow;
// dataJson is that editor's {nodes, edges} document. The server reads the part it
// runs (node ids, kinds, their data, the edges and the handles they leave from) and
// keeps the document as sent, so the editor's layout comes back unchanged.
// docs/flows.md describes the node kinds and how a flow runs.

// Node kinds of a flow graph (FlowNode.Type).
const (
	FlowStart    = "start"    // the entry; one per flow
	FlowMessage  = "message"  // send a text, a media or a text with buttons
	FlowWait     = "wait"     // wait for the customer's reply, or a timeout
	FlowBranch   = "branch"   // choose by the last reply: keywords or a regex per rule
	FlowTag      = "tag"      // add a tag to the ticket
	FlowQueue    = "queue"    // move the ticket to a queue
	FlowTransfer = "transfer" // hand the ticket to an attendant; ends the flow
	FlowHTTP     = "http"     // call an HTTP endpoint and branch on its answer
	FlowAsk      = "ai"       // ask the AI, send its answer
	FlowEnd      = "end"      // end the flow, optionally with a last message
)

// Handles (FlowEdge.SourceHandle) the edges leave a node by.
const (
	FlowOut     = "out"     // start, message, tag, queue, ai: the next node
	FlowReply   = "reply"   // wait: the customer answered
	FlowTimeout = "timeout" // wait: nobody answered in time
	FlowElse    = "else"    // branch: no rule matched
	FlowOK      = "ok"      // http: a 2xx answer
	FlowFail    = "fail"    // http: any other answer
	FlowError   = "error"   // http: no answer (timeout, network); ai: no answer
)

// Branch rule matches (FlowRule.Match).
const (
	FlowMatchKeywords = "keywords" // any of the comma-separated words, case and accents ignored
	FlowMatchRegex    = "regex"    // a Go (RE2) regular expression on the reply as typed
)

// Limits of a flow document.
const (
	FlowMaxBytes      = 512 << 10 // dataJson
	FlowMaxNodes      = 200
	FlowMaxEdges      = 600
	FlowMaxRules      = 20
	FlowMaxButtons    = 3 // WhatsApp's reply buttons
	FlowMaxText       = 4096
	FlowMaxRegex      = 500
	FlowMaxWait       = 7 * 24 * 3600 // seconds
	FlowMaxHTTPWait   = 30            // seconds
	FlowDefaultHTTPTO = 10            // seconds, when the node names none
	FlowMaxIDLength   = 100
	FlowMaxNameLength = 100
)

// Validation messages of a flow, the values of the error's Fields (keyed "name",
// "dataJson" or "nodes.<nodeId>"). The web shows them on the node, translated
// through bizflow.validation.<message>.
const (
	FlowMsgRequired      = "Required"
	FlowMsgTooLong       = "Too Long!"
	FlowMsgTooShort      = "Too Short!"
	FlowMsgUnknownKind   = "Unknown kind"
	FlowMsgNoStart       = "No start"
	FlowMsgManyStarts    = "More than one start"
	FlowMsgTooMany       = "Too many nodes"
	FlowMsgDuplicateID   = "Duplicate id"
	FlowMsgBadEdge       = "Edge to a missing node"
	FlowMsgBadHandle     = "Unknown branch"
	FlowMsgMissingBranch = "Missing branch"
	FlowMsgTwoEdges      = "Branch connected twice"
	FlowMsgUnreachable   = "Unreachable"
	FlowMsgCycle         = "Cycle without a wait"
	FlowMsgBadRegex      = "Invalid regex"
	FlowMsgBadURL        = "Invalid URL"
	FlowMsgOutOfRange    = "Out of range"
	FlowMsgBadMethod     = "Invalid method"
	FlowMsgMalformed     = "Malformed"
)

// Flow is a tenant's flow as stored. ConnectionIDs and QueueIDs choose where it
// starts: a new ticket of one of those connections, or a new ticket that lands in one
// of those queues. Only an active flow starts.
type Flow struct {
	ID            ID              `json:"id"`
	CompanyID     ID              `json:"companyId"`
	Name          string          `json:"name"`
	Description   string          `json:"description"`
	IsActive      bool            `json:"isActive"`
	DataJSON      json.RawMessage `json:"dataJson"`
	ConnectionIDs []ID            `json:"connectionIds"`
	QueueIDs      []ID            `json:"queueIds"`
	CreatedAt     time.Time       `json:"createdAt"`
	UpdatedAt     time.Time       `json:"updatedAt"`
}

// FlowInput is the body of POST /flows and PUT /flows/{id}.
type FlowInput struct {
	Name          string          `json:"name"`
	Description   string          `json:"description"`
	IsActive      bool            `json:"isActive"`
	DataJSON      json.RawMessage `json:"dataJson"`
	ConnectionIDs []ID            `json:"connectionIds"`
	QueueIDs      []ID            `json:"queueIds"`
}

// FlowStore keeps the tenants' flows. Every method is scoped to companyID.
type FlowStore interface {
	List(ctx context.Context, companyID ID) ([]Flow, error)
	Get(ctx context.Context, companyID, id ID) (Flow, error)
	// Create and Update store a validated input (ValidateFlow); a connection or queue
	// another active flow of the tenant already starts on is ERR_VALIDATION
	// {connectionIds|queueIds: "Already exists"}.
	Create(ctx context.Context, companyID ID, in FlowInput) (Flow, error)
	Update(ctx context.Context, companyID, id ID, in FlowInput) (Flow, error)
	Delete(ctx context.Context, companyID, id ID) error
	// StartFor is the active flow that starts on a new ticket of connection (first)
	// or queue; ok is false when none does.
	StartFor(ctx context.Context, companyID, connectionID, queueID ID) (f Flow, ok bool, err error)
}

// FlowGraph is the part of a dataJson document the server runs.
type FlowGraph struct {
	Nodes []FlowNode `json:"nodes"`
	Edges []FlowEdge `json:"edges"`
}

// FlowNode is one node of the graph. Type is its kind; Data its fields.
type FlowNode struct {
	ID   string       `json:"id"`
	Type string       `json:"type"`
	Data FlowNodeData `json:"data"`
}

// FlowNodeData holds every kind's fields; each kind reads its own.
type FlowNodeData struct {
	Text           string     `json:"text,omitempty"`           // message, end; ai: the question's lead
	MediaURL       string     `json:"mediaUrl,omitempty"`       // message: an image sent with text as caption
	Buttons        []string   `json:"buttons,omitempty"`        // message: reply buttons (sent as numbered options)
	TimeoutSeconds int        `json:"timeoutSeconds,omitempty"` // wait, http
	Rules          []FlowRule `json:"rules,omitempty"`          // branch
	TagID          ID         `json:"tagId,omitempty"`          // tag
	QueueID        ID         `json:"queueId,omitempty"`        // queue, transfer (optional)
	UserID         ID         `json:"userId,omitempty"`         // transfer
	Method         string     `json:"method,omitempty"`         // http: GET or POST
	URL            string     `json:"url,omitempty"`            // http
	Body           string     `json:"body,omitempty"`           // http: POST body template
}

// FlowRule is one way out of a branch node: its ID is the handle its edge leaves by.
type FlowRule struct {
	ID    string `json:"id"`
	Match string `json:"match"`
	Value string `json:"value"`
}

// FlowEdge connects a node's handle to the next node.
type FlowEdge struct {
	ID           string `json:"id"`
	Source       string `json:"source"`
	SourceHandle string `json:"sourceHandle"`
	Target       string `json:"target"`
}

// Node returns the node with id.
func (g FlowGraph) Node(id string) (FlowNode, bool) {
	for _, n := range g.Nodes {
		if n.ID == id {
			return n, true
		}
	}
	return FlowNode{}, false
}

// Next is the node the edge leaving node id by handle goes to; "" when none.
func (g FlowGraph) Next(id, handle string) string {
	for _, e := range g.Edges {
		if e.Source == id && edgeHandle(e) == handle {
			return e.Target
		}
	}
	return ""
}

// Start is the id of the start node ("" when there is none).
func (g FlowGraph) Start() string {
	for _, n := range g.Nodes {
		if n.Type == FlowStart {
			return n.ID
		}
	}
	return ""
}

// edgeHandle is the handle an edge leaves by; a node with a single way out may be
// connected without naming it.
func edgeHandle(e FlowEdge) string {
	if e.SourceHandle == "" {
		return FlowOut
	}
	return e.SourceHandle
}

// FlowHandles are the handles a node must have an edge leaving by, in order. A
// transfer and an end have none.
func FlowHandles(n FlowNode) []string {
	switch n.Type {
	case FlowStart, FlowMessage, FlowTag, FlowQueue:
		return []string{FlowOut}
	case FlowWait:
		return []string{FlowReply, FlowTimeout}
	case FlowBranch:
		out := make([]string, 0, len(n.Data.Rules)+1)
		for _, r := range n.Data.Rules {
			out = append(out, r.ID)
		}
		return append(out, FlowElse)
	case FlowHTTP:
		return []string{FlowOK, FlowFail, FlowError}
	case FlowAsk:
		return []string{FlowOut, FlowError}
	}
	return nil
}

// FlowKinds lists the node kinds, in the editor's palette order.
func FlowKinds() []string {
	return []string{FlowStart, FlowMessage, FlowWait, FlowBranch, FlowTag, FlowQueue, FlowTransfer, FlowHTTP, FlowAsk, FlowEnd}
}

// ParseFlowGraph reads a dataJson document. It refuses what is not a JSON object
// of nodes and edges within the limits; it does not judge the graph (ValidateFlowGraph).
func ParseFlowGraph(data []byte) (FlowGraph, error) {
	var g FlowGraph
	if len(bytes.TrimSpace(data)) == 0 {
		return g, errors.New("empty document")
	}
	if len(data) > FlowMaxBytes {
		return g, fmt.Errorf("document of %d bytes, more than %d", len(data), FlowMaxBytes)
	}
	if !utf8.Valid(data) {
		return g, errors.New("document is not UTF-8")
	}
	if err := json.Unmarshal(data, &g); err != nil {
		return g, fmt.Errorf("decode: %w", err)
	}
	if len(g.Nodes) > FlowMaxNodes || len(g.Edges) > FlowMaxEdges {
		return g, fmt.Errorf("%d nodes and %d edges, more than %d and %d", len(g.Nodes), len(g.Edges), FlowMaxNodes, FlowMaxEdges)
	}
	return g, nil
}

// ValidateFlow checks a flow input and returns it trimmed, or ERR_VALIDATION (name,
// dataJson) or ERR_FLOW_INVALID with one message per faulty node.
func ValidateFlow(in FlowInput) (FlowInput, error) {
	in.Name = strings.TrimSpace(in.Name)
	in.Description = strings.TrimSpace(in.Description)
	switch n := utf8.RuneCountInString(in.Name); {
	case n == 0:
		return in, fieldError("name", FlowMsgRequired)
	case n < 2:
		return in, fieldError("name", FlowMsgTooShort)
	case n > FlowMaxNameLength:
		return in, fieldError("name", FlowMsgTooLong)
	}
	if utf8.RuneCountInString(in.Description) > 1000 {
		return in, fieldError("description", FlowMsgTooLong)
	}
	in.ConnectionIDs = uniqueIDs(in.ConnectionIDs)
	in.QueueIDs = uniqueIDs(in.QueueIDs)
	for _, id := range append(slices.Clone(in.ConnectionIDs), in.QueueIDs...) {
		if id <= 0 {
			return in, fieldError("connectionIds", FlowMsgOutOfRange)
		}
	}
	g, err := ParseFlowGraph(in.DataJSON)
	if err != nil {
		return in, &Error{Code: ErrValidation, Fields: map[string]string{"dataJson": FlowMsgMalformed}, Cause: err}
	}
	if err := ValidateFlowGraph(g); err != nil {
		return in, err
	}
	return in, nil
}

func fieldError(field, msg string) *Error {
	return &Error{Code: ErrValidation, Fields: map[string]string{field: msg}}
}

func uniqueIDs(ids []ID) []ID {
	out := make([]ID, 0, len(ids))
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// FlowFieldKey is the Fields key of a node's message.
func FlowFieldKey(nodeID string) string { return "nodes." + nodeID }

// ValidateFlowGraph judges a graph: a known kind and valid fields on every node, one
// start, every way out of a node connected exactly once, every node reachable from
// the start, and no cycle that does not pass through a wait (a flow that could loop
// without the customer). It returns nil or ERR_FLOW_INVALID whose Fields hold the
// first problem found on each faulty node ("nodes.<id>") or the graph ("dataJson").
func ValidateFlowGraph(g FlowGraph) error {
	bad := map[string]string{}
	mark := func(id, msg string) {
		k := FlowFieldKey(id)
		if _, ok := bad[k]; !ok {
			bad[k] = msg
		}
	}
	fail := func() error {
		if len(bad) == 0 {
			return nil
		}
		return &Error{Code: ErrFlowInvalid, Fields: bad}
	}
	if len(g.Nodes) == 0 {
		bad["dataJson"] = FlowMsgNoStart
		return fail()
	}
	if len(g.Nodes) > FlowMaxNodes || len(g.Edges) > FlowMaxEdges {
		bad["dataJson"] = FlowMsgTooMany
		return fail()
	}
	byID := make(map[string]FlowNode, len(g.Nodes))
	starts := 0
	for _, n := range g.Nodes {
		if n.ID == "" || len(n.ID) > FlowMaxIDLength || !utf8.ValidString(n.ID) {
			bad["dataJson"] = FlowMsgMalformed
			return fail()
		}
		if _, dup := byID[n.ID]; dup {
			mark(n.ID, FlowMsgDuplicateID)
			continue
		}
		byID[n.ID] = n
		if n.Type == FlowStart {
			starts++
			if starts > 1 {
				mark(n.ID, FlowMsgManyStarts)
			}
		}
		if msg := validateFlowNode(n); msg != "" {
			mark(n.ID, msg)
		}
	}
	if starts == 0 {
		bad["dataJson"] = FlowMsgNoStart
	}
	// Edges: from a known handle of a known node to a known node, once per handle.
	out := map[string]map[string]string{} // node → handle → target
	for _, e := range g.Edges {
		src, ok := byID[e.Source]
		if !ok {
			bad["dataJson"] = FlowMsgBadEdge
			continue
		}
		if _, ok := byID[e.Target]; !ok {
			mark(e.Source, FlowMsgBadEdge)
			continue
		}
		h := edgeHandle(e)
		if !slices.Contains(FlowHandles(src), h) {
			mark(e.Source, FlowMsgBadHandle)
			continue
		}
		if out[e.Source] == nil {
			out[e.Source] = map[string]string{}
		}
		if _, twice := out[e.Source][h]; twice {
			mark(e.Source, FlowMsgTwoEdges)
			continue
		}
		out[e.Source][h] = e.Target
	}
	for _, n := range g.Nodes {
		for _, h := range FlowHandles(n) {
			if _, ok := out[n.ID][h]; !ok {
				mark(n.ID, FlowMsgMissingBranch)
				break
			}
		}
	}
	// Reachability from the start.
	if start := g.Start(); start != "" {
		seen := map[string]bool{start: true}
		stack := []string{start}
		for len(stack) > 0 {
			id := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, t := range out[id] {
				if !seen[t] {
					seen[t] = true
					stack = append(stack, t)
				}
			}
		}
		for _, n := range g.Nodes {
			if !seen[n.ID] {
				mark(n.ID, FlowMsgUnreachable)
			}
		}
	}
	// Cycles without a wait: the graph without the edges leaving wait nodes must be
	// acyclic. Every node on such a cycle is named.
	for _, id := range flowCycleNodes(g.Nodes, byID, out) {
		mark(id, FlowMsgCycle)
	}
	return fail()
}

// flowCycleNodes lists the nodes on a cycle of the graph whose wait nodes lead
// nowhere (the steps a flow could repeat without the customer), in node order.
func flowCycleNodes(nodes []FlowNode, byID map[string]FlowNode, out map[string]map[string]string) []string {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	onCycle := map[string]bool{}
	var path []string
	var visit func(id string)
	visit = func(id string) {
		color[id] = grey
		path = append(path, id)
		if byID[id].Type != FlowWait {
			// Visit in a fixed order so the result does not depend on map order.
			handles := FlowHandles(byID[id])
			for _, h := range handles {
				t, ok := out[id][h]
				if !ok {
					continue
				}
				switch color[t] {
				case white:
					visit(t)
				case grey:
					for i := len(path) - 1; i >= 0; i-- {
						onCycle[path[i]] = true
						if path[i] == t {
							break
						}
					}
				}
			}
		}
		path = path[:len(path)-1]
		color[id] = black
	}
	for _, n := range nodes {
		if color[n.ID] == white {
			visit(n.ID)
		}
	}
	var ids []string
	for _, n := range nodes {
		if onCycle[n.ID] {
			ids = append(ids, n.ID)
			delete(onCycle, n.ID)
		}
	}
	return ids
}

// validateFlowNode checks one node's fields; "" when they are right.
func validateFlowNode(n FlowNode) string {
	d := n.Data
	tooLong := func(s string) bool { return utf8.RuneCountInString(s) > FlowMaxText }
	switch n.Type {
	case FlowStart:
	case FlowMessage:
		switch {
		case strings.TrimSpace(d.Text) == "" && d.MediaURL == "":
			return FlowMsgRequired
		case tooLong(d.Text):
			return FlowMsgTooLong
		case len(d.Buttons) > FlowMaxButtons:
			return FlowMsgTooLong
		case d.MediaURL != "" && !validFlowURL(d.MediaURL):
			return FlowMsgBadURL
		}
		for _, b := range d.Buttons {
			if strings.TrimSpace(b) == "" {
				return FlowMsgRequired
			}
			if utf8.RuneCountInString(b) > 20 {
				return FlowMsgTooLong
			}
		}
	case FlowWait:
		if d.TimeoutSeconds < 1 || d.TimeoutSeconds > FlowMaxWait {
			return FlowMsgOutOfRange
		}
	case FlowBranch:
		if len(d.Rules) == 0 {
			return FlowMsgRequired
		}
		if len(d.Rules) > FlowMaxRules {
			return FlowMsgTooLong
		}
		ids := map[string]bool{FlowElse: true}
		for _, r := range d.Rules {
			if r.ID == "" || len(r.ID) > FlowMaxIDLength || ids[r.ID] {
				return FlowMsgDuplicateID
			}
			ids[r.ID] = true
			if strings.TrimSpace(r.Value) == "" {
				return FlowMsgRequired
			}
			switch r.Match {
			case FlowMatchKeywords:
				if tooLong(r.Value) {
					return FlowMsgTooLong
				}
			case FlowMatchRegex:
				if len(r.Value) > FlowMaxRegex {
					return FlowMsgTooLong
				}
				if _, err := regexp.Compile(r.Value); err != nil {
					return FlowMsgBadRegex
				}
			default:
				return FlowMsgUnknownKind
			}
		}
	case FlowTag:
		if d.TagID <= 0 {
			return FlowMsgRequired
		}
	case FlowQueue:
		if d.QueueID <= 0 {
			return FlowMsgRequired
		}
	case FlowTransfer:
		if d.UserID <= 0 {
			return FlowMsgRequired
		}
		if d.QueueID < 0 {
			return FlowMsgOutOfRange
		}
	case FlowHTTP:
		switch {
		case !validFlowURL(d.URL):
			return FlowMsgBadURL
		case d.Method != "" && d.Method != "GET" && d.Method != "POST":
			return FlowMsgBadMethod
		case d.TimeoutSeconds < 0 || d.TimeoutSeconds > FlowMaxHTTPWait:
			return FlowMsgOutOfRange
		case tooLong(d.Body):
			return FlowMsgTooLong
		}
	case FlowAsk:
		if tooLong(d.Text) {
			return FlowMsgTooLong
		}
	case FlowEnd:
		if tooLong(d.Text) {
			return FlowMsgTooLong
		}
	default:
		return FlowMsgUnknownKind
	}
	return ""
}

// validFlowURL reports an absolute http or https URL with a host and no user info.
func validFlowURL(s string) bool {
	if len(s) > 2048 || strings.TrimSpace(s) != s {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return false
	}
	return u.Hostname() != ""
}
