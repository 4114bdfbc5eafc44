package node

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/rs/zerolog"

	"atende/actors"
	atcluster "atende/cluster"
	"atende/engine"
	"atende/persistence/connection"
	"atende/persistence/dashboard"
	"atende/persistence/db"
	"atende/persistence/journal"
	"atende/persistence/projection"
	"atende/persistence/readmodel"
	"atende/persistence/store"
	"atende/transport/call"
	"atende/transport/channel/webchat"
	"atende/transport/channel/whatsapp"
	httpapi "atende/transport/http"
	"atende/transport/ingest"
	"atende/transport/media"
	"atende/transport/netlimit"
	"atende/transport/realtime"
	"atende/transport/socket"
)

// live is the part of a node that moves: journal, read models, actors, channels and
// realtime fan-out. Its fields are set once by startLive's steps, in order, and only
// read after New returned.
type live struct {
	journal     *journal.Store
	tail        *journal.Tail
	runner      *projection.Runner
	dashboard   *dashboard.Projection
	rezoner     *dashRezoner // rebuilds a tenant's dashboard after a zone change
	queries     *readmodel.Queries
	media       *media.Store
	ids         *db.IDs
	conns       *connection.Store
	contacts    engine.ContactStore
	guard       *connection.Guard
	webchat     *webchat.Server
	admission   *ingest.Limiter // inbound admission control of the web chat and the web-hooks
	webchatGate *netlimit.Gate  // the web chat's handshake gate, on /metrics beside the socket gate
	cloud       cloudChannels   // WABA, Facebook, Instagram, Telegram (channels.go)
	whatsapp    *whatsapp.Factory
	routines    *actors.Routines
	node        *actors.Node
	hub         *socket.Hub
	backlog     *socket.PositionBacklog
	sockets     *socket.Server
	publisher   *realtime.Publisher
	commander   actors.Commander
	callTokens  *call.Tokens // video call links (calls.go)
	calls       *call.Relay  // video call signalling
	flows       *liveFlows   // Bizflow (flows.go)
}

// derive gives each use of the master secret its own key.
func derive(secret, purpose string) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("atende/" + purpose))
	return m.Sum(nil)
}

// replayWindow is how many recent journal events a starting node loads into its
// socket backlog, so that clients reconnecting right after a restart are replayed
// rather than resynced.
const replayWindow = 2000

// startLive starts the moving parts in dependency order; each step registers its
// closers, so the node closes them in reverse.
func (n *Node) startLive(ctx context.Context) error {
	l := &live{}
	n.live = l
	if err := n.startReadSide(ctx, l); err != nil {
		return err
	}
	n.startCompaction(l)
	wcCluster, err := n.startWebchat(ctx, l)
	if err != nil {
		return err
	}
	if err := l.startChannels(n, n.log); err != nil {
		return err
	}
	if l.whatsapp, err = n.startWhatsApp(ctx, l); err != nil {
		return err
	}
	if err := n.startActors(ctx, l); err != nil {
		return err
	}
	if wcCluster != nil {
		cancel, err := wcCluster.subscribe(ctx)
		if err != nil {
			return err
		}
		// Closers run in reverse: on a drain the visitors' sockets close (they
		// reconnect to the other nodes) before this node leaves the cluster.
		n.onClose(func(ctx context.Context) error { cancel(); return l.webchat.Shutdown(ctx) })
	}
	start, err := n.startHub(ctx, l)
	if err != nil {
		return err
	}
	if err := n.startSockets(l); err != nil {
		return err
	}
	return n.startPublisher(l, start)
}

