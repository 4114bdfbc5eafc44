package node

import (
	"context"
	"time"

	httpapi "atende/transport/http"
)

// clusterAskTimeout bounds how long GET /cluster waits for each member's answer.
const clusterAskTimeout = 2 * time.Second

// readyCheck is what /readyz checks and what each node reports to GET /cluster.
func (n *Node) readyCheck(ctx context.Context) error { return n.db.SQL.PingContext(ctx) }

// clusterView is GET /cluster: every member of the actor cluster, asked for its
// version, readiness and actor counts (actors.Node.Members). On a single node the
// membership is this node alone.
func (n *Node) clusterView(context.Context) (httpapi.ClusterView, error) {
	nd := n.live.node
	v := httpapi.ClusterView{Mode: "single", Node: nd.System.ID}
	names := map[string]string{}
	if n.gossip != nil {
		v.Mode = "cluster"
		for _, m := range n.gossip.Members() {
			names[m.ID] = m.Node
		}
	}
	for _, m := range nd.Members(clusterAskTimeout) {
		cm := httpapi.ClusterMember{ID: m.ID, Node: names[m.ID], Address: m.Address, State: m.State, Self: m.Self,
			Version: m.Info.Version, Actors: m.Info.Actors}
		if cm.Actors == nil {
			cm.Actors = map[string]int{}
		}
		v.Members = append(v.Members, cm)
	}
	return v, nil
}

// serveNodeInfo starts this node's answer to the others' GET /cluster.
func (n *Node) serveNodeInfo() error {
	return n.live.node.ServeNodeInfo(n.cfg.Version, n.readyCheck)
}
