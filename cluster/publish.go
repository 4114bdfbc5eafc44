package cluster

import (
	"encoding/json"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	pcluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/hashicorp/memberlist"
)

// evictPrefix starts the gossip message a node sends to a member it removed that came
// back: evictPrefix + the JSON of an evictNotice (a bare "<evictPrefix><target id>"
// from older nodes).
const evictPrefix = "atende-evicted:"

// evictNotice is the message a node sends to a member it removed that came back.
type evictNotice struct {
	Target string   `json:"t"`           // the member told to restart
	From   string   `json:"f,omitempty"` // the sender's member id; "" in the bare form
	Node   string   `json:"n,omitempty"` // the sender's gossip node name, for a reply
	Addr   string   `json:"a,omitempty"` // the sender's gossip host:port, for a reply
	View   []string `json:"v,omitempty"` // the member ids of the sender's topology
}

func (n evictNotice) encode() []byte {
	b, _ := json.Marshal(n)
	return append([]byte(evictPrefix), b...)
}

func parseEvictNotice(b []byte) (evictNotice, bool) {
	rest, ok := strings.CutPrefix(string(b), evictPrefix)
	if !ok || rest == "" {
		return evictNotice{}, false
	}
	if rest[0] != '{' {
		return evictNotice{Target: rest}, true
	}
	var n evictNotice
	if json.Unmarshal([]byte(rest), &n) != nil || n.Target == "" || n.From == "" {
		return evictNotice{}, false
	}
	return n, true
}

// events receives memberlist's membership callbacks. They run on memberlist's own
// goroutines holding its node lock: they copy the node (the only moment its fields
// can be read safely) and flag that something changed.
type events struct{ p *Provider }

func (e *events) NotifyJoin(n *memberlist.Node)   { e.p.noteNode(n); e.p.signal() }
func (e *events) NotifyUpdate(n *memberlist.Node) { e.p.noteNode(n); e.p.signal() }
func (e *events) NotifyLeave(n *memberlist.Node)  { e.p.forgetNode(n.Name); e.p.signal() }

// noteNode records a copy of a live gossip node.
func (p *Provider) noteNode(n *memberlist.Node) {
	c := *n
	c.Addr, c.Meta = slices.Clone(n.Addr), slices.Clone(n.Meta)
	p.gossipMu.Lock()
	p.gossip[n.Name] = c
	p.gossipMu.Unlock()
}

// forgetNode drops a gossip node that died or left.
func (p *Provider) forgetNode(name string) {
	p.gossipMu.Lock()
	delete(p.gossip, name)
	p.gossipMu.Unlock()
}

// departPrefix starts the gossip message a member sends every other one just before
// it leaves gracefully: departPrefix + its member id. (memberlist's leave callback does
// not say whether a node left or was declared dead.)
const departPrefix = "atende-departing:"

// maxMemberIDLen bounds a member id read from a departure notice (protoactor's ids
// are 22 characters).
const maxMemberIDLen = 64

// noteDeparting records that member id announced a graceful departure.
func (p *Provider) noteDeparting(id string) {
	p.gossipMu.Lock()
	p.departed[id] = struct{}{}
	p.gossipMu.Unlock()
}

// leftGracefully reports whether member id announced its departure.
func (p *Provider) leftGracefully(id string) bool {
	p.gossipMu.Lock()
	defer p.gossipMu.Unlock()
	_, ok := p.departed[id]
	return ok
}

// announceDeparture tells every other gossip node, over TCP, that this member is about
// to leave gracefully. A node the notice misses counts the departure as a death: the
// safe side, as it then fences off this member's last appends rather than trusting them.
func (p *Provider) announceDeparture(ml *memberlist.Memberlist) {
	msg := []byte(departPrefix + p.selfID())
	for _, n := range p.gossipNodes() {
		if n.Name == p.cfg.NodeName {
			continue
		}
		if err := ml.SendReliable(&n, msg); err != nil {
			p.log.Warn().Err(err).Str("gossip_node", n.Name).Msg("departure notice not delivered")
		}
	}
}

// gossipNodes is the copy of every live gossip node, this one included.
func (p *Provider) gossipNodes() []memberlist.Node {
	p.gossipMu.Lock()
	defer p.gossipMu.Unlock()
	out := make([]memberlist.Node, 0, len(p.gossip))
	for _, n := range p.gossip {
		out = append(out, n)
	}
	return out
}

// gossipNode is the copy of the live gossip node name (its zero value when unknown).
func (p *Provider) gossipNode(name string) memberlist.Node {
	p.gossipMu.Lock()
	defer p.gossipMu.Unlock()
	return p.gossip[name]
}

// delegate gives memberlist this node's metadata and receives eviction notices.
type delegate struct {
	p    *Provider // static
	meta []byte    // static: encoded nodeMeta
}

func (d *delegate) NodeMeta(int) []byte { return d.meta }

// NotifyMsg runs on memberlist's packet loop: it must not block.
func (d *delegate) NotifyMsg(b []byte) {
	if n, ok := parseEvictNotice(b); ok {
		d.p.onEvictNotice(n)
		return
	}
	if id, ok := strings.CutPrefix(string(b), departPrefix); ok && id != "" && len(id) <= maxMemberIDLen {
		d.p.noteDeparting(id)
	}
}

func (d *delegate) GetBroadcasts(int, int) [][]byte { return nil }
func (d *delegate) LocalState(bool) []byte          { return nil }
func (d *delegate) MergeRemoteState([]byte, bool)   {}

// signal flags a membership change without ever blocking.
func (p *Provider) signal() {
	select {
	case p.changed <- struct{}{}:
	default: // one is already pending; the publish it triggers will see this change too
	}
}

// loop publishes the topology after each burst of membership events, Debounce after
// the first event of the burst, until Shutdown.
func (p *Provider) loop() {
	for {
		select {
		case <-p.stop:
			return
		case <-p.changed:
		}
		t := time.NewTimer(p.cfg.Debounce)
		select {
		case <-p.stop:
			t.Stop()
			return
		case <-t.C:
		}
		p.publish()
	}
}

// publish reads the live gossip nodes and hands the actor cluster the full list.
func (p *Provider) publish() {
	p.mu.Lock()
	ml, cl := p.ml, p.cl
	p.mu.Unlock()
	if ml == nil || cl == nil {
		return
	}
	found, bad := membersFromNodes(cl.Config.Name, p.gossipNodes())
	for _, r := range bad {
		p.log.Warn().Str("gossip_node", r.node).Str("reason", r.reason).Msg("gossip node left out of the topology")
	}
	ch := p.track(found)
	if len(ch.joined)+len(ch.left) > 0 {
		p.log.Info().Strs("joined", ch.joined).Strs("left", ch.left).Int("members", len(ch.members)).Msg("cluster topology changed")
	}
	p.metrics.observe(ch)
	if p.cfg.OnDead != nil && len(ch.dead) > 0 {
		p.cfg.OnDead(ch.dead)
	}

	proto := make(pcluster.Members, len(ch.members))
	for i, m := range ch.members {
		proto[i] = &pcluster.Member{Id: m.ID, Host: m.Host, Port: int32(m.Port), Kinds: m.Kinds}
	}
	cl.MemberList.UpdateClusterTopology(proto)
	p.mu.Lock()
	p.handed = ch.members
	p.mu.Unlock()

	for _, m := range ch.returned {
		p.log.Error().Str("member_id", m.ID).Str("gossip_node", m.Node).
			Msg("a removed member is alive again; it cannot rejoin with the same id: telling it to restart")
		p.sendNotice(ml, m.ID, m.Node, "", memberIDs(ch.members))
	}
}

