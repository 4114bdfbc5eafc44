package cluster

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/hashicorp/go-sockaddr"
	"github.com/hashicorp/memberlist"
	"github.com/rs/zerolog"
)

// Defaults of the failure detector, tuned for a LAN (docs/cluster.md gives the
// arithmetic and the measurements): a killed node is declared dead by every other
// node within about 1.2 s (0.69–1.18 s over 35 kills on loopback), while a node that
// is merely slow gets indirect probes, a TCP fallback ping and 400 ms to refute a
// suspicion. SuspicionMult 3 resists CPU starvation better but let 2 of 35 detections
// run past 1.5 s; raise it on oversubscribed hosts.
const (
	DefaultGossipPort     = 7946
	DefaultProbeInterval  = 200 * time.Millisecond
	DefaultProbeTimeout   = 100 * time.Millisecond
	DefaultSuspicionMult  = 2
	DefaultGossipInterval = 100 * time.Millisecond
	DefaultRetransmitMult = 4
	DefaultPushPull       = 15 * time.Second
	DefaultJoinTimeout    = 30 * time.Second
	DefaultLeaveTimeout   = 3 * time.Second
	DefaultDebounce       = 20 * time.Millisecond
)

// Config configures one node's membership. Zero fields take the default named on them.
type Config struct {
	// NodeName is this node's gossip name, unique per start (a restarted node must
	// not reuse its old name). Empty: DefaultNodeName(), hostname plus random.
	NodeName string

	// BindAddr is the IP the gossip listener (UDP and TCP) binds; "0.0.0.0" when empty.
	BindAddr string
	// BindPort is the gossip port; 0 lets the OS choose one (tests), so production
	// configuration passes DefaultGossipPort or another fixed port explicitly.
	BindPort int
	// AdvertiseAddr is the IP or host name other nodes reach this node's gossip at
	// (resolved once, in New). Empty: the bind IP, or this host's private IP when
	// bound to 0.0.0.0.
	AdvertiseAddr string
	// AdvertisePort is the gossip port other nodes dial; the bound port when 0.
	AdvertisePort int

	// Seeds are host:port gossip addresses of nodes to join. Empty starts a new
	// cluster. A node with seeds retries joining for JoinTimeout and then fails to
	// start rather than run alone (which would split the cluster). Seeds may list
	// this node itself: it is skipped.
	Seeds []string
	// JoinTimeout bounds the join retries; DefaultJoinTimeout when 0.
	JoinTimeout time.Duration
	// LeaveTimeout bounds waiting for the leave broadcast on a graceful shutdown;
	// DefaultLeaveTimeout when 0.
	LeaveTimeout time.Duration

	// ProbeInterval is how often this node probes another one;
	// DefaultProbeInterval when 0.
	ProbeInterval time.Duration
	// ProbeTimeout is how long a direct probe waits for its ack before indirect
	// probes start; about the network's p99 round trip. DefaultProbeTimeout when 0;
	// must be below ProbeInterval.
	ProbeTimeout time.Duration
	// SuspicionMult sets how long a suspect node has to refute before it is declared
	// dead: SuspicionMult × max(1, log10 N) × ProbeInterval, once SuspicionMult − 2
	// other nodes confirmed the suspicion (none at 2), else up to 6× that.
	// DefaultSuspicionMult when 0.
	SuspicionMult int
	// GossipInterval is how often queued state changes (suspect, dead, join) are sent
	// to GossipNodes random nodes besides riding on probes; DefaultGossipInterval when 0.
	GossipInterval time.Duration
	// RetransmitMult: each state change is retransmitted RetransmitMult × log10(N+1)
	// times; DefaultRetransmitMult when 0.
	RetransmitMult int
	// PushPullInterval is the period of full state syncs with one random node (they
	// repair anything gossip lost); DefaultPushPull when 0.
	PushPullInterval time.Duration

	// SecretKey, when set (16, 24 or 32 bytes), encrypts and authenticates gossip with
	// AES-GCM; every node needs the same key. Empty gossips in clear text: keep the
	// gossip port on a private network then.
	SecretKey []byte
	// Debounce coalesces membership events that arrive together (a join brings many)
	// into one topology update; DefaultDebounce when 0.
	Debounce time.Duration

	// Logger receives membership changes and memberlist's warnings.
	Logger zerolog.Logger

	// OnDead, when set, is called with the ids of members removed from the topology
	// without having left gracefully (declared dead: crashed, stalled, cut off), once
	// per removal, on the publishing goroutine: it must not block. cmd/atende fences
	// them off the journal (persistence/journal.RevokeMember).
	OnDead func(ids []string)

	// wrapTransport, set by tests (WithTransport), wraps the gossip transport: a
	// test cuts a node off the network with it.
	wrapTransport func(memberlist.Transport) memberlist.Transport
}

