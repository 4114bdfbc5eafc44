package call

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/transport/socket"
)

// Client events of the relay.
const (
	EventJoin   = "call.join"
	EventSignal = "call.signal"
	// EventCall is the server's event to a party.
	EventCall = "call"
)

// ICEServer is one STUN or TURN server as RTCPeerConnection takes it.
type ICEServer struct {
	URLs       []string `json:"urls"`
	Username   string   `json:"username,omitempty"`
	Credential string   `json:"credential,omitempty"`
}

// Bus carries relay messages to every node, this one's included (a Redis topic in
// a cluster). Delivery may be at most once: a lost message is a lost candidate or
// hold, which WebRTC and the UI survive, or a lost offer, which the attendant's
// window sends again on the next join.
type Bus interface {
	Publish(ctx context.Context, payload []byte) error
}

// Config configures a Relay.
type Config struct {
	Tokens *Tokens // required
	// ICEServers are handed to both parties at join; none: host candidates only,
	// enough on one network (LAN).
	ICEServers []ICEServer
	// Bus, in a cluster, carries every relay message to every node, whose Deliver
	// hands it on; nil: one node, delivered in process.
	Bus Bus
	// Node names this process on the bus (for the logs); empty: "local".
	Node   string
	Logger zerolog.Logger
}

// Relay passes signals between the parties of each call (socket.EventHandler).
type Relay struct {
	// static after construction
	cfg Config
	ice json.RawMessage

	mu    sync.Mutex
	calls map[string]map[string]*member // guarded by mu: call id → peer id → member on this node
	peers map[string]string             // guarded by mu: peer id → the call it joined
}

// member is a socket of this node in a call.
type member struct {
	party  Party
	role   Role
	tenant int64
}

// Party is one socket taking part in calls, as the relay sees it: a gateway socket
// (socket.Peer, adapted by HandleEvent and Closed) or a web chat widget socket
// (package webchat, through JoinCustomer, Signal and Leave). The relay's rules —
// only the two parties of a call hear each other, a second socket of a party
// replaces the first, a party whose socket ends is "gone" to the other — are the
// same whatever the party's transport.
type Party interface {
	// ID names the socket among every party of this node's relay, across
	// transports (webchat's ids start with "webchat:", which no gateway sid does).
	ID() string
	// SendCall queues one relay frame ({"callId","type","from",…}, the gateway's
	// "call" event payload) to this socket alone; it never blocks. It reports
	// whether the frame was queued.
	SendCall(frame json.RawMessage) bool
}

// gatewayParty is a gateway socket as a Party: its frames are "call" events.
type gatewayParty struct{ socket.Peer }

func (g gatewayParty) SendCall(frame json.RawMessage) bool { return g.Emit(EventCall, frame) }

// NewRelay returns a Relay for cfg.
func NewRelay(cfg Config) (*Relay, error) {
	if cfg.Tokens == nil {
		return nil, errors.New("call relay: Tokens is required")
	}
	if cfg.Node == "" {
		cfg.Node = "local"
	}
	servers := cfg.ICEServers
	if servers == nil {
		servers = []ICEServer{}
	}
	ice, err := json.Marshal(servers)
	if err != nil {
		return nil, fmt.Errorf("call relay: ice servers: %w", err)
	}
	return &Relay{cfg: cfg, ice: ice, calls: map[string]map[string]*member{}, peers: map[string]string{}}, nil
}

// Handles reports whether name is a relay event.
func (r *Relay) Handles(name string) bool { return name == EventJoin || name == EventSignal }

// HandleEvent serves call.join and call.signal.
func (r *Relay) HandleEvent(ctx context.Context, p socket.Peer, name string, args []json.RawMessage) (json.RawMessage, error) {
	switch name {
	case EventJoin:
		return r.join(ctx, p, args)
	case EventSignal:
		if len(args) != 1 {
			return nil, engine.E(engine.ErrValidation)
		}
		s, err := ParseSignal(args[0])
		if err != nil {
			return nil, err
		}
		return nil, r.signal(ctx, gatewayParty{p}, s)
	}
	return nil, engine.E(engine.ErrValidation)
}