// startReadSide opens the journal, starts the projections that fold it into the
// read models, and the media store; it sets the stores the later steps share.
func (n *Node) startReadSide(ctx context.Context, l *live) (err error) {
	log := n.log
	if l.journal, err = journal.New(n.db, journal.Config{Logger: log}); err != nil {
		return err
	}
	n.metrics.MustRegister(journalCollectors(l.journal)...)
	n.onClose(func(context.Context) error { return l.journal.Close() })
	// One read of the journal feeds the projections and the realtime publisher;
	// closed after them (closers run in reverse).
	l.tail = journal.NewTail(l.journal, journal.TailConfig{Logger: log})
	n.onClose(func(context.Context) error { l.tail.Close(); return nil })
	if l.queries, err = readmodel.NewQueries(n.db, readmodel.Config{Logger: log}); err != nil {
		return err
	}
	var ps []projection.Projection
	if ps, l.dashboard, err = readModels(n.stores.settings, log); err != nil {
		return err
	}
	if l.runner, err = projection.New(n.db, l.tail, projection.Config{Logger: log, PollInterval: tailFedPoll}, ps...); err != nil {
		return err
	}
	if err := l.runner.Start(ctx); err != nil {
		return err
	}
	n.onClose(func(context.Context) error { return l.runner.Close() })
	l.rezoner = newDashRezoner(n, l) // its jobs start with the River client (node.go)
	if l.media, err = media.New(media.Config{Dir: n.cfg.MediaDir, Secret: derive(n.cfg.JWTSecret, "media"), Logger: log,
		BaseURL: n.cfg.MediaBaseURL()}); err != nil {
		return err
	}
	n.onClose(func(context.Context) error { return l.media.Close() })
	l.ids = db.NewIDs(n.db, 100)
	l.conns, l.guard = n.stores.connections, connection.NewGuard(n.db)
	l.contacts = n.stores.contacts
	return nil
}

// startWebchat builds the inbound admission control, the video call relay and the
// web chat server with its limits. In a cluster it also returns the bridge that lets
// every node serve every visitor; the caller subscribes it once the actors run.
func (n *Node) startWebchat(ctx context.Context, l *live) (_ *webchatCluster, err error) {
	log := n.log
	var wcCluster *webchatCluster
	var sinkTimeout time.Duration // the web chat's default
	if n.cfg.Cluster {
		wcCluster = &webchatCluster{l: l, topic: n.redis.Topic("webchat"), log: log}
		// Visitor messages go through retrySink: 1 s attempts, 4 s in all.
		sinkTimeout = clusterSinkTimeout
	}
	if l.webchatGate, err = n.cfg.Limits.Webchat.Gate(); err != nil {
		return nil, err
	}
	newPerAddress, newPerConnection := n.cfg.Limits.newVisitorRates()
	sharedByAddress, sharedByConnection, err := n.sharedNewVisitorLimits(newPerAddress, newPerConnection)
	if err != nil {
		return nil, err
	}
	if l.admission, err = n.cfg.Limits.admission(); err != nil {
		return nil, err
	}
	n.metrics.MustRegister(admissionCollectors(l.admission)...)
	// The call relay first: web chat sockets are parties of it, as gateway sockets are.
	if err := n.startCalls(ctx, l); err != nil {
		return nil, err
	}
	if l.webchat, err = webchat.New(webchat.Config{Secret: derive(n.cfg.JWTSecret, "webchat"), Logger: log,
		Calls: l.calls, CallTicket: l.webchatTicket,
		// The actor node starts after the web chat and before any listener: a
		// visitor's first socket finds it.
		RoutesHere: func(conn engine.ID, number string) bool { return l.node == nil || l.node.RoutesHere(conn, number) },
		Gate:       l.webchatGate, ClientAddr: n.cfg.Limits.clientAddr,
		NewVisitorRate: newPerAddress, NewVisitorsPerConnection: newPerConnection,
		ProofOfWorkBits:            n.cfg.Limits.WebchatProofBits,
		SharedNewVisitorsByAddress: sharedByAddress, SharedNewVisitorsByConnection: sharedByConnection,
		Cluster: wcClusterOrNil(wcCluster), SinkTimeout: sinkTimeout, Admission: l.admission, History: webchat.HistoryFunc(l.webchatHistory),
		ZoneName: func(ctx context.Context, companyID engine.ID) string {
			loc, err := engine.TenantZone(ctx, n.stores.settings, companyID)
			if err != nil {
				return engine.TenantTimeZone
			}
			return loc.String()
		},
		MediaURL: func(companyID engine.ID, path, name string) (string, error) {
			return l.media.NamedURL(companyID, path, name, 12*time.Hour)
		}}); err != nil {
		return nil, err
	}
	n.onClose(func(ctx context.Context) error { return l.webchat.Shutdown(ctx) })
	return wcCluster, nil
}

