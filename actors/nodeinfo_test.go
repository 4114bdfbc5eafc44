package actors

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/test"
	"github.com/rs/zerolog"

	"atende/actors/wire"
)

func echoKind() *cluster.Kind {
	return cluster.NewKind("echo", actor.PropsFromProducer(func() actor.Actor { return &echo{} }))
}

func TestNodeInfoSingleNode(t *testing.T) {
	n, err := StartNode(NodeConfig{Kinds: []*cluster.Kind{echoKind()}, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Stop(false)
	if err := n.ServeNodeInfo("6.0.2", nil); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		if _, err := n.Call(context.Background(), "echo", id, &wire.Command{Type: "echo"}); err != nil {
			t.Fatal(err)
		}
	}
	ms := n.Members(5 * time.Second)
	if len(ms) != 1 {
		t.Fatalf("members %+v", ms)
	}
	m := ms[0]
	if !m.Self || m.State != MemberAlive || m.Info.Version != "6.0.2" || m.Info.Actors["echo"] != 3 || m.Address != n.System.Address() {
		t.Fatalf("member %+v", m)
	}
}

func TestNodeInfoTwoNodes(t *testing.T) {
	agent := test.NewInMemAgent()
	start := func(ready func(context.Context) error) *Node {
		n, err := StartNode(NodeConfig{Kinds: []*cluster.Kind{echoKind()}, Logger: zerolog.Nop(),
			Provider: test.NewTestProvider(agent)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.Stop(false) })
		if err := n.ServeNodeInfo("v", ready); err != nil {
			t.Fatal(err)
		}
		return n
	}
	a := start(nil)
	b := start(func(context.Context) error { return errors.New("database down") })
	// Both see both once the topology settled: poll with a generous deadline.
	var ms []MemberInfo
	for deadline := time.Now().Add(30 * time.Second); ; {
		ms = a.Members(5 * time.Second)
		if len(ms) == 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(ms) != 2 {
		t.Fatalf("members %+v", ms)
	}
	byAddr := map[string]MemberInfo{}
	for _, m := range ms {
		byAddr[m.Address] = m
	}
	if m := byAddr[a.System.Address()]; !m.Self || m.State != MemberAlive {
		t.Fatalf("self %+v", m)
	}
	if m := byAddr[b.System.Address()]; m.Self || m.State != MemberNotReady {
		t.Fatalf("other %+v", m)
	}
}

// An actor that stops on one node leaves the PID caches of the others too (they hear
// protoactor's ActivationTerminated), so a node does not keep every remote actor it
// ever called, nor answer a dead letter for the stopped ones first.
func TestStoppedActorLeavesOtherNodesPIDCache(t *testing.T) {
	a, b := twoNodes(t, "echo")
	ctx := context.Background()
	// An identity b hosts, called from a: a caches its PID.
	var identity string
	var pid *actor.PID
	for i := 0; pid == nil; i++ {
		if i == 200 {
			t.Fatal("no identity hashed onto b")
		}
		id := fmt.Sprintf("x%d", i)
		if _, err := a.Call(ctx, "echo", id, &wire.Command{Type: "echo", Payload: []byte("a")}); err != nil {
			t.Fatal(err)
		}
		if p, ok := a.Cluster.PidCache.Get(id, "echo"); ok && p.Address == b.System.Address() {
			identity, pid = id, p
		}
	}
	if err := b.System.Root.PoisonFuture(pid).Wait(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		cached, ok := a.Cluster.PidCache.Get(identity, "echo")
		if !ok || !cached.Equal(pid) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a still caches %v for %s after it stopped on b", pid, identity)
		}
	}
}
