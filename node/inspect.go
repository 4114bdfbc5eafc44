package node

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"atende/persistence/db"
	"atende/persistence/redisstate"
	"atende/transport/channel/webchat"
	"atende/transport/ingest"
)

// What a running node shows of itself besides its HTTP API, for the programs that
// run it and their tests. Each is safe to call while the node serves.

// DB is the node's database, migrated; the node closes it.
func (n *Node) DB() *db.DB { return n.db }

// Redis is the node's shared state; nil without cfg.RedisURL.
func (n *Node) Redis() *redisstate.Redis { return n.redis }

// Metrics gathers what /metrics serves.
func (n *Node) Metrics() prometheus.Gatherer { return n.metrics }

// WebchatStats counts the web chat's started connections, open sockets and refused
// new visitors.
func (n *Node) WebchatStats() webchat.Stats { return n.live.webchat.Stats() }

// AdmissionStats is the state of the node's inbound admission control (package
// ingest): places taken, waiting, and refusals by reason.
func (n *Node) AdmissionStats() ingest.Stats { return n.live.admission.Stats() }

// SyncEndedSessions does at once what the node does every endedSessionSync: it reads
// the sessions recorded as ended, refuses their tokens here from now on and closes
// their sockets on this node.
func (n *Node) SyncEndedSessions(ctx context.Context) error {
	return n.syncEndedOnce(ctx, n.log.With().Str("component", "revocations").Logger(), n.live.hub)
}
