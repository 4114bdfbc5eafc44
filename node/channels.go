package node

import (
	"context"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"atende/actors"
	"atende/engine"
	"atende/persistence/credentials"
	"atende/persistence/redisstate"
	"atende/transport/channel/meta"
	"atende/transport/channel/telegram"
	"atende/transport/channel/waba"
	"atende/transport/realtime"
)

// cloudChannels are the adapters of the provider-hosted channels: WABA (WhatsApp
// Cloud API), Facebook and Instagram (Messenger Platform) and Telegram. Their
// credentials live in persistence/credentials; their routes are registered by
// channelRoutes.
type cloudChannels struct {
	creds    engine.CredentialStore
	waba     *waba.Service
	meta     *meta.Service
	telegram *telegram.Service
}

// liveActors reaches connection actors through the node, which starts after the
// adapters are built (they are part of the connection kind's factory).
type liveActors struct{ l *live }

func (a liveActors) c() actors.Connections { return actors.Connections{Node: a.l.node} }
func (a liveActors) Start(ctx context.Context, id engine.ID) (engine.Connection, error) {
	return a.c().Start(ctx, id)
}
func (a liveActors) Restart(ctx context.Context, id engine.ID) error { return a.c().Restart(ctx, id) }
func (a liveActors) Sink(id engine.ID) engine.ChannelSink            { return a.c().Sink(id) }

// dedupedActors are liveActors whose sinks absorb a provider's re-deliveries of an
// inbound message already handled (redisstate.InboundDedupe), and pass the others
// through the node's admission control (package ingest: a call without a place, or
// that stalls, is a 503 with Retry-After): what the web-hook handlers get. The
// de-duplication comes first, so a re-delivery of a handled message is answered
// even when the node is too busy for new ones. The channels the actors start keep
// the plain sinks the actors give.
type dedupedActors struct {
	liveActors
	d *redisstate.InboundDedupe
}

func (a dedupedActors) Sink(id engine.ID) engine.ChannelSink {
	return a.d.Sink(id, a.l.admission.Sink(id, a.liveActors.Sink(id)))
}

// webhookDedupe builds the de-duplication fast path of one provider's web-hooks, on
// the app's keys (Redis in a cluster, this process on a single node), and exposes
// its counters on /metrics.
func (n *Node) webhookDedupe(provider string, log zerolog.Logger) *redisstate.InboundDedupe {
	d := &redisstate.InboundDedupe{Keys: n.dedupe, TTL: n.cfg.WebhookDedupeTTL,
		Logger: log.With().Str("component", "webhook-dedupe").Str("provider", provider).Logger()}
	counter := func(name, help string, v func(redisstate.InboundDedupeStats) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help,
			ConstLabels: prometheus.Labels{"provider": provider}},
			func() float64 { return float64(v(d.Stats())) })
	}
	n.metrics.MustRegister(
		counter("atende_webhook_duplicates_total", "Inbound web-hook messages answered as re-deliveries without reaching the connection actor.",
			func(s redisstate.InboundDedupeStats) uint64 { return s.Duplicates }),
		counter("atende_webhook_dedupe_errors_total", "Inbound web-hook messages whose de-duplication key could not be claimed (passed to the actor).",
			func(s redisstate.InboundDedupeStats) uint64 { return s.ClaimErrors }))
	return d
}

// startChannels builds the cloud channel adapters from the configuration.
func (l *live) startChannels(n *Node, log zerolog.Logger) error {
	cfg, c := n.cfg, &l.cloud
	c.creds = credentials.New(n.db, nil)
	acts := liveActors{l: l}
	hooks := func(provider string) dedupedActors {
		return dedupedActors{liveActors: acts, d: n.webhookDedupe(provider, log)}
	}
	bus := realtime.Bus{Journal: l.journal, Logger: log} // the "whatsapp" event of a connection a registration made
	var err error
	if c.waba, err = waba.New(waba.Config{GraphURL: cfg.GraphURL, AppID: cfg.MetaAppID, AppSecret: cfg.MetaAppSecret,
		VerifyToken: cfg.MetaVerifyToken, ConfigID: cfg.MetaConfigID},
		waba.Deps{Connections: l.conns, Credentials: c.creds, Media: l.media, Actors: hooks("waba"), Tickets: ticketTargets{l}, Publisher: bus, Logger: log}); err != nil {
		return err
	}
	if c.meta, err = meta.New(meta.Config{GraphURL: cfg.GraphURL, AppID: cfg.MetaAppID, AppSecret: cfg.MetaAppSecret, VerifyToken: cfg.MetaVerifyToken},
		meta.Deps{Connections: l.conns, Credentials: c.creds, Media: l.media, Actors: hooks("meta"), Publisher: bus, Logger: log}); err != nil {
		return err
	}
	if c.telegram, err = telegram.New(telegram.Config{APIURL: cfg.TelegramAPIURL, Mode: cfg.TelegramMode,
		PublicURL: strings.TrimRight(cfg.PublicURL, "/")},
		telegram.Deps{Connections: l.conns, Credentials: c.creds, Media: l.media, Actors: hooks("telegram"), Publisher: bus, Logger: log}); err != nil {
		return err
	}
	// Registered before the node starts, so it runs after the node stopped: no bot is
	// polled by a node that has left.
	n.onClose(c.telegram.Close)
	return nil
}

// channelRoutes registers the cloud channels' routes and web-hooks on the API.
func (l *live) channelRoutes(r meta.Router) {
	l.cloud.waba.Routes(r)
	l.cloud.meta.Routes(r)
	l.cloud.telegram.Routes(r)
}

// newCloudChannel builds the channel of a cloud connection; ok is false for other
// channels.
func (c *cloudChannels) newCloudChannel(conn engine.Connection) (ch engine.Channel, ok bool, err error) {
	if c == nil || c.waba == nil {
		return nil, false, nil
	}
	switch conn.Channel {
	case engine.ChannelWABA:
		ch, err = c.waba.NewChannel(conn)
	case engine.ChannelFacebook, engine.ChannelInstagram:
		ch, err = c.meta.NewChannel(conn)
	case engine.ChannelTelegram:
		ch, err = c.telegram.NewChannel(conn)
	default:
		return nil, false, nil
	}
	return ch, true, err
}

// ticketTargets answers POST /waba/sendtemplatemessage/'s question: the connection
// and contact number of a ticket of the tenant. Sending a template on a ticket is
// sending a message on it, so it is judged by the same rule as POST /messages
// (engine.AuthorizeTicket on the ticket actor's state, for a SendMessage by p).
type ticketTargets struct{ l *live }

func (t ticketTargets) TicketTarget(ctx context.Context, p engine.Principal, ticketID engine.ID) (engine.ID, string, error) {
	st, err := actors.Tickets{Node: t.l.node}.State(ctx, p.CompanyID, ticketID)
	if err != nil {
		return 0, "", err
	}
	if err := engine.AuthorizeTicket(p, st, engine.SendMessage{SenderID: p.UserID}); err != nil {
		return 0, "", err
	}
	contact, err := t.l.contacts.Get(ctx, p.CompanyID, st.ContactID)
	if engine.CodeOf(err) == engine.ErrNoContactFound || err == nil && contact.Number == "" {
		return 0, "", engine.E(engine.ErrNoContactFound)
	}
	if err != nil {
		return 0, "", err
	}
	return st.ConnectionID, contact.Number, nil
}
