package cluster

import (
	"errors"
	"fmt"
	"log"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	pcluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/hashicorp/memberlist"
	"github.com/rs/zerolog"

	"atende/actors"
)

// Provider is a protoactor-go ClusterProvider that finds members with memberlist
// (SWIM gossip) and publishes the full member list to the actor cluster on every
// change. One Provider serves one start of one node: after Shutdown it cannot start
// again (a restarted node needs a new Provider, a new NodeName and a new actor system).
type Provider struct {
	// static after New
	cfg     Config
	log     zerolog.Logger
	metrics *metrics
	changed chan struct{} // capacity 1: a membership event waits to be published
	stop    chan struct{} // closed by Shutdown: the publisher returns
	evicted chan struct{} // closed when a peer reports this node was removed

	routines  actors.Routines // the publisher loop
	evictOnce sync.Once

	life sync.Mutex // serialises Leave and Shutdown (memberlist forbids Leave after Shutdown)

	// gossip holds this node's own copy of every live gossip node, taken in
	// memberlist's join/update/leave callbacks. memberlist rewrites the nodes that
	// Members() points to (metadata, address) under its own lock, so reading them
	// later would race; inside a callback it holds that lock, so copying is safe.
	// A leaf lock: nothing is called while holding it (memberlist holds its lock
	// while taking this one).
	gossipMu sync.Mutex
	gossip   map[string]memberlist.Node // node name → copy (Addr and Meta cloned)
	departed map[string]struct{}        // member ids that announced a graceful departure

	mu        sync.Mutex // guards the fields below
	ml        *memberlist.Memberlist
	cl        *pcluster.Cluster
	self      nodeMeta
	localAddr string // this node's gossip host:port once started
	started   bool
	left      bool
	down      bool
	published []Member            // the topology last decided (track), about to be handed over
	handed    []Member            // the topology the actor cluster last received (Members)
	removed   map[string]struct{} // ids published then dropped: protoactor blocks them for good
	told      map[string]struct{} // removed ids that came back and were told to restart
}

var _ pcluster.ClusterProvider = (*Provider)(nil)

// ErrStopped is answered by Leave and the start methods once Shutdown began.
var ErrStopped = errors.New("cluster provider stopped")

// New validates cfg and returns a provider for actors.NodeConfig.Provider. Nothing
// listens until the actor cluster starts it (StartMember / StartClient).
func New(cfg Config) (*Provider, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Provider{
		cfg:      cfg,
		log:      cfg.Logger.With().Str("component", "cluster").Str("node", cfg.NodeName).Logger(),
		metrics:  newMetrics(),
		changed:  make(chan struct{}, 1),
		stop:     make(chan struct{}),
		evicted:  make(chan struct{}),
		removed:  map[string]struct{}{},
		told:     map[string]struct{}{},
		gossip:   map[string]memberlist.Node{},
		departed: map[string]struct{}{},
	}, nil
}

// StartMember implements cluster.ClusterProvider: it starts gossip with this node's
// actor address and kinds, joins the seeds and publishes the member list.
func (p *Provider) StartMember(c *pcluster.Cluster) error { return p.start(c, false) }

// StartClient implements cluster.ClusterProvider: the node gossips and follows the
// member list but hosts no actors and is no member of the topology.
func (p *Provider) StartClient(c *pcluster.Cluster) error { return p.start(c, true) }