// sendNotice tells member target (gossip node name node, at addr when memberlist
// no longer lists it as alive) to restart, with this node's topology view.
func (p *Provider) sendNotice(ml *memberlist.Memberlist, target, node, addr string, view []string) {
	n := evictNotice{Target: target, From: p.selfID(), Node: p.cfg.NodeName, Addr: p.LocalAddr(), View: view}
	var to *memberlist.Node
	if m := p.gossipNode(node); m.Name != "" {
		to = &m
	}
	if to == nil && addr != "" {
		host, port, err := net.SplitHostPort(addr)
		ip := net.ParseIP(host)
		pn, perr := strconv.Atoi(port)
		if err == nil && ip != nil && perr == nil && pn > 0 && pn <= 65535 {
			to = &memberlist.Node{Name: node, Addr: ip, Port: uint16(pn)}
		}
	}
	if to == nil {
		p.log.Warn().Str("gossip_node", node).Msg("eviction notice not sent: node unknown")
		return
	}
	if err := ml.SendReliable(to, n.encode()); err != nil {
		p.log.Warn().Err(err).Str("gossip_node", node).Msg("eviction notice not delivered")
	}
}

// change is what one publish changed.
type change struct {
	members  []Member // the topology published
	joined   []string // ids new in it
	left     []string // ids gone from it
	dead     []string // those of left that did not leave gracefully: declared dead
	returned []Member // removed earlier, alive again: left out and told to restart
}

// track compares found with the last published topology and records the result.
// A member that was removed is never published again (protoactor blocked its id).
func (p *Provider) track(found []Member) change {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ch change
	prev := map[string]bool{}
	for _, m := range p.published {
		prev[m.ID] = true
	}
	now := map[string]bool{}
	for _, m := range found {
		if _, gone := p.removed[m.ID]; gone {
			if _, done := p.told[m.ID]; !done {
				p.told[m.ID] = struct{}{}
				ch.returned = append(ch.returned, m)
			}
			continue
		}
		now[m.ID] = true
		ch.members = append(ch.members, m)
		if !prev[m.ID] {
			ch.joined = append(ch.joined, m.ID)
		}
	}
	for _, m := range p.published {
		if !now[m.ID] {
			ch.left = append(ch.left, m.ID)
			p.removed[m.ID] = struct{}{}
			if !p.leftGracefully(m.ID) {
				ch.dead = append(ch.dead, m.ID)
			}
		}
	}
	p.published = ch.members
	return ch
}

func (p *Provider) selfID() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.self.ID
}

// onEvictNotice handles a peer's report that it removed this member. Every node
// that removed a member still alive tells it so, so after a network split heals
// both sides tell each other; a node frozen for seconds is told by the others. The
// side in the majority of the two views stays — the sender's topology against the
// union of both, a tie going to the side with the smallest member id: a receiver
// in the minority restarts (Evicted closes), one in the majority stays and answers
// with its own view, so that the sender compares in turn. A node cut off alone thus
// does not take the others down with it.
func (p *Provider) onEvictNotice(n evictNotice) {
	p.mu.Lock()
	self, ml := p.self.ID, p.ml
	own := memberIDs(p.published)
	_, answered := p.told[n.From]
	if n.From != "" {
		p.told[n.From] = struct{}{}
	}
	p.mu.Unlock()
	if n.Target == "" || n.Target != self {
		return
	}
	if n.From != "" && !senderWins(n.View, own) {
		p.log.Warn().Str("from", n.From).Strs("their_view", n.View).Strs("our_view", own).
			Msg("a member asks this node to restart, but this node's side is the larger: staying, and telling it")
		if !answered && ml != nil && n.Node != "" {
			// A TCP send: off memberlist's packet loop, which must not block.
			p.routines.Go(func() { p.sendNotice(ml, n.From, n.Node, n.Addr, own) })
		}
		return
	}
	p.evictOnce.Do(func() {
		p.metrics.evicted.Set(1)
		p.log.Error().Str("member_id", self).Str("from", n.From).Strs("their_view", n.View).
			Msg("another node removed this member from the cluster: restart the process")
		close(p.evicted)
	})
}

// senderWins reports whether the sender's view is the majority of both views
// together (a tie: whether it holds the smallest id of them).
func senderWins(theirs, ours []string) bool {
	union := map[string]bool{}
	low := ""
	for _, v := range [][]string{theirs, ours} {
		for _, id := range v {
			union[id] = true
			if low == "" || id < low {
				low = id
			}
		}
	}
	in := map[string]bool{}
	for _, id := range theirs {
		in[id] = true
	}
	switch {
	case 2*len(in) > len(union):
		return true
	case 2*len(in) == len(union):
		return in[low]
	}
	return false
}
