package cluster

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/memberlist"
	"github.com/rs/zerolog"

	"atende/actors"
)

func TestConfigDefaultsAndValidation(t *testing.T) {
	c, err := Config{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if c.ProbeInterval != 200*time.Millisecond || c.ProbeTimeout != 100*time.Millisecond || c.SuspicionMult != DefaultSuspicionMult ||
		c.GossipInterval != DefaultGossipInterval || c.BindAddr != "0.0.0.0" || c.NodeName == "" {
		t.Fatalf("defaults = %+v", c)
	}
	if a, b := DefaultNodeName(), DefaultNodeName(); a == b {
		t.Fatalf("two starts share the node name %q", a)
	}
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"bind is a name", Config{BindAddr: "localhost"}, "BindAddr"},
		{"port out of range", Config{BindPort: 70000}, "ports"},
		{"seed without port", Config{Seeds: []string{"10.0.0.1"}}, "seed"},
		{"timeout above interval", Config{ProbeInterval: 100 * time.Millisecond, ProbeTimeout: 100 * time.Millisecond}, "ProbeTimeout"},
		{"negative duration", Config{GossipInterval: -time.Second}, "negative"},
		{"negative multiplier", Config{SuspicionMult: -1}, "SuspicionMult"},
		{"key size", Config{SecretKey: []byte("short")}, "SecretKey"},
		{"unresolvable advertise", Config{AdvertiseAddr: "no-such-host.invalid"}, "AdvertiseAddr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.cfg.withDefaults()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one naming %s", err, tc.want)
			}
		})
	}
	c, err = Config{AdvertiseAddr: "localhost"}.withDefaults()
	if err != nil || c.AdvertiseAddr != "127.0.0.1" {
		t.Fatalf("advertise localhost = %q, %v; want it resolved to 127.0.0.1", c.AdvertiseAddr, err)
	}
}

func metaNode(t *testing.T, name string, m nodeMeta) memberlist.Node {
	t.Helper()
	b, err := m.encode()
	if err != nil {
		t.Fatal(err)
	}
	return memberlist.Node{Name: name, Meta: b}
}

func TestMembersFromNodes(t *testing.T) {
	nodes := []memberlist.Node{
		metaNode(t, "n-b", nodeMeta{Cluster: "atende", ID: "b", Host: "10.0.0.2", Port: 8001, Kinds: []string{"ticket"}}),
		metaNode(t, "n-a", nodeMeta{Cluster: "atende", ID: "a", Host: "10.0.0.1", Port: 8001, Kinds: []string{"connection", "ticket"}}),
		metaNode(t, "client", nodeMeta{Cluster: "atende", ID: "c", Host: "10.0.0.3", Port: 8001, Client: true}),
		metaNode(t, "stranger", nodeMeta{Cluster: "other", ID: "d", Host: "10.0.0.4", Port: 8001}),
		metaNode(t, "twin", nodeMeta{Cluster: "atende", ID: "a", Host: "10.0.0.5", Port: 8001}),
		{Name: "garbage", Meta: []byte("{not json")},
		{Name: "empty", Meta: nil},
		metaNode(t, "no-port", nodeMeta{Cluster: "atende", ID: "e", Host: "10.0.0.6"}),
	}
	members, bad := membersFromNodes("atende", nodes)
	if got := memberIDs(members); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("members = %v, want [a b]", got)
	}
	if members[0].Address() != "10.0.0.1:8001" || members[0].Node != "n-a" || !slices.Equal(members[0].Kinds, []string{"connection", "ticket"}) {
		t.Fatalf("member a = %+v", members[0])
	}
	var names []string
	for _, r := range bad {
		names = append(names, r.node)
	}
	slices.Sort(names)
	if want := []string{"empty", "garbage", "no-port", "stranger", "twin"}; !slices.Equal(names, want) {
		t.Fatalf("rejected %v, want %v (clients are skipped silently)", names, want)
	}
}

func TestMetaSizeLimit(t *testing.T) {
	kinds := make([]string, 60)
	for i := range kinds {
		kinds[i] = strings.Repeat("k", 10)
	}
	if _, err := (nodeMeta{Cluster: "atende", ID: "x", Host: "h", Port: 1, Kinds: kinds}).encode(); err == nil {
		t.Fatal("metadata over memberlist's limit accepted")
	}
}