// DefaultNodeName is the host name with a random suffix: unique per start.
func DefaultNodeName() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "atende"
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return host + "-" + hex.EncodeToString(b[:])
}

// DefaultAdvertiseIP is the address memberlist advertises when bound to 0.0.0.0
// without AdvertiseAddr: this host's first private IPv4 address. cmd/atende uses it
// to advertise the actor port when the actor remote binds all interfaces.
func DefaultAdvertiseIP() (string, error) {
	ip, err := sockaddr.GetPrivateIP()
	if err != nil {
		return "", fmt.Errorf("cluster: find a private IP: %w", err)
	}
	if ip == "" {
		return "", errors.New("cluster: no private IP address on this host; advertise one explicitly")
	}
	return ip, nil
}

// withDefaults fills zero fields and validates the result.
func (c Config) withDefaults() (Config, error) {
	if c.NodeName == "" {
		c.NodeName = DefaultNodeName()
	}
	if c.BindAddr == "" {
		c.BindAddr = "0.0.0.0"
	}
	setDur(&c.JoinTimeout, DefaultJoinTimeout)
	setDur(&c.LeaveTimeout, DefaultLeaveTimeout)
	setDur(&c.ProbeInterval, DefaultProbeInterval)
	setDur(&c.ProbeTimeout, DefaultProbeTimeout)
	setDur(&c.GossipInterval, DefaultGossipInterval)
	setDur(&c.PushPullInterval, DefaultPushPull)
	setDur(&c.Debounce, DefaultDebounce)
	if c.SuspicionMult == 0 {
		c.SuspicionMult = DefaultSuspicionMult
	}
	if c.RetransmitMult == 0 {
		c.RetransmitMult = DefaultRetransmitMult
	}

	var errs []error
	if net.ParseIP(c.BindAddr) == nil {
		errs = append(errs, fmt.Errorf("BindAddr %q is not an IP address", c.BindAddr))
	}
	if c.BindPort < 0 || c.BindPort > 65535 || c.AdvertisePort < 0 || c.AdvertisePort > 65535 {
		errs = append(errs, fmt.Errorf("ports must be within 0–65535 (bind %d, advertise %d)", c.BindPort, c.AdvertisePort))
	}
	if c.AdvertiseAddr != "" && net.ParseIP(c.AdvertiseAddr) == nil {
		ips, err := net.LookupIP(c.AdvertiseAddr)
		if err != nil || len(ips) == 0 {
			errs = append(errs, fmt.Errorf("AdvertiseAddr %q does not resolve: %v", c.AdvertiseAddr, err))
		} else {
			c.AdvertiseAddr = pickIP(ips).String()
		}
	}
	for _, s := range c.Seeds {
		if _, _, err := net.SplitHostPort(s); err != nil {
			errs = append(errs, fmt.Errorf("seed %q is not host:port", s))
		}
	}
	if c.ProbeInterval < 0 || c.ProbeTimeout < 0 || c.GossipInterval < 0 || c.PushPullInterval < 0 ||
		c.JoinTimeout < 0 || c.LeaveTimeout < 0 || c.Debounce < 0 {
		errs = append(errs, errors.New("durations must not be negative"))
	}
	if c.ProbeTimeout >= c.ProbeInterval {
		errs = append(errs, fmt.Errorf("ProbeTimeout %v must be below ProbeInterval %v", c.ProbeTimeout, c.ProbeInterval))
	}
	if c.SuspicionMult < 1 || c.RetransmitMult < 1 {
		errs = append(errs, errors.New("SuspicionMult and RetransmitMult must be at least 1"))
	}
	switch len(c.SecretKey) {
	case 0, 16, 24, 32:
	default:
		errs = append(errs, fmt.Errorf("SecretKey is %d bytes; want 16, 24 or 32", len(c.SecretKey)))
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("cluster config: %w", errors.Join(errs...))
	}
	return c, nil
}

func setDur(d *time.Duration, def time.Duration) {
	if *d == 0 {
		*d = def
	}
}

// pickIP prefers an IPv4 address.
func pickIP(ips []net.IP) net.IP {
	for _, ip := range ips {
		if ip.To4() != nil {
			return ip
		}
	}
	return ips[0]
}