func (p *Provider) start(c *pcluster.Cluster, client bool) error {
	host, port, err := c.ActorSystem.GetHostPort()
	if err != nil || port <= 0 {
		return fmt.Errorf("cluster: actor address %q is not host:port (an advertised actor address must carry its port): %v",
			c.ActorSystem.Address(), err)
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		return fmt.Errorf("cluster: actor address %s is not reachable by other nodes; advertise a routable one", c.ActorSystem.Address())
	}
	self := nodeMeta{Cluster: c.Config.Name, ID: c.ActorSystem.ID, Host: host, Port: port, Client: client}
	if !client {
		self.Kinds = c.GetClusterKinds()
		slices.Sort(self.Kinds)
	}
	meta, err := self.encode()
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}

	p.mu.Lock()
	switch {
	case p.down:
		p.mu.Unlock()
		return ErrStopped
	case p.started:
		p.mu.Unlock()
		return errors.New("cluster: provider already started")
	}
	p.started, p.cl, p.self = true, c, self
	p.mu.Unlock()

	mc := p.memberlistConfig(meta)
	if p.cfg.wrapTransport != nil {
		nt, err := memberlist.NewNetTransport(&memberlist.NetTransportConfig{BindAddrs: []string{mc.BindAddr},
			BindPort: mc.BindPort, Logger: mc.Logger})
		if err != nil {
			return fmt.Errorf("cluster: start gossip on %s:%d: %w", p.cfg.BindAddr, p.cfg.BindPort, err)
		}
		mc.Transport = p.cfg.wrapTransport(nt)
	}
	ml, err := memberlist.Create(mc)
	if err != nil {
		return fmt.Errorf("cluster: start gossip on %s:%d: %w", p.cfg.BindAddr, p.cfg.BindPort, err)
	}
	// Create announced this node to itself (NotifyJoin, synchronously): its copy
	// holds the address memberlist chose.
	local := p.gossipNode(p.cfg.NodeName)
	localAddr := local.Address()
	p.mu.Lock()
	down := p.down
	if !down {
		p.ml, p.localAddr = ml, localAddr
	}
	p.mu.Unlock()
	if down { // Shutdown ran meanwhile and found no memberlist to stop
		_ = ml.Shutdown()
		return ErrStopped
	}

	if err := p.join(ml); err != nil {
		p.life.Lock() // Leave must never reach a shut-down memberlist
		p.mu.Lock()
		p.ml = nil
		p.mu.Unlock()
		_ = ml.Shutdown()
		p.life.Unlock()
		return err
	}
	p.publish() // the actor cluster knows every member before StartMember returns
	p.routines.Go(p.loop)
	p.log.Info().Str("member_id", self.ID).Str("gossip", localAddr).Str("actor", joinHostPort(host, port)).
		Int("members", len(p.Members())).Bool("client", client).Msg("cluster membership started")
	return nil
}

func (p *Provider) memberlistConfig(meta []byte) *memberlist.Config {
	c := memberlist.DefaultLANConfig()
	c.Name = p.cfg.NodeName
	c.BindAddr, c.BindPort = p.cfg.BindAddr, p.cfg.BindPort
	c.AdvertiseAddr, c.AdvertisePort = p.cfg.AdvertiseAddr, p.cfg.AdvertisePort
	if c.AdvertisePort == 0 {
		c.AdvertisePort = p.cfg.BindPort // memberlist fills in the chosen port when both are 0
	}
	c.ProbeInterval, c.ProbeTimeout = p.cfg.ProbeInterval, p.cfg.ProbeTimeout
	c.SuspicionMult = p.cfg.SuspicionMult
	c.GossipInterval, c.RetransmitMult = p.cfg.GossipInterval, p.cfg.RetransmitMult
	c.PushPullInterval = p.cfg.PushPullInterval
	c.GossipToTheDeadTime = p.cfg.PushPullInterval
	c.TCPTimeout = max(time.Second, 5*p.cfg.ProbeInterval)
	// No LZW: memberlist compresses every packet with a new lzw.Writer, whose 64 KiB
	// table is allocated and zeroed each time (and a reader's on the other side), to
	// shorten probes and acks of a few dozen bytes on a LAN. Every node decodes
	// compressed packets whatever its own setting, so nodes of both kinds mix.
	c.EnableCompression = false
	if len(p.cfg.SecretKey) > 0 {
		c.SecretKey = p.cfg.SecretKey
	}
	c.Delegate = &delegate{p: p, meta: meta}
	c.Events = &events{p: p}
	c.Logger = log.New(logWriter{log: p.log.With().Str("component", "memberlist").Logger()}, "", 0)
	return c
}

