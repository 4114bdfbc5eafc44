// Package actors hosts engine aggregates in protoactor-go virtual actors (cluster
// kinds): a ticket actor per ticket and a connection actor per channel account, placed
// by the cluster and rebuilt from the journal on activation wherever they land.
//
// Domain decisions live in engine (pure, tested with -race); this package only
// sequences them: one message at a time per actor, append to the journal before the
// state changes, publish after. Its tests run under the race detector, like every
// package's (protoactor-go's own races are fixed in third_party/protoactor-go).
//
// Callers reach actors through Node.Call with a wire.Command; across nodes the
// command travels as protobuf (package wire) with a JSON body.
package actors
