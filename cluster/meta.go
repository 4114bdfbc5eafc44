package cluster

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/memberlist"
)

// nodeMeta is what a node tells the others about itself, carried in memberlist's
// node metadata (at most memberlist.MetaMaxSize bytes of JSON).
type nodeMeta struct {
	Cluster string   `json:"c"`            // protoactor cluster name; others are ignored
	ID      string   `json:"id"`           // actor system id = protoactor member id
	Host    string   `json:"h"`            // actor remote host other nodes dial
	Port    int      `json:"p"`            // actor remote port
	Kinds   []string `json:"k"`            // virtual actor kinds hosted, sorted
	Client  bool     `json:"cl,omitempty"` // a cluster client: hosts nothing, not a member
}

func (m nodeMeta) encode() ([]byte, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode node metadata: %w", err)
	}
	if len(b) > memberlist.MetaMaxSize {
		return nil, fmt.Errorf("node metadata is %d bytes, over memberlist's %d (fewer or shorter kinds)", len(b), memberlist.MetaMaxSize)
	}
	return b, nil
}

func decodeMeta(b []byte) (nodeMeta, error) {
	var m nodeMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("decode node metadata: %w", err)
	}
	if m.ID == "" || m.Host == "" || m.Port <= 0 || m.Port > 65535 {
		return m, fmt.Errorf("incomplete node metadata %q", b)
	}
	return m, nil
}

// Member is one member of the actor cluster as this node last published it.
type Member struct {
	ID    string   // actor system id
	Node  string   // gossip node name
	Host  string   // actor remote host
	Port  int      // actor remote port
	Kinds []string // hosted kinds
}

// Address is the member's actor address, host:port.
func (m Member) Address() string { return joinHostPort(m.Host, m.Port) }

// rejected is a gossip node left out of the topology, with why.
type rejected struct {
	node   string
	reason string
}

// membersFromNodes turns the live gossip nodes into the actor cluster's members:
// nodes of this cluster that host actors, sorted by id. Clients, other clusters and
// nodes with unreadable metadata are left out (the latter two reported).
func membersFromNodes(clusterName string, nodes []memberlist.Node) ([]Member, []rejected) {
	members := make([]Member, 0, len(nodes))
	var bad []rejected
	seen := map[string]bool{}
	for _, n := range nodes {
		m, err := decodeMeta(n.Meta)
		switch {
		case err != nil:
			bad = append(bad, rejected{node: n.Name, reason: err.Error()})
			continue
		case m.Cluster != clusterName:
			bad = append(bad, rejected{node: n.Name, reason: fmt.Sprintf("cluster %q, not %q", m.Cluster, clusterName)})
			continue
		case m.Client:
			continue
		case seen[m.ID]:
			bad = append(bad, rejected{node: n.Name, reason: "duplicate actor system id " + m.ID})
			continue
		}
		seen[m.ID] = true
		members = append(members, Member{ID: m.ID, Node: n.Name, Host: m.Host, Port: m.Port, Kinds: slices.Clone(m.Kinds)})
	}
	slices.SortFunc(members, func(a, b Member) int { return strings.Compare(a.ID, b.ID) })
	return members, bad
}

// memberIDs lists the ids of members, in their order.
func memberIDs(members []Member) []string {
	ids := make([]string, len(members))
	for i, m := range members {
		ids[i] = m.ID
	}
	return ids
}