// join contacts the seeds until one answers or JoinTimeout passes.
func (p *Provider) join(ml *memberlist.Memberlist) error {
	local := p.gossipNode(p.cfg.NodeName)
	seeds := otherSeeds(p.cfg.Seeds, &local, p.cfg.BindAddr)
	if len(seeds) == 0 {
		if len(p.cfg.Seeds) > 0 {
			p.log.Info().Msg("every seed is this node: starting a new cluster")
		}
		return nil
	}
	deadline := time.Now().Add(p.cfg.JoinTimeout)
	wait := 100 * time.Millisecond
	for {
		n, err := ml.Join(seeds)
		if n > 0 {
			if err != nil {
				p.log.Warn().Err(err).Msg("some seeds did not answer")
			}
			return nil
		}
		if time.Now().Add(wait).After(deadline) {
			return fmt.Errorf("cluster: join %v: no seed answered within %v: %w", seeds, p.cfg.JoinTimeout, err)
		}
		p.log.Warn().Err(err).Dur("retry_in", wait).Msg("no seed answered yet")
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-p.stop:
			t.Stop()
			return ErrStopped
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// otherSeeds drops the seeds that name this node's own gossip address.
func otherSeeds(seeds []string, local *memberlist.Node, bindAddr string) []string {
	localPort := strconv.Itoa(int(local.Port))
	bind := net.ParseIP(bindAddr)
	var out []string
	for _, s := range seeds {
		host, port, err := net.SplitHostPort(s)
		if err != nil || port != localPort {
			out = append(out, s)
			continue
		}
		ips, err := net.LookupIP(host)
		if err != nil {
			out = append(out, s) // let memberlist report it
			continue
		}
		self := false
		for _, ip := range ips {
			self = self || ip.Equal(local.Addr) || ip.Equal(bind) ||
				(ip.IsLoopback() && bind != nil && (bind.IsUnspecified() || bind.IsLoopback()))
		}
		if !self {
			out = append(out, s)
		}
	}
	return out
}

// Leave announces a graceful departure: every other node drops this one from its
// topology at once (no failure detection needed), and this node hands every identity
// over to them. Call it first when draining a node, then stop the actor node; a later
// Shutdown(true) does not leave again.
func (p *Provider) Leave() error {
	p.life.Lock()
	defer p.life.Unlock()
	p.mu.Lock()
	ml, left, down := p.ml, p.left, p.down
	p.left = true
	p.mu.Unlock()
	switch {
	case down || ml == nil:
		return ErrStopped
	case left:
		return nil
	}
	p.announceDeparture(ml)
	if err := ml.Leave(p.cfg.LeaveTimeout); err != nil {
		return fmt.Errorf("cluster: leave: %w", err)
	}
	p.log.Info().Msg("left the cluster")
	return nil
}

// Shutdown implements cluster.ClusterProvider. graceful leaves first (see Leave);
// otherwise gossip just stops and the others detect the silence as a failure. The
// publisher stops before either, so nothing is handed to an actor system that is
// stopping. The actor cluster calls Shutdown only on a graceful stop: after
// actors.Node.Stop(false) call Shutdown(false) yourself. Safe to call more than once.
func (p *Provider) Shutdown(graceful bool) error {
	p.life.Lock()
	defer p.life.Unlock()
	p.mu.Lock()
	ml, left, down := p.ml, p.left, p.down
	p.down, p.left = true, left || graceful
	p.mu.Unlock()
	if down {
		return nil
	}
	close(p.stop)
	p.routines.Close()
	if ml == nil {
		return nil
	}
	var errs []error
	if graceful && !left {
		p.announceDeparture(ml)
		if err := ml.Leave(p.cfg.LeaveTimeout); err != nil {
			errs = append(errs, fmt.Errorf("cluster: leave: %w", err))
		} else {
			p.log.Info().Msg("left the cluster")
		}
	}
	if err := ml.Shutdown(); err != nil {
		errs = append(errs, fmt.Errorf("cluster: stop gossip: %w", err))
	}
	return errors.Join(errs...)
}

// Evicted is closed when another node reports that it removed this node from its
// topology (it was declared dead, then came back: a false positive or a healed
// network split). protoactor never re-admits a removed member id, so this node can no
// longer take part: exit and let the supervisor start a fresh process.
func (p *Provider) Evicted() <-chan struct{} { return p.evicted }

// Members is the topology this node last published, sorted by id: once a change
// shows here, the actor cluster has it (its placement, PID cache and the calls'
// departure watch were updated synchronously).
func (p *Provider) Members() []Member {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Member, len(p.handed))
	for i, m := range p.handed {
		m.Kinds = slices.Clone(m.Kinds)
		out[i] = m
	}
	return out
}

// LocalAddr is this node's gossip address (host:port) once started, "" before.
func (p *Provider) LocalAddr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ml == nil {
		return ""
	}
	return p.localAddr
}

// NodeName is this node's gossip name.
func (p *Provider) NodeName() string { return p.cfg.NodeName }

func joinHostPort(host string, port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }
