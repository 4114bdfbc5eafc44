package actors

import (
	"sync"

	"github.com/asynkron/protoactor-go/cluster"
)

// departures lets a call to a remote actor end as soon as the actor's member leaves
// the cluster. protoactor waits the whole request timeout for a reply that a dead
// node will never send (a remote endpoint that vanished answers no dead letter), so
// without this every call in flight when a node dies — and every call sent to it
// before the others notice — takes the full timeout (5 s) to fail.
//
// It follows the cluster topology: owners hashes identities onto members exactly as
// protoactor's disthash lookup does, to know where a call whose PID is not cached
// yet will go; gone hands out, per member address, a channel closed when that
// member leaves.
type departures struct {
	owners *cluster.Rendezvous

	mu   sync.Mutex
	gone map[string]chan struct{} // member address → closed when it leaves
}

func newDepartures() *departures {
	return &departures{owners: cluster.NewRendezvous(), gone: map[string]chan struct{}{}}
}

// topology applies a cluster topology event.
func (d *departures) topology(t *cluster.ClusterTopology) {
	d.owners.UpdateMembers(t.Members)
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range t.Left {
		addr := m.Address()
		if ch, ok := d.gone[addr]; ok {
			close(ch)
			delete(d.gone, addr)
		}
	}
}

// owner is the address of the member hosting kind/identity by the current topology;
// "" when no member hosts kind.
func (d *departures) owner(identity, kind string) string {
	return d.owners.GetByClusterIdentity(cluster.NewClusterIdentity(identity, kind))
}

// watch returns a channel closed when the member at addr leaves. A member that
// leaves before watch is called is no longer an owner, so calls do not target it.
func (d *departures) watch(addr string) <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	ch, ok := d.gone[addr]
	if !ok {
		ch = make(chan struct{})
		d.gone[addr] = ch
	}
	return ch
}
