package actors

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/connection"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/journal"
	"atende/persistence/store"
)

// recChannel is a channel that records what it is asked to send and lets the test
// speak as the customer through the sink it was started with.
type recChannel struct {
	mu      sync.Mutex
	sink    engine.ChannelSink
	sent    []engine.OutboundMessage
	started chan struct{}
	failN   int // fail that many sends with a temporary error first
	refuse  int // refuse that many sends for good (a permanent error) first
	tries   int // every Send call, refused ones included
	// onSend, when set, runs first in every Send, outside the lock; an error it
	// returns is Send's.
	onSend func(ctx context.Context, m engine.OutboundMessage) error
	// book is the session's address book (engine.ContactLister).
	book []engine.PhoneContact
}

func (c *recChannel) PhoneContacts(context.Context) ([]engine.PhoneContact, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.book, nil
}

func (c *recChannel) Start(_ context.Context, sink engine.ChannelSink) error {
	c.mu.Lock()
	c.sink = sink
	c.mu.Unlock()
	close(c.started)
	return nil
}

func (c *recChannel) Send(ctx context.Context, m engine.OutboundMessage) (string, error) {
	if c.onSend != nil {
		if err := c.onSend(ctx, m); err != nil {
			return "", err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tries++
	if c.refuse > 0 {
		c.refuse--
		return "", engine.E(engine.ErrValidation)
	}
	if c.failN > 0 {
		c.failN--
		return "", engine.ErrChannelTemporary
	}
	c.sent = append(c.sent, m)
	return fmt.Sprintf("out-%d", m.MessageID), nil
}

func (c *recChannel) Stop(context.Context) error { return nil }

func (c *recChannel) sentTo(to string) []engine.OutboundMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []engine.OutboundMessage
	for _, m := range c.sent {
		if m.To == to {
			out = append(out, m)
		}
	}
	return out
}

// idemChannel is a recChannel that declares its re-sends de-duplicated.
type idemChannel struct{ *recChannel }

func (idemChannel) ResendIsIdempotent() bool { return true }

type recFactory struct {
	mu  sync.Mutex
	chs map[engine.ID]*recChannel
	// idempotent makes new channels engine.IdempotentSender; onSend is given to them.
	idempotent bool
	onSend     func(ctx context.Context, m engine.OutboundMessage) error
}

func (f *recFactory) NewChannel(conn engine.Connection) (engine.Channel, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := &recChannel{started: make(chan struct{}), onSend: f.onSend}
	f.chs[conn.ID] = c
	if f.idempotent {
		return idemChannel{c}, nil
	}
	return c, nil
}

func (f *recFactory) get(id engine.ID) *recChannel {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.chs[id]
}

type liveRig struct {
	d        *db.DB
	journal  *journal.Store
	node     *Node
	tickets  Tickets
	conns    *connection.Store
	guard    *connection.Guard
	contacts *store.Contacts
	factory  *recFactory
	opts     []func(*ConnectionConfig)
	parts    int // NodeConfig.InboundPartitions
	stopNode func()
	appends  *appendLog // the ticket actors' appends, per stream
}

// appendLog records the event types of each append, per stream.
type appendLog struct {
	mu       sync.Mutex
	byStream map[string][][]string
}

func (l *appendLog) of(stream string) [][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.byStream[stream])
}

// loggedJournal is the rig's journal, with the ticket actors' appends logged.
type loggedJournal struct {
	*journal.Store
	log *appendLog
}

func (j loggedJournal) Append(ctx context.Context, company engine.ID, stream string, v int64, evs ...engine.EventData) (engine.AppendResult, error) {
	res, err := j.Store.Append(ctx, company, stream, v, evs...)
	if err == nil {
		types := make([]string, len(evs))
		for i, ev := range evs {
			types[i] = ev.Type
		}
		j.log.mu.Lock()
		j.log.byStream[stream] = append(j.log.byStream[stream], types)
		j.log.mu.Unlock()
	}
	return res, err
}

func newLiveRig(t testing.TB, d *db.DB, opts ...func(*ConnectionConfig)) *liveRig {
	t.Helper()
	return newPartitionedRig(t, d, 1, opts...)
}

// newPartitionedRig is newLiveRig with the connections' customers spread over parts
// inbound partitions.
func newPartitionedRig(t testing.TB, d *db.DB, parts int, opts ...func(*ConnectionConfig)) *liveRig {
	t.Helper()
	j, err := journal.New(d, journal.Config{Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	dbtest.MustExec(t, d, `INSERT INTO companies (id, name) VALUES (1, 'Demo'), (2, 'Outra')`)
	r := &liveRig{d: d, journal: j, conns: connection.New(d, nil), guard: connection.NewGuard(d),
		contacts: store.NewContacts(d, nil), factory: &recFactory{chs: map[engine.ID]*recChannel{}},
		appends: &appendLog{byStream: map[string][][]string{}}, parts: parts}
	r.opts = opts
	r.startNode(t)
	return r
}

// startNode starts a node holding the ticket and connection kinds on the rig's
// database and journal.
func (r *liveRig) startNode(t testing.TB) {
	t.Helper()
	routines := &Routines{}
	cc := ConnectionConfig{Connections: r.conns, Contacts: r.contacts, Guard: r.guard,
		IDs: db.NewIDs(r.d, 100), Channels: r.factory, Journal: r.journal, Logger: zerolog.Nop(),
		SendBackoff: 5 * time.Millisecond, Routines: routines}
	for _, o := range r.opts {
		o(&cc)
	}
	kinds := []*cluster.Kind{
		TicketKind(TicketConfig{Journal: loggedJournal{Store: r.journal, log: r.appends}, Logger: zerolog.Nop(),
			Dispatch: DispatchToConnections}),
		ConnectionKind(cc),
		InboundKind(cc),
	}
	n, err := StartNode(NodeConfig{Kinds: kinds, Logger: zerolog.Nop(), InboundPartitions: r.parts})
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	r.stopNode = func() { once.Do(func() { n.Stop(false); routines.Close() }) }
	t.Cleanup(r.stopNode)
	r.node, r.tickets = n, Tickets{Node: n}
}

// restart stops the node (its actors and their memory gone) and starts a fresh one
// on the same database and journal, as after a crash and a restart of the process.
func (r *liveRig) restart(t testing.TB) {
	t.Helper()
	r.stopNode()
	r.startNode(t)
}

// startConnection creates a connection row, activates its actor and returns its channel.
func (r *liveRig) startConnection(t testing.TB, in engine.ConnectionInput) (engine.Connection, *recChannel) {
	t.Helper()
	ctx := context.Background()
	c, err := r.conns.Create(ctx, 1, in)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (Connections{Node: r.node}).Start(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	ch := r.factory.get(c.ID)
	select {
	case <-ch.started:
	case <-time.After(5 * time.Second):
		t.Fatal("channel never started")
	}
	return c, ch
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var _ = dbtest.Each