func TestTrackRefusesReturningMembers(t *testing.T) {
	p, err := New(Config{Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := Member{ID: "a", Node: "na"}, Member{ID: "b", Node: "nb"}, Member{ID: "c", Node: "nc"}
	steps := []struct {
		found                 []Member
		members, joined, left []string
		returned              []string
	}{
		{found: []Member{a, b}, members: []string{"a", "b"}, joined: []string{"a", "b"}},
		{found: []Member{a, b}, members: []string{"a", "b"}},
		{found: []Member{a}, members: []string{"a"}, left: []string{"b"}},
		{found: []Member{a, b, c}, members: []string{"a", "c"}, joined: []string{"c"}, returned: []string{"b"}},
		{found: []Member{a, b, c}, members: []string{"a", "c"}}, // told once only
	}
	for i, s := range steps {
		ch := p.track(s.found)
		var returned []string
		for _, m := range ch.returned {
			returned = append(returned, m.ID)
		}
		if !slices.Equal(memberIDs(ch.members), s.members) || !slices.Equal(ch.joined, s.joined) ||
			!slices.Equal(ch.left, s.left) || !slices.Equal(returned, s.returned) {
			t.Fatalf("step %d: members %v joined %v left %v returned %v; want %v %v %v %v", i,
				memberIDs(ch.members), ch.joined, ch.left, returned, s.members, s.joined, s.left, s.returned)
		}
	}
	if got := memberIDs(p.published); !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("published = %v", got)
	}
}

func TestEvictNotice(t *testing.T) {
	p, err := New(Config{Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	p.self.ID = "me"
	d := &delegate{p: p}
	for _, msg := range []string{"atende-evicted:someone", "atende-evicted:", "me", "unrelated"} {
		d.NotifyMsg([]byte(msg))
	}
	select {
	case <-p.Evicted():
		t.Fatal("evicted by a notice for another member")
	default:
	}
	d.NotifyMsg([]byte("atende-evicted:me"))
	d.NotifyMsg([]byte("atende-evicted:me")) // a second notice is harmless
	select {
	case <-p.Evicted():
	default:
		t.Fatal("not evicted by a notice naming this member")
	}
}

func TestLogWriterLevels(t *testing.T) {
	var buf bytes.Buffer
	w := logWriter{log: zerolog.New(&buf)}
	for _, line := range []string{
		"[DEBUG] memberlist: Stream connection from=1.2.3.4\n",
		"[WARN] memberlist: Refuting a suspect message\n",
		"[ERR] memberlist: Failed to send\n",
		"[INFO] memberlist: Marking x as failed\n",
		"no level\n",
	} {
		if _, err := w.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var e struct{ Level, Message string }
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Level+" "+e.Message)
	}
	want := []string{
		"debug Stream connection from=1.2.3.4",
		"warn Refuting a suspect message",
		"error Failed to send",
		"info Marking x as failed",
		"info no level",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestShutdownBeforeStart(t *testing.T) {
	p, err := New(Config{Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Shutdown(true); err != nil {
		t.Fatalf("shutdown of an unstarted provider: %v", err)
	}
	if err := p.Shutdown(false); err != nil {
		t.Fatalf("second shutdown: %v", err)
	}
	if err := p.Leave(); err == nil {
		t.Fatal("Leave after Shutdown succeeded")
	}
	if p.LocalAddr() != "" || len(p.Members()) != 0 {
		t.Fatal("unstarted provider reports an address or members")
	}
}

func TestOtherSeedsSkipsThisNode(t *testing.T) {
	local := &memberlist.Node{Addr: net.ParseIP("10.0.0.7"), Port: 7946}
	seeds := []string{"10.0.0.7:7946", "127.0.0.1:7946", "localhost:7946", "10.0.0.8:7946", "10.0.0.7:7947", "no-port"}
	got := otherSeeds(seeds, local, "0.0.0.0")
	if want := []string{"10.0.0.8:7946", "10.0.0.7:7947", "no-port"}; !slices.Equal(got, want) {
		t.Fatalf("bound to all interfaces: %v, want %v", got, want)
	}
	got = otherSeeds(seeds, local, "10.0.0.7")
	if want := []string{"127.0.0.1:7946", "localhost:7946", "10.0.0.8:7946", "10.0.0.7:7947", "no-port"}; !slices.Equal(got, want) {
		t.Fatalf("bound to one IP: %v, want %v", got, want)
	}
}

// After a split heals, each side tells the other to restart: only the side in the
// majority of both views stays (a tie goes to the side with the smallest id), and a
// node frozen while the others went on restarts.
func TestEvictNoticeAfterSplit(t *testing.T) {
	node := func(published ...string) *Provider {
		p, err := New(Config{Logger: zerolog.Nop()})
		if err != nil {
			t.Fatal(err)
		}
		p.self.ID = "me"
		for _, id := range published {
			p.published = append(p.published, Member{ID: id})
		}
		return p
	}
	evicted := func(p *Provider) bool {
		select {
		case <-p.Evicted():
			return true
		default:
			return false
		}
	}
	notice := func(from string, view ...string) evictNotice {
		return evictNotice{Target: "me", From: from, Node: "node-" + from, View: view}
	}
	cases := []struct {
		name string
		p    *Provider
		n    evictNotice
		want bool
	}{
		{"frozen while the others went on", node("a", "b", "me"), notice("a", "a", "b"), true},
		{"alone against two", node("me"), notice("a", "a", "b"), true},
		{"two against one", node("b", "me"), notice("c", "c"), false},
		{"told by a node alone, tie, this side has the smallest id", node("x", "me"), notice("x", "x"), false},
		{"told by a node alone, tie, it has the smallest id", node("a", "me"), notice("a", "a"), true},
		{"tie, the sender's side has the smallest id", node("c", "me"), notice("a", "a", "b"), true},
		{"tie, this side has the smallest id", node("a", "me"), notice("c", "c", "d"), false},
		{"another member", node("me"), evictNotice{Target: "x", From: "a", View: []string{"a", "b"}}, false},
	}
	for _, c := range cases {
		if n, ok := parseEvictNotice(c.n.encode()); !ok || n.Target != c.n.Target || n.From != c.n.From ||
			!slices.Equal(n.View, c.n.View) {
			t.Fatalf("%s: notice round trip %+v %v", c.name, n, ok)
		}
		(&delegate{p: c.p}).NotifyMsg(c.n.encode())
		if got := evicted(c.p); got != c.want {
			t.Errorf("%s: evicted %v, want %v", c.name, got, c.want)
		}
	}
	p := node("a", "me", "z")
	(&delegate{p: p}).NotifyMsg([]byte("atende-evicted:me")) // an older node's bare notice
	if !evicted(p) {
		t.Error("bare notice not obeyed")
	}
	for _, bad := range []string{"atende-evicted:", `atende-evicted:{"t":"me"}`, `atende-evicted:{bad`} {
		if _, ok := parseEvictNotice([]byte(bad)); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

// rawDelegate gives a bare memberlist node metadata that the test changes.
type rawDelegate struct{ meta atomic.Pointer[[]byte] }

func (d *rawDelegate) NodeMeta(int) []byte             { return *d.meta.Load() }
func (d *rawDelegate) NotifyMsg([]byte)                {}
func (d *rawDelegate) GetBroadcasts(int, int) [][]byte { return nil }
func (d *rawDelegate) LocalState(bool) []byte          { return nil }
func (d *rawDelegate) MergeRemoteState([]byte, bool)   {}

// memberlist rewrites a node's metadata, under its own lock, each time the node
// re-advertises. The provider reads only the copies it took in memberlist's
// callbacks, so a node whose metadata keeps changing while the provider publishes
// is no data race (run with -race: reading through memberlist's pointers was one),
// and the provider follows the changes.
func TestNodeMetadataChangesWhilePublishing(t *testing.T) {
	p, err := New(Config{BindAddr: "127.0.0.1", Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	node, err := actors.StartNode(actors.NodeConfig{Host: "127.0.0.1", Provider: p, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.Shutdown(false)
		node.Stop(false)
	})

	// A bare gossip node, a cluster client (so no member of the actor topology)
	// whose advertised actor port changes at every update.
	metaFor := func(port int) []byte {
		b, err := nodeMeta{Cluster: "atende", ID: "raw", Host: "127.0.0.1", Port: port, Client: true}.encode()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	d := &rawDelegate{}
	first := metaFor(1)
	d.meta.Store(&first)
	c := memberlist.DefaultLANConfig()
	c.Name, c.BindAddr, c.BindPort = "raw-"+DefaultNodeName(), "127.0.0.1", 0
	c.Delegate, c.Logger = d, log.New(io.Discard, "", 0)
	c.GossipInterval = 10 * time.Millisecond // UpdateNode waits for the next gossip round
	raw, err := memberlist.Create(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = raw.Shutdown() })
	if _, err := raw.Join([]string{p.LocalAddr()}); err != nil {
		t.Fatal(err)
	}

	const updates = 40
	for i := 2; i <= updates; i++ {
		b := metaFor(i)
		d.meta.Store(&b)
		if err := raw.UpdateNode(5 * time.Second); err != nil {
			t.Fatal(err)
		}
		p.publish() // besides the publisher loop's own, right after each change
	}

	deadline := time.Now().Add(10 * time.Second)
	for {
		n := p.gossipNode(c.Name)
		if m, err := decodeMeta(n.Meta); err == nil && m.Port == updates {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the provider's copy of %s has metadata %q, want port %d", c.Name, n.Meta, updates)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := memberIDs(p.Members()); !slices.Equal(got, []string{node.System.ID}) {
		t.Fatalf("members = %v, want this node only (the bare node is a client)", got)
	}
}