// join puts p in its call: a guest in the call its principal names (as customer),
// a member of staff in the call of the attendant token it sends, which must be
// its tenant's (else ERR_NOT_FOUND) and its own (else ERR_NO_PERMISSION).
func (r *Relay) join(ctx context.Context, p socket.Peer, args []json.RawMessage) (json.RawMessage, error) {
	pr := p.Principal()
	var call string
	var role Role
	if pr.Guest() {
		if len(args) > 1 || (len(args) == 1 && !emptyObject(args[0])) {
			return nil, engine.E(engine.ErrValidation)
		}
		call, role = pr.Call, Customer
	} else {
		if len(args) != 1 {
			return nil, engine.E(engine.ErrValidation)
		}
		tok, err := joinToken(args[0])
		if err != nil {
			return nil, err
		}
		c, err := r.cfg.Tokens.Verify(tok)
		switch {
		case err != nil && c.Tenant != 0 && c.Tenant != pr.CompanyID: // an expired call of another tenant
			return nil, engine.E(engine.ErrNotFound)
		case err != nil:
			return nil, tokenCode(err)
		case c.Tenant != pr.CompanyID:
			return nil, engine.E(engine.ErrNotFound)
		case c.Role != Attendant || c.User != pr.UserID:
			return nil, engine.E(engine.ErrNoPermission)
		}
		call, role = c.Call, Attendant
	}
	j, err := r.enter(ctx, gatewayParty{p}, call, role, pr.CompanyID)
	if err != nil {
		return nil, err
	}
	ack, _ := json.Marshal(struct {
		OK bool `json:"ok"`
		Joined
	}{true, j})
	return ack, nil
}

// Joined is what a party learns when it joins: its call, its role and the ICE
// servers (the gateway's call.join ack, the web chat's call.joined frame).
type Joined struct {
	CallID     string          `json:"callId"`
	Role       Role            `json:"role"`
	ICEServers json.RawMessage `json:"iceServers"`
}

// enter puts p in call as role of tenant — leaving any other call p was in — and
// tells every node, whose deliver replaces the same role's other sockets and
// introduces the two parties to each other.
func (r *Relay) enter(ctx context.Context, p Party, call string, role Role, tenant int64) (Joined, error) {
	r.mu.Lock()
	if old, ok := r.peers[p.ID()]; ok && old != call {
		r.removeLocked(old, p.ID())
	}
	m := r.calls[call]
	if m == nil {
		m = map[string]*member{}
		r.calls[call] = m
	}
	m[p.ID()] = &member{party: p, role: role, tenant: tenant}
	r.peers[p.ID()] = call
	r.mu.Unlock()
	if err := r.publish(ctx, wire{Kind: kindJoin, Call: call, Tenant: tenant, Role: role, Peer: p.ID()}); err != nil {
		return Joined{}, err
	}
	return Joined{CallID: call, Role: role, ICEServers: r.ice}, nil
}

// JoinCustomer puts p in the call that customer token tok names, as its customer:
// the web chat's call.join. The token is verified as the gateway verifies a
// guest's (Tokens.Verify: ERR_INVALID_TOKEN for anything not a customer token
// signed by this relay's Tokens, ERR_SESSION_EXPIRED once expired); then allow,
// the transport's own check of the claims (the web chat's: the call is of its
// connection's tenant and of the visitor's ticket), may refuse with its error. An
// expired token is first shown to allow, so that another tenant's expired call
// answers as allow says (ERR_NOT_FOUND) rather than revealing it expired.
func (r *Relay) JoinCustomer(ctx context.Context, p Party, tok string, allow func(Claims) error) (Joined, error) {
	c, err := r.cfg.Tokens.Verify(tok)
	switch {
	case err != nil && c.Tenant != 0:
		if aerr := allow(c); aerr != nil {
			return Joined{}, aerr
		}
		return Joined{}, tokenCode(err)
	case err != nil:
		return Joined{}, tokenCode(err)
	case c.Role != Customer:
		return Joined{}, engine.E(engine.ErrInvalidToken)
	}
	if err := allow(c); err != nil {
		return Joined{}, err
	}
	return r.enter(ctx, p, c.Call, Customer, c.Tenant)
}

// Signal relays s from p to the other party of its call (the web chat's
// call.signal): ERR_NOT_FOUND unless p joined s's call.
func (r *Relay) Signal(ctx context.Context, p Party, s Signal) error { return r.signal(ctx, p, s) }

// joinToken reads call.join's {"token":"…"}.
func joinToken(raw json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var b struct {
		Token *string `json:"token"`
	}
	if len(raw) > maxToken+64 {
		return "", engine.E(engine.ErrBodyTooLarge)
	}
	if err := dec.Decode(&b); err != nil || b.Token == nil {
		return "", engine.E(engine.ErrValidation)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", engine.E(engine.ErrValidation)
	}
	return *b.Token, nil
}

func emptyObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil && len(m) == 0
}

// signal relays s from p to the other party of s's call, which p must have joined
// (ERR_NOT_FOUND otherwise: a call id p does not hold names nothing it may reach).
func (r *Relay) signal(ctx context.Context, p Party, s Signal) error {
	r.mu.Lock()
	me := r.calls[s.CallID][p.ID()]
	if me == nil {
		r.mu.Unlock()
		return engine.E(engine.ErrNotFound)
	}
	role, tenant := me.role, me.tenant
	if s.Type == TypeEnd { // an ended party is not "gone" when its socket closes
		r.removeLocked(s.CallID, p.ID())
	}
	r.mu.Unlock()
	frame, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("call relay: encode signal: %w", err)
	}
	return r.publish(ctx, wire{Kind: kindSignal, Call: s.CallID, Tenant: tenant, Role: role, Peer: p.ID(), Frame: frame})
}

