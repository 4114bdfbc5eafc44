package node

import (
	"context"
	"errors"
	"time"

	"github.com/rs/zerolog"

	"atende/actors"
	"atende/engine"
	"atende/persistence/redisstate"
	"atende/transport/channel/webchat"
)

// clusterSinkTimeout bounds a web chat visitor's message on its way to the
// connection's actor in cluster mode, and clusterAttemptTimeout each attempt
// (docs/cluster.md, "Web chat across nodes"): a call in flight to a node that died
// or is leaving is lost with it, so it is given up after 1 s and sent again, to the
// actor's new home once the topology changed.
const (
	clusterSinkTimeout    = 4 * time.Second
	clusterAttemptTimeout = time.Second
)

// webchatCluster lets every node serve every web chat visitor (webchat.Cluster):
// what a visitor says goes to the connection's actor through the cluster; what the
// actor sends is published on the Redis topic "webchat", and every node hands it to
// the visitor's sockets it holds.
type webchatCluster struct {
	l     *live
	topic redisstate.Topic
	log   zerolog.Logger
}

func (w *webchatCluster) Endpoint(ctx context.Context, id engine.ID) (engine.Connection, engine.ChannelSink, error) {
	c, err := w.l.conns.Lookup(ctx, id)
	if err != nil {
		return engine.Connection{}, nil, err
	}
	if c.Channel != engine.ChannelSocket {
		return engine.Connection{}, nil, engine.E(engine.ErrNoWappFound)
	}
	return c, retrySink{actors.Connections{Node: w.l.node}.Sink(id)}, nil
}

// retrySink retries calls the cluster could not deliver or answer in time
// (actors.ErrUnavailable: the actor's node died or is leaving, or the topology has
// not caught up yet) and calls the actor answered with ERR_UNAVAILABLE (it could not
// reach a ticket whose node is leaving), each attempt bounded by
// clusterAttemptTimeout, with backoff until ctx ends. Inbound and receipts are idempotent (the actors de-duplicate on
// the provider id), so a retry is harmless.
type retrySink struct{ next engine.ChannelSink }

func (s retrySink) Inbound(ctx context.Context, m engine.InboundMessage) error {
	return retry(ctx, func(ctx context.Context) error { return s.next.Inbound(ctx, m) })
}

func (s retrySink) Receipt(ctx context.Context, r engine.Receipt) error {
	return retry(ctx, func(ctx context.Context) error { return s.next.Receipt(ctx, r) })
}

func (s retrySink) Status(ctx context.Context, st engine.StatusChange) error {
	return retry(ctx, func(ctx context.Context) error { return s.next.Status(ctx, st) })
}

func retry(ctx context.Context, call func(context.Context) error) error {
	wait := 50 * time.Millisecond
	for {
		actx, cancel := context.WithTimeout(ctx, clusterAttemptTimeout)
		err := call(actx)
		cancel()
		if err == nil || !retryable(err) || ctx.Err() != nil {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, 400*time.Millisecond)
	}
}

// retryable: the call may succeed if made again once the topology settles.
func retryable(err error) bool {
	return errors.Is(err, actors.ErrUnavailable) || errors.Is(err, engine.E(engine.ErrUnavailable))
}

func (w *webchatCluster) Publish(ctx context.Context, d webchat.Delivery) error {
	b, err := webchat.MarshalDelivery(d)
	if err != nil {
		return err
	}
	return w.topic.Publish(ctx, b)
}

// subscribe delivers the topic's messages to this node's visitors until cancel.
func (w *webchatCluster) subscribe(ctx context.Context) (cancel func(), err error) {
	return w.topic.Subscribe(ctx, func(p []byte) {
		d, err := webchat.UnmarshalDelivery(p)
		if err != nil {
			w.log.Warn().Err(err).Msg("ignoring malformed web chat delivery")
			return
		}
		w.l.webchat.Deliver(d)
	})
}

// wcClusterOrNil keeps a nil *webchatCluster from becoming a non-nil interface.
func wcClusterOrNil(w *webchatCluster) webchat.Cluster {
	if w == nil {
		return nil
	}
	return w
}

// webchatHistory is what a returning visitor sees: the messages of their current
// ticket on that connection, oldest first, without internal notes.
func (l *live) webchatHistory(ctx context.Context, connectionID engine.ID, visitor string, limit int) ([]webchat.HistoryItem, error) {
	conn, tid, err := l.webchatConversation(ctx, connectionID, visitor)
	if err != nil || tid == 0 {
		return nil, err
	}
	msgs, err := l.queries.AllMessages(ctx, conn.CompanyID, tid)
	if err != nil {
		if engine.CodeOf(err) == engine.ErrNoTicketFound {
			return nil, nil
		}
		return nil, err
	}
	var out []webchat.HistoryItem
	for _, m := range msgs {
		if m.MediaType == engine.MediaWhisper || m.MediaType == engine.MediaChatGPT || m.IsDeleted { // the attendants' own
			continue
		}
		out = append(out, webchat.HistoryItem{MessageID: m.ID, ProviderID: m.ProviderID, FromMe: m.FromMe, Ack: m.Ack,
			Body: m.Body, MediaType: m.MediaType, MediaPath: m.MediaURL, At: m.CreatedAt})
	}
	if limit > 0 && len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, nil
}

// webchatConversation answers a web chat connection and the ticket of visitor's
// conversation on it: the contact's current ticket there (0 when the visitor has no
// contact or no open ticket).
func (l *live) webchatConversation(ctx context.Context, connectionID engine.ID, visitor string) (engine.Connection, engine.ID, error) {
	conn, err := l.conns.Lookup(ctx, connectionID)
	if err != nil {
		return engine.Connection{}, 0, err
	}
	contact, err := l.contacts.FindByNumber(ctx, conn.CompanyID, visitor)
	if engine.CodeOf(err) == engine.ErrNoContactFound {
		return conn, 0, nil
	}
	if err != nil {
		return conn, 0, err
	}
	tid, err := l.guard.Current(ctx, connectionID, contact.ID)
	return conn, tid, err
}

// webchatTicket is the web chat's CallTicket: a visitor joins only the video call
// of its own conversation's ticket.
func (l *live) webchatTicket(ctx context.Context, connectionID engine.ID, visitor string) (engine.ID, error) {
	_, tid, err := l.webchatConversation(ctx, connectionID, visitor)
	return tid, err
}