// startActors starts the actor node with its kinds (ticket, chat, connection, flow),
// alone or as a member of the cluster, and fences this process's appends in a
// cluster. The connections' channels come from the adapters built before it.
func (n *Node) startActors(ctx context.Context, l *live) (err error) {
	log := n.log
	l.routines = &actors.Routines{}
	channels, err := n.leasedChannels(channelFactory{webchat: l.webchat, cloud: &l.cloud, whatsapp: l.whatsapp})
	if err != nil {
		return err
	}
	flowKind, err := l.newFlows(n, log)
	if err != nil {
		return err
	}
	cc := actors.ConnectionConfig{Connections: l.conns, Contacts: n.stores.contacts, Guard: l.guard,
		Queues: n.stores.tenant.CachedQueues(), Bots: n.stores.tenant.CachedBots(), Settings: n.stores.tenant.CachedSettings(),
		IDs: l.ids, Channels: channels, Journal: l.journal, Outbox: readmodel.NewOutbox(n.db),
		Attempts: readmodel.NewSendAttempts(n.db),
		Locator:  readmodel.NewLocator(n.db), Logger: log, Routines: l.routines, Flows: l.flows.store,
		Intents: intentRouter(n.ai)}
	kinds := []*cluster.Kind{
		actors.TicketKind(actors.TicketConfig{Journal: l.journal, Logger: log, Dispatch: actors.StopFlows(actors.DispatchToConnections)}),
		actors.ChatKind(actors.ChatConfig{Journal: l.journal, Logger: log}),
		actors.ConnectionKind(cc),
		actors.InboundKind(cc),
		flowKind,
	}
	nc, prov, err := n.nodeConfig(kinds)
	if err != nil {
		return err
	}
	if l.node, err = actors.StartNode(nc); err != nil {
		return err
	}
	if n.cfg.Cluster {
		// From here on every append of this process is checked against revocation by
		// the others (fenceOff).
		if err := l.journal.FenceAs(ctx, l.node.System.ID); err != nil {
			l.node.Stop(false)
			return err
		}
	}
	if err := n.serveNodeInfo(); err != nil {
		l.node.Stop(false)
		return err
	}
	n.onClose(func(context.Context) error {
		// Leave the membership first: protoactor's graceful stop shuts the actor
		// system down before it leaves, and in between the others would still send
		// this node's identities here, to actors that are gone, and wait out their
		// timeouts (a customer whose inbound partition survives, with a ticket here).
		// Once left, they activate those identities on their new owners at once.
		if prov != nil {
			if err := prov.Leave(); err != nil && !errors.Is(err, atcluster.ErrStopped) {
				log.Warn().Err(err).Msg("leave the cluster")
			}
		}
		l.node.Stop(n.cfg.Cluster)
		if prov != nil {
			_ = prov.Shutdown(false)
		}
		l.routines.Close()
		return nil
	})
	l.commander = actors.Commander{Node: l.node, Connections: l.conns}
	return nil
}

