// Package cluster finds the members of the actor cluster: a protoactor-go
// ClusterProvider built on hashicorp/memberlist (SWIM gossip with Lifeguard's
// refinements). Each node gossips its actor address, kinds and actor system id in
// memberlist's node metadata; on every membership change the provider rebuilds the
// full member list from the live gossip nodes and hands it to the actor cluster
// (cluster.MemberList.UpdateClusterTopology), which moves identities accordingly.
//
// Who calls it: cmd/atende builds one Provider per process start with New, passes it
// as actors.NodeConfig.Provider, registers Collectors with the metrics registry,
// watches Evicted, and on shutdown calls Leave (draining) then stops the node.
//
// Concurrency. memberlist calls the provider's delegates on its own goroutines, some
// holding its locks: they copy the node they are told about (memberlist rewrites
// the nodes Members() points to, so the provider never reads those) and flag a
// change. One tracked goroutine publishes, after
// a short debounce, so a burst of events becomes one topology update. Exported
// methods are safe for concurrent use.
//
// Limits that come from protoactor-go: a member id that left the topology is
// blocked for good, so a node declared dead cannot come back with the same actor
// system; the provider detects that case and closes Evicted on the returning node,
// which must restart (a fresh process gets a fresh id and a fresh NodeName).
// Its tests run several members in one process under the race detector; the data
// races protoactor-go had there are fixed in third_party/protoactor-go. See
// docs/cluster.md for operations and the failure-detection settings.
package cluster
