package actors

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"atende/actors/wire"
)

// Every node runs one local actor under a fixed name that answers what the node
// is: its version, its readiness (the check /readyz runs) and the virtual actors it
// hosts per kind. GET /cluster asks each member's for the cluster view of /Support:
// one request per member over the actor remote, so a member that does not answer
// in time is shown unreachable rather than holding the answer.

// nodeInfoName is the process name of the node-info actor on every node.
const nodeInfoName = "atende-nodeinfo"

// cmdNodeInfo is the command the node-info actor answers.
const cmdNodeInfo = "node.info"

// NodeInfo is what a node says about itself.
type NodeInfo struct {
	ID      string         `json:"id"`
	Address string         `json:"address"`
	Version string         `json:"version"`
	Ready   bool           `json:"ready"`
	Actors  map[string]int `json:"actors"`
}

// MemberInfo is one member of the cluster with what it answered. State is
// "alive", "not ready" (it answered, its readiness check fails) or "unreachable".
type MemberInfo struct {
	ID      string
	Address string
	Self    bool
	State   string
	Info    NodeInfo
}

// Member states of MemberInfo.
const (
	MemberAlive       = "alive"
	MemberNotReady    = "not ready"
	MemberUnreachable = "unreachable"
)

// ServeNodeInfo starts this node's node-info actor. ready is the node's readiness
// check (nil: always ready); it runs on the actor with a 2 s deadline.
func (n *Node) ServeNodeInfo(version string, ready func(ctx context.Context) error) error {
	props := actor.PropsFromFunc(func(c actor.Context) {
		cmd, ok := c.Message().(*wire.Command)
		if !ok || cmd.Type != cmdNodeInfo {
			return
		}
		info := NodeInfo{ID: n.System.ID, Address: n.System.Address(), Version: version, Ready: true, Actors: n.ActorCounts()}
		if ready != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			info.Ready = ready(ctx) == nil
			cancel()
		}
		body, err := json.Marshal(info)
		if err != nil {
			c.Respond(ErrorReply(err))
			return
		}
		c.Respond(&wire.Reply{Payload: body})
	})
	if _, err := n.System.Root.SpawnNamed(props, nodeInfoName); err != nil {
		return fmt.Errorf("start node-info actor: %w", err)
	}
	return nil
}

// ActorCounts is the virtual actors hosted on this node, per kind.
func (n *Node) ActorCounts() map[string]int {
	out := map[string]int{}
	for _, kind := range n.Cluster.GetClusterKinds() {
		if k, ok := n.Cluster.TryGetClusterKind(kind); ok {
			out[kind] = int(k.Count())
		}
	}
	return out
}

// Members asks every member of the cluster's current topology for its NodeInfo,
// all at once, each waiting at most timeout, and answers them sorted by id.
func (n *Node) Members(timeout time.Duration) []MemberInfo {
	members := n.Cluster.MemberList.Members().Members()
	self := n.System.Address()
	type pending struct {
		m   MemberInfo
		fut *actor.Future
	}
	asks := make([]pending, 0, len(members))
	for _, m := range members {
		addr := m.Address()
		mi := MemberInfo{ID: m.Id, Address: addr, Self: addr == self}
		fut := n.System.Root.RequestFuture(actor.NewPID(addr, nodeInfoName), &wire.Command{Type: cmdNodeInfo}, timeout)
		asks = append(asks, pending{mi, fut})
	}
	out := make([]MemberInfo, 0, len(asks))
	for _, a := range asks {
		a.m.State = MemberUnreachable
		if res, err := a.fut.Result(); err == nil {
			if r, ok := res.(*wire.Reply); ok {
				if body, err := ReplyResult(r); err == nil && json.Unmarshal(body, &a.m.Info) == nil {
					a.m.State = MemberAlive
					if !a.m.Info.Ready {
						a.m.State = MemberNotReady
					}
				}
			}
		}
		out = append(out, a.m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