// startHub makes the sockets' hub, its backlog loaded with the last replayWindow
// events (start is the position after which the publisher carries on), and what
// acts on the hub's users: revocations and presence.
func (n *Node) startHub(ctx context.Context, l *live) (start int64, err error) {
	log := n.log
	head, err := l.journal.Head(ctx)
	if err != nil {
		return 0, err
	}
	start = max(0, head-replayWindow)
	l.backlog = socket.NewPositionBacklog(start, 0, 0, nil)
	if l.hub, err = socket.NewHub(socket.HubConfig{Backlog: l.backlog, Logger: log}); err != nil {
		return 0, err
	}
	if err := n.subscribeRevocations(ctx, l.hub, l.routines); err != nil {
		return 0, err
	}
	// A user coming online or leaving this node sends "presence" to the tenant's
	// supervision screens (the wait panel refetches its snapshot on it).
	bus := realtime.Bus{Journal: l.journal, Logger: log}
	n.startPresence(l.hub, l.routines, func(company, user engine.ID) {
		bus.PublishTo(company, "presence", engine.ActViewSupervMenu, map[string]any{"action": "update", "userId": user})
	})
	return start, nil
}

// startSockets makes the attendants' realtime gateway (Socket.IO) on the hub, behind
// its gate and origin check.
func (n *Node) startSockets(l *live) error {
	origins, err := httpapi.NewOriginPolicy(n.cfg.CORSOrigins, n.cfg.PublicURL)
	if err != nil {
		return err
	}
	socketGate, err := n.cfg.Limits.Socket.Gate()
	if err != nil {
		return err
	}
	n.metrics.MustRegister(limitCollectors(socketGate, l.webchatGate, l.webchat)...)
	if l.sockets, err = socket.NewServer(socket.Config{Hub: l.hub, Logger: n.log, Events: l.calls,
		Gate: socketGate, ClientAddr: n.cfg.Limits.clientAddr,
		// Browser pages of the own origin and CORS_ORIGINS only (docs/security.md).
		CheckOrigin:   origins.Allowed,
		Authenticator: socket.AuthenticatorFunc(n.authenticateSocket),
		Authorizer:    socket.AuthorizerFunc(l.authorizeJoin),
	}); err != nil {
		return err
	}
	n.onClose(func(ctx context.Context) error { return l.sockets.Shutdown(ctx) })
	return nil
}

// authenticateSocket admits a socket: a customer on the public call page by its call
// token, anyone else by an access token.
func (n *Node) authenticateSocket(ctx context.Context, tok string) (socket.Principal, error) {
	if call.IsToken(tok) { // a customer on the public call page
		return call.GuestPrincipal(n.live.callTokens, tok)
	}
	p, c, err := n.tokens.AuthenticateClaims(ctx, tok)
	if err != nil {
		return socket.Principal{}, err
	}
	// The socket outlives its access token and stays open while its user and
	// session are valid: a logout or a reused refresh token (Hub.EndSession)
	// and a changed or deleted user (Hub.Reauthenticate) close it at once; see
	// subscribeRevocations and syncEndedSessions. A session that simply lapses
	// (its refresh token unused for RefreshTTL) ends nowhere, so a socket must
	// authenticate again after that long (4003, then a refresh or a sign-out).
	return socket.Principal{UserID: p.UserID, CompanyID: p.CompanyID, Profile: knownProfile(p.Profile), QueueIDs: p.QueueIDs,
		Session: c.Session, ExpiresAt: time.Now().Add(n.cfg.RefreshTTL)}, nil
}

// knownProfile is profile as one of engine's constants when it is one: an open
// socket keeps the shared string, not the one its token's claims were decoded into.
func knownProfile(profile string) string {
	for _, known := range [...]string{engine.ProfileUser, engine.ProfileUserPlus, engine.ProfileSuperv,
		engine.ProfileManager, engine.ProfileAdmin, engine.ProfileSuper} {
		if profile == known {
			return known
		}
	}
	return profile
}