// Closed takes the gateway socket p out of its call (socket.EventHandler).
func (r *Relay) Closed(p socket.Peer) { r.Leave(gatewayParty{p}) }

// Leave takes p out of its call, if any, and tells the other party it is gone: a
// party's socket ended (without an end). Safe to call for a party in no call.
func (r *Relay) Leave(p Party) {
	r.mu.Lock()
	call, ok := r.peers[p.ID()]
	var me *member
	if ok {
		me = r.calls[call][p.ID()]
		r.removeLocked(call, p.ID())
	}
	r.mu.Unlock()
	if me == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closedTimeout)
	defer cancel()
	if err := r.publish(ctx, wire{Kind: kindGone, Call: call, Tenant: me.tenant, Role: me.role, Peer: p.ID()}); err != nil {
		r.cfg.Logger.Warn().Err(err).Str("call", call).Msg("tell the other party of a call its peer is gone")
	}
}

// removeLocked takes peer out of call. Caller holds mu.
func (r *Relay) removeLocked(call, peer string) {
	if m := r.calls[call]; m != nil {
		delete(m, peer)
		if len(m) == 0 {
			delete(r.calls, call)
		}
	}
	if r.peers[peer] == call {
		delete(r.peers, peer)
	}
}

// publish hands w to every node (Bus) or to this one.
func (r *Relay) publish(ctx context.Context, w wire) error {
	if r.cfg.Bus == nil {
		r.deliver(w)
		return nil
	}
	b, err := marshalWire(w)
	if err != nil {
		return err
	}
	if err := r.cfg.Bus.Publish(ctx, b); err != nil {
		return engine.Wrap(engine.ErrUnavailable, err)
	}
	return nil
}

// Deliver hands a message of the bus to this node's parties. Malformed messages
// are dropped (logged).
func (r *Relay) Deliver(payload []byte) {
	w, err := unmarshalWire(payload)
	if err != nil {
		r.cfg.Logger.Warn().Err(err).Msg("ignoring malformed call relay message")
		return
	}
	r.deliver(w)
}

// deliver runs w on this node: a signal or a departure reaches the members of the
// other role; a join reaches them as "joined", makes each of them answer "joined"
// to the newcomer (so each party learns of the other whichever joined first), and
// replaces this node's other sockets of the newcomer's role; a "here" reaches only
// the peer it names.
func (r *Relay) deliver(w wire) {
	type out struct {
		party Party
		frame json.RawMessage
	}
	var outs []out
	var here []wire
	r.mu.Lock()
	for id, m := range r.calls[w.Call] {
		if m.tenant != w.Tenant || id == w.Peer {
			continue
		}
		switch {
		case w.Kind == kindHere:
			if id == w.To {
				outs = append(outs, out{m.party, event(w.Call, TypeJoined, w.Role)})
			}
		case m.role == w.Role:
			if w.Kind == kindJoin {
				r.removeLocked(w.Call, id)
				outs = append(outs, out{m.party, event(w.Call, TypeReplaced, w.Role)})
			}
		case w.Kind == kindJoin:
			outs = append(outs, out{m.party, event(w.Call, TypeJoined, w.Role)})
			here = append(here, wire{Kind: kindHere, Call: w.Call, Tenant: w.Tenant, Role: m.role, Peer: id, To: w.Peer})
		case w.Kind == kindGone:
			outs = append(outs, out{m.party, event(w.Call, TypeGone, w.Role)})
		case w.Kind == kindSignal:
			outs = append(outs, out{m.party, withFrom(w.Frame, w.Role)})
		}
	}
	r.mu.Unlock()
	for _, o := range outs {
		o.party.SendCall(o.frame)
	}
	for _, h := range here {
		ctx, cancel := context.WithTimeout(context.Background(), closedTimeout)
		if err := r.publish(ctx, h); err != nil {
			r.cfg.Logger.Warn().Err(err).Str("call", h.Call).Msg("answer a call join")
		}
		cancel()
	}
}

// event builds a relay-made frame about role.
func event(call, typ string, from Role) json.RawMessage {
	b, _ := json.Marshal(struct {
		CallID string `json:"callId"`
		Type   string `json:"type"`
		From   Role   `json:"from"`
	}{call, typ, from})
	return b
}

// withFrom adds "from" to a signal frame (an object encoded by signal).
func withFrom(frame json.RawMessage, from Role) json.RawMessage {
	b := make([]byte, 0, len(frame)+24)
	b = append(b, frame[:len(frame)-1]...)
	b = append(b, `,"from":"`...)
	b = append(b, from...)
	return append(b, '"', '}')
}

// Members counts the sockets of call on this node (for tests and metrics).
func (r *Relay) Members(call string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls[call])
}
