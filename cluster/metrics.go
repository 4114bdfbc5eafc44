package cluster

import (
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the provider's Prometheus collectors (names in docs/cluster.md).
type metrics struct {
	members         prometheus.Gauge
	topologyChanges prometheus.Counter
	joined          prometheus.Counter
	left            prometheus.Counter
	rejoinsRefused  prometheus.Counter
	evicted         prometheus.Gauge
}

func newMetrics() *metrics {
	return &metrics{
		members: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "atende_cluster_members",
			Help: "Members (nodes hosting actors) in the topology this node last published.",
		}),
		topologyChanges: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "atende_cluster_topology_changes_total",
			Help: "Topology changes published to the actor cluster (rebalances: each moves identities between nodes).",
		}),
		joined: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "atende_cluster_members_joined_total",
			Help: "Members that joined the topology, as seen by this node.",
		}),
		left: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "atende_cluster_members_left_total",
			Help: "Members that left the topology (gracefully or declared dead), as seen by this node.",
		}),
		rejoinsRefused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "atende_cluster_rejoins_refused_total",
			Help: "Removed members seen alive again (false positive or healed split), told to restart.",
		}),
		evicted: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "atende_cluster_evicted",
			Help: "1 once another node reported that it removed this node: the process must restart.",
		}),
	}
}

func (m *metrics) observe(ch change) {
	m.members.Set(float64(len(ch.members)))
	if len(ch.joined)+len(ch.left) > 0 {
		m.topologyChanges.Inc()
	}
	m.joined.Add(float64(len(ch.joined)))
	m.left.Add(float64(len(ch.left)))
	m.rejoinsRefused.Add(float64(len(ch.returned)))
}

// liveCollector reads, at scrape time, what the provider does not count itself: the
// failure detector's health and the activations hosted here per kind.
type liveCollector struct {
	p      *Provider
	health *prometheus.Desc
	actors *prometheus.Desc
}

func newLiveCollector(p *Provider) *liveCollector {
	return &liveCollector{
		p: p,
		health: prometheus.NewDesc("atende_cluster_health_score",
			"memberlist's awareness score: 0 is healthy; higher means this node is missing its own probe deadlines and stretches its timeouts.", nil, nil),
		actors: prometheus.NewDesc("atende_cluster_actors",
			"Virtual actor activations hosted on this node, per kind.", []string{"kind"}, nil),
	}
}

func (c *liveCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.health
	ch <- c.actors
}

func (c *liveCollector) Collect(ch chan<- prometheus.Metric) {
	c.p.mu.Lock()
	ml, cl, down := c.p.ml, c.p.cl, c.p.down
	c.p.mu.Unlock()
	if ml != nil && !down {
		ch <- prometheus.MustNewConstMetric(c.health, prometheus.GaugeValue, float64(ml.GetHealthScore()))
	}
	if cl == nil {
		return
	}
	for _, kind := range cl.GetClusterKinds() {
		if k, ok := cl.TryGetClusterKind(kind); ok {
			ch <- prometheus.MustNewConstMetric(c.actors, prometheus.GaugeValue, float64(k.Count()), kind)
		}
	}
}

// Collectors are the provider's Prometheus metrics, for the caller to register once.
func (p *Provider) Collectors() []prometheus.Collector {
	m := p.metrics
	return []prometheus.Collector{m.members, m.topologyChanges, m.joined, m.left, m.rejoinsRefused, m.evicted, newLiveCollector(p)}
}