// startPublisher tails the journal from start and publishes every event to this
// node's sockets.
func (n *Node) startPublisher(l *live, start int64) (err error) {
	// The publisher reads the tickets' read model (with the contacts' appraisal sums)
	// and the chats', so it waits for those projections only; the dashboard's answers
	// wait for theirs instead (freshDashboard).
	read, err := l.runner.Only(readmodel.ProjectionName, dashboard.AppraisalProjectionName, readmodel.ChatProjectionName)
	if err != nil {
		return err
	}
	if l.publisher, err = realtime.New(realtime.Config{Source: l.tail, Hub: l.hub, Backlog: l.backlog, Poll: tailFedPoll,
		Queries: l.queries, Waiter: read, Start: start, Logger: n.log, Chats: readmodel.NewChatQueries(n.db),
		SignMedia: func(companyID engine.ID, path string) string {
			u, err := l.media.URL(companyID, path, 12*time.Hour)
			if err != nil {
				return ""
			}
			return u
		}}); err != nil {
		return err
	}
	l.publisher.Start()
	n.onClose(func(context.Context) error { l.publisher.Close(); return nil })
	return nil
}

// activateConnections starts every connection's actor (and so its channel session).
func (l *live) activateConnections(ctx context.Context, log zerolog.Logger) {
	all, err := l.conns.All(ctx)
	if err != nil {
		log.Error().Err(err).Msg("list connections to activate")
		return
	}
	for _, c := range all {
		if _, err := (actors.Connections{Node: l.node}).Start(ctx, c.ID); err != nil {
			log.Error().Err(err).Int64("conn_id", c.ID).Msg("activate connection")
		}
	}
}

// authorizeJoin decides the socket joins: any member of staff may watch a ticket of
// their tenant (reading is open to all, spec section 6) and the ticket tabs; the
// notification room needs notifications:view, which every profile has (whaticket's
// client joins it from every list): what an attendant receives there is held to the
// tickets they may see by each event's visibility filter.
func (l *live) authorizeJoin(ctx context.Context, p socket.Principal, room socket.Room) error {
	switch room.Kind {
	case socket.RoomChatBox:
		id, err := strconv.ParseInt(room.ID, 10, 64)
		if err != nil {
			return engine.E(engine.ErrNoTicketFound)
		}
		_, err = l.queries.GetTicket(ctx, p.CompanyID, id)
		return err
	case socket.RoomTickets:
		switch room.ID {
		case engine.StatusOpen, engine.StatusPending, engine.StatusClosed:
			return nil
		}
		return engine.E(engine.ErrValidation)
	case socket.RoomNotification:
		if !engine.Can(p.Profile, engine.ActViewNotifications) {
			return engine.E(engine.ErrNoPermission)
		}
		return nil
	}
	return engine.E(engine.ErrNoPermission)
}

// channelFactory builds the channel of each connection by its kind.
type channelFactory struct {
	webchat  *webchat.Server
	cloud    *cloudChannels
	whatsapp *whatsapp.Factory
}

func (f channelFactory) NewChannel(conn engine.Connection) (engine.Channel, error) {
	switch conn.Channel {
	case engine.ChannelSocket:
		return f.webchat.NewChannel(conn)
	case engine.ChannelWhatsApp:
		return f.whatsapp.NewChannel(conn)
	}
	if ch, ok, err := f.cloud.newCloudChannel(conn); ok {
		return ch, err
	}
	return nil, fmt.Errorf("no adapter for channel %q yet", conn.Channel)
}

// tailFedPoll is how often the projections and the realtime publisher read without
// a notification. They read from the journal's tail, whose Notify announces every
// event it reads and which itself looks for other nodes' commits (journal.Tail), so
// theirs is a safety net only: shorter, it woke an idle node's five readers dozens
// of times a second for nothing.
const tailFedPoll = time.Second

// readModels are the projections every node runs (and `atende import` runs to build
// what it imported): the ticket and message read models, the dashboard's, the
// appraisals' and the internal chats'.
func readModels(settings *store.Settings, log zerolog.Logger) ([]projection.Projection, *dashboard.Projection, error) {
	dash, err := dashboard.NewProjection(func(ctx context.Context, q db.Querier, companyID engine.ID) (*time.Location, error) {
		return engine.TenantZone(ctx, settings.Within(q), companyID)
	}, log)
	if err != nil {
		return nil, nil, err
	}
	return []projection.Projection{readmodel.NewProjection(log), dash, dashboard.AppraisalProjection{},
		readmodel.ChatProjection{}}, dash, nil
}
