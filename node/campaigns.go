package node

import (
	"time"

	"github.com/rs/zerolog"

	"atende/actors"
	"atende/engine"
	"atende/persistence/campaign"
)

// newCampaigns builds the campaign and broadcast engine's store; its jobs are worked
// by the node's River client (node.go), started after the API exists, so progress
// always has a socket to go to. Sends go to the connection actors through the
// cluster (actors.Connections.SendCampaign).
func (n *Node) newCampaigns(cfg Config, clock engine.Clock, log zerolog.Logger) (*campaign.Store, error) {
	l := n.live
	interval := cfg.CampaignInterval
	if interval == 0 {
		interval = -1 // no pacing
	}
	// Up to 3 s of jitter, never more than the interval itself.
	jitter := min(3*time.Second, max(interval, 0))
	return campaign.New(n.db, campaign.Config{
		Contacts: n.stores.contacts, Connections: n.stores.connections, Settings: n.stores.settings,
		Sender: actors.Connections{Node: l.node}, Clock: clock, Interval: interval, Jitter: jitter,
		OnChange: func(c engine.Campaign) {
			if n.api != nil {
				n.api.PublishCampaign(c)
			}
		},
		Jobs: n.jobInserter, Log: log.With().Str("component", "campaign").Logger(),
	})
}
