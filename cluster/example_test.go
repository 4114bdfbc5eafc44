package cluster_test

import (
	"context"

	"github.com/rs/zerolog"

	"atende/actors"
	"atende/cluster"
)

// How a process joins the cluster: the provider finds the members, the actor node
// hosts this node's share of the actors, and a drain leaves before stopping.
func ExampleNew() {
	log := zerolog.Nop()
	prov, err := cluster.New(cluster.Config{
		BindAddr: "0.0.0.0", BindPort: cluster.DefaultGossipPort,
		Seeds:  []string{"10.0.0.11:7946", "10.0.0.12:7946"},
		Logger: log,
	})
	if err != nil {
		panic(err)
	}
	node, err := actors.StartNode(actors.NodeConfig{
		Host: "0.0.0.0", Port: 8090, AdvertisedHost: "10.0.0.13:8090", // host:port
		Provider: prov, Logger: log, // Kinds: ticket, connection…
	})
	if err != nil {
		panic(err)
	}
	// registry.MustRegister(prov.Collectors()...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	select {
	case <-prov.Evicted(): // declared dead while alive: exit, the supervisor restarts us
	case <-ctx.Done(): // SIGTERM: drain
	}
	_ = prov.Leave() // the others take over at once
	node.Stop(true)  // stops the actors; calls prov.Shutdown(true)
}
