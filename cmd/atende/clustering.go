package main

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	pcluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/rs/zerolog"

	"atende/actors"
	"atende/cluster"
	"atende/engine"
	"atende/persistence/ratelimit"
	"atende/persistence/redisstate"
)

// splitHostPort reads host:port, the port a number (0: any free port).
func splitHostPort(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("address %q: %w", addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("address %q: bad port", addr)
	}
	return host, port, nil
}

// nodeConfig is the actor node of this process: alone, or a member of the cluster
// described by cfg (membership by memberlist).
func (a *app) nodeConfig(kinds []*pcluster.Kind) (actors.NodeConfig, *cluster.Provider, error) {
	addr := a.cfg.ActorAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, port, err := splitHostPort(addr)
	if err != nil {
		return actors.NodeConfig{}, nil, err
	}
	nc := actors.NodeConfig{Host: host, Port: port, Kinds: kinds, Logger: a.log, AdvertisedHost: a.cfg.ActorAdvertise}
	if !a.cfg.Cluster {
		return nc, nil, nil
	}
	if nc.AdvertisedHost == "" && (host == "0.0.0.0" || host == "") {
		ip, err := cluster.DefaultAdvertiseIP()
		if err != nil {
			return actors.NodeConfig{}, nil, fmt.Errorf("actor address to advertise: %w (set ACTOR_ADVERTISE)", err)
		}
		nc.AdvertisedHost = net.JoinHostPort(ip, strconv.Itoa(port))
	}
	gHost, gPort, err := splitHostPort(a.cfg.GossipAddr)
	if err != nil {
		return actors.NodeConfig{}, nil, err
	}
	pc := cluster.Config{NodeName: cluster.DefaultNodeName(), BindAddr: gHost, BindPort: gPort, Seeds: a.cfg.Seeds,
		Logger: a.log.With().Str("component", "cluster").Logger()}
	if a.cfg.GossipAdvertise != "" {
		if pc.AdvertiseAddr, pc.AdvertisePort, err = splitHostPort(a.cfg.GossipAdvertise); err != nil {
			return actors.NodeConfig{}, nil, err
		}
	}
	prov, err := cluster.New(pc)
	if err != nil {
		return actors.NodeConfig{}, nil, err
	}
	a.metrics.MustRegister(prov.Collectors()...)
	nc.Provider = prov
	return nc, prov, nil
}

// sharedState picks where login limits and token revocations live: Redis when
// configured (every node sees the same counts and revocations), else this process.
func (a *app) sharedState(ctx context.Context, clock engine.Clock) (accounts, addresses engine.RateLimiter, err error) {
	if a.cfg.RedisURL == "" {
		if accounts, err = ratelimit.New(5, 15*time.Minute, 0, clock); err != nil {
			return nil, nil, err
		}
		addresses, err = ratelimit.New(20, 15*time.Minute, 0, clock)
		return accounts, addresses, err
	}
	r, err := redisstate.Open(ctx, a.cfg.RedisURL)
	if err != nil {
		return nil, nil, fmt.Errorf("redis: %w", err)
	}
	a.onClose(func(context.Context) error { return r.Close() })
	if accounts, err = r.RateLimiter("login-account", 5, 15*time.Minute, clock); err != nil {
		return nil, nil, err
	}
	if addresses, err = r.RateLimiter("login-address", 20, 15*time.Minute, clock); err != nil {
		return nil, nil, err
	}
	// A user changed or deleted on one node is forgotten by every node's token cache.
	cancel, err := r.Revocations().Subscribe(ctx, func(userID engine.ID) { a.tokens.Forget(userID) })
	if err != nil {
		return nil, nil, err
	}
	a.onClose(func(context.Context) error { cancel(); return nil })
	return accounts, addresses, nil
}

// keepConnections re-activates every connection's actor now and then, so that the
// connections of a node that died come back on the survivors (the cluster places
// each identity on a live member); a call to a live actor only answers.
func (l *live) keepConnections(ctx context.Context, log zerolog.Logger, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		l.activateConnections(ctx, log)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
