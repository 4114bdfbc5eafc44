package actors

import (
	"context"
	"errors"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/rs/zerolog"

	"atende/actors/wire"
	"atende/engine"
)

// echo answers a Command with its own payload, or with the error code it names.
type echo struct{ calls int }

func (e *echo) Receive(ctx actor.Context) {
	cmd, ok := ctx.Message().(*wire.Command)
	if !ok {
		return
	}
	e.calls++
	if cmd.Type == "fail" {
		ctx.Respond(ErrorReply(engine.E(engine.ErrNoTicketFound)))
		return
	}
	ctx.Respond(&wire.Reply{Payload: append(cmd.Payload, byte('0'+e.calls))})
}

func TestNodeCallRoundTrip(t *testing.T) {
	kind := cluster.NewKind("echo", actor.PropsFromProducer(func() actor.Actor { return &echo{} }))
	n, err := StartNode(NodeConfig{Kinds: []*cluster.Kind{kind}, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Stop(false)
	ctx := context.Background()
	// The same identity reaches the same activation: its counter goes on.
	for i, want := range []string{"a1", "a2"} {
		got, err := n.Call(ctx, "echo", "x", &wire.Command{Type: "echo", Payload: []byte("a")})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if string(got) != want {
			t.Fatalf("call %d = %q, want %q", i, got, want)
		}
	}
	got, err := n.Call(ctx, "echo", "y", &wire.Command{Type: "echo", Payload: []byte("b")})
	if err != nil || string(got) != "b1" {
		t.Fatalf("other identity = %q, %v; want a fresh activation b1", got, err)
	}
	_, err = n.Call(ctx, "echo", "x", &wire.Command{Type: "fail"})
	if engine.CodeOf(err) != engine.ErrNoTicketFound {
		t.Fatalf("error reply = %v, want ERR_NO_TICKET_FOUND", err)
	}
	var e *engine.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T is not *engine.Error", err)
	}
}

// TestNodeGossipInterval: protoactor's gossip runs every gossipInterval, and a member's
// heartbeat is renewed many times within the expiry that would block it.
func TestNodeGossipInterval(t *testing.T) {
	n, err := StartNode(NodeConfig{Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Stop(false)
	c := n.Cluster.Config
	if c.GossipInterval != gossipInterval {
		t.Errorf("gossip interval %s, want %s", c.GossipInterval, gossipInterval)
	}
	if c.HeartbeatExpiration < 5*c.GossipInterval {
		t.Errorf("heartbeat expiry %s is under five gossip rounds of %s", c.HeartbeatExpiration, c.GossipInterval)
	}
}
