package cluster

import (
	"strings"
	"time"

	pcluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/hashicorp/memberlist"
)

// evictPrefix starts the gossip message a node sends to a member it removed that came
// back: "<evictPrefix><actor system id>".
const evictPrefix = "atende-evicted:"

// events receives memberlist's membership callbacks. They run on memberlist's own
// goroutines, some holding its locks: they only flag that something changed.
type events struct{ p *Provider }

func (e *events) NotifyJoin(*memberlist.Node)   { e.p.signal() }
func (e *events) NotifyLeave(*memberlist.Node)  { e.p.signal() }
func (e *events) NotifyUpdate(*memberlist.Node) { e.p.signal() }

// delegate gives memberlist this node's metadata and receives eviction notices.
type delegate struct {
	p    *Provider // static
	meta []byte    // static: encoded nodeMeta
}

func (d *delegate) NodeMeta(int) []byte { return d.meta }

// NotifyMsg runs on memberlist's packet loop: it must not block.
func (d *delegate) NotifyMsg(b []byte) {
	if id, ok := strings.CutPrefix(string(b), evictPrefix); ok {
		d.p.onEvictNotice(id)
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

// publish reads memberlist's live nodes and hands the actor cluster the full list.
func (p *Provider) publish() {
	p.mu.Lock()
	ml, cl := p.ml, p.cl
	p.mu.Unlock()
	if ml == nil || cl == nil {
		return
	}
	found, bad := membersFromNodes(cl.Config.Name, ml.Members())
	for _, r := range bad {
		p.log.Warn().Str("gossip_node", r.node).Str("reason", r.reason).Msg("gossip node left out of the topology")
	}
	ch := p.track(found)
	if len(ch.joined)+len(ch.left) > 0 {
		p.log.Info().Strs("joined", ch.joined).Strs("left", ch.left).Int("members", len(ch.members)).Msg("cluster topology changed")
	}
	p.metrics.observe(ch)

	proto := make(pcluster.Members, len(ch.members))
	for i, m := range ch.members {
		proto[i] = &pcluster.Member{Id: m.ID, Host: m.Host, Port: int32(m.Port), Kinds: m.Kinds}
	}
	cl.MemberList.UpdateClusterTopology(proto)

	for _, m := range ch.returned {
		p.log.Error().Str("member_id", m.ID).Str("gossip_node", m.Node).
			Msg("a removed member is alive again; it cannot rejoin with the same id: telling it to restart")
		for _, n := range ml.Members() {
			if n.Name == m.Node {
				if err := ml.SendReliable(n, []byte(evictPrefix+m.ID)); err != nil {
					p.log.Warn().Err(err).Str("gossip_node", m.Node).Msg("eviction notice not delivered")
				}
			}
		}
	}
}

// change is what one publish changed.
type change struct {
	members  []Member // the topology published
	joined   []string // ids new in it
	left     []string // ids gone from it
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
		}
	}
	p.published = ch.members
	return ch
}

// onEvictNotice handles a peer's report that it removed the member id.
func (p *Provider) onEvictNotice(id string) {
	p.mu.Lock()
	self := p.self.ID
	p.mu.Unlock()
	if id == "" || id != self {
		return
	}
	p.evictOnce.Do(func() {
		p.metrics.evicted.Set(1)
		p.log.Error().Str("member_id", id).Msg("another node removed this member from the cluster: restart the process")
		close(p.evicted)
	})
}
