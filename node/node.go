package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/rs/zerolog"

	"atende/actors"
	"atende/cluster"
	"atende/docs"
	"atende/engine"
	"atende/goroutine"
	"atende/persistence/connection"
	"atende/persistence/dashboard"
	"atende/persistence/db"
	"atende/persistence/jobs"
	"atende/persistence/readmodel"
	"atende/persistence/redisstate"
	"atende/persistence/schedule"
	"atende/persistence/seed"
	"atende/persistence/store"
	httpapi "atende/transport/http"
	"atende/transport/http/token"
	"atende/transport/realtime"
	"atende/web"
)

// Node is one running server node: everything `atende serve` starts, in start
// order, and closed in reverse. New builds it; Run (or ServeOn) serves until its
// context ends, then closes it.
type Node struct {
	cfg Config
	log zerolog.Logger

	db      *db.DB
	metrics *prometheus.Registry
	// metricsHTTP serves /metrics on METRICS_ADDR (security.go); nil without it.
	metricsHTTP *http.Server
	stores      stores
	tokens      *token.Service
	live        *live
	ai          httpapi.AIDeps    // AI assistance (ai.go); its client also routes new tickets by intent
	redis       *redisstate.Redis // shared state in cluster mode; nil without REDIS_URL
	gossip      *cluster.Provider // cluster membership; nil on a single node
	// revocations carries credential changes and logouts to every node (Redis), or
	// within this process on a single node; presence is who is online, likewise.
	revocations redisstate.SessionRevocations
	presence    engine.Presence
	// dedupe holds the web-hook de-duplication keys (Redis in a cluster, else this
	// process): the fast path in front of the connection actors (channels.go).
	dedupe engine.DedupeKeys
	// jobInserter inserts every package's River jobs (insert-only: it works none and
	// takes no part in River's leader election); the node's one working client is
	// built in New from every package's jobs.Kinds.
	jobInserter *jobs.Client
	api         *httpapi.Server
	http        *http.Server
	closers     []func(context.Context) error // run in reverse order by close
}

// stores are the reference-data stores every part shares.
type stores struct {
	companies     *store.Companies
	users         *store.Users
	settings      *store.Settings
	refreshTokens *store.RefreshTokens
	contacts      *store.Contacts
	queues        *store.Queues
	tags          *store.Tags
	quickAnswers  *store.QuickAnswers
	bots          *store.Bots
	connections   *connection.Store
	slots         *store.Slots
	// tenant caches the bot's reads of bots, queues and settings: the API writes
	// through its plain views, the actors read through its cached ones.
	tenant *store.TenantCache
}

func newStores(d *db.DB, clock engine.Clock) stores {
	s := stores{
		companies:     store.NewCompanies(d, clock),
		users:         store.NewUsers(d, clock),
		settings:      store.NewSettings(d, clock),
		refreshTokens: store.NewRefreshTokens(d, clock),
		contacts:      store.NewContacts(d, clock),
		queues:        store.NewQueues(d, clock),
		tags:          store.NewTags(d, clock),
		quickAnswers:  store.NewQuickAnswers(d, clock),
		bots:          store.NewBots(d, clock),
		connections:   connection.New(d, clock),
		slots:         newSlots(d, clock),
	}
	s.tenant = store.NewTenantCache(s.bots, s.queues, s.settings, store.DefaultTenantCacheTTL, nil)
	return s
}

// newSlots is the booking scheduler's store, reading and writing slots in each
// tenant's own time zone.
func newSlots(d *db.DB, clock engine.Clock) *store.Slots {
	s := store.NewSlots(d, clock)
	settings := store.NewSettings(d, clock)
	s.ZoneOf = func(ctx context.Context, companyID engine.ID) (*time.Location, error) {
		return engine.TenantZone(ctx, settings, companyID)
	}
	return s
}

func (s stores) seedDeps(log zerolog.Logger) seed.Deps {
	return seed.Deps{Companies: s.companies, Users: s.users, Settings: s.settings, Log: log, Connections: s.connections,
		RefDeps: seed.RefDeps{Contacts: s.contacts, Queues: s.queues, Tags: s.tags, QuickAnswers: s.quickAnswers}}
}

// New opens the database (migrating it), seeds the demo tenant when cfg asks, and
// starts every part of the node but its listeners: journal, read models, actors,
// channels, realtime gateway, REST API and the River worker. On an error it closes
// what it started.
func New(ctx context.Context, cfg Config, log zerolog.Logger) (_ *Node, err error) {
	n := &Node{cfg: cfg, log: log}
	defer func() {
		if err != nil {
			n.close(context.Background())
		}
	}()
	if n.db, err = OpenDB(ctx, cfg, log); err != nil {
		return nil, err
	}
	n.onClose(func(context.Context) error { return n.db.Close() })
	clock := engine.SystemClock{}
	n.stores = newStores(n.db, clock)
	if cfg.SeedDemo {
		if err := seedDemo(ctx, cfg, n.db, n.stores, log); err != nil {
			return nil, fmt.Errorf("seed demo: %w", err)
		}
	}
	n.metrics = prometheus.NewRegistry()
	n.metrics.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	if n.tokens, err = token.New(token.Config{Secret: []byte(cfg.JWTSecret), TTL: cfg.AccessTTL,
		Ended: store.NewEndedSessions(n.db, clock)}, n.stores.users, clock); err != nil {
		return nil, err
	}
	// Logouts recorded before a restart: their tokens are refused from the first request.
	if _, err := n.tokens.Sync(ctx); err != nil {
		return nil, err
	}
	pairs, addresses, err := n.sharedState(ctx, clock)
	if err != nil {
		return nil, err
	}
	if n.ai, err = n.aiDeps(); err != nil {
		return nil, err
	}
	if n.jobInserter, err = jobs.NewInserter(n.db); err != nil {
		return nil, err
	}
	if err := n.startLive(ctx); err != nil {
		return nil, err
	}
	l := n.live
	groupBatches, err := n.newGroups(clock, log)
	if err != nil {
		return nil, err
	}
	sched, err := schedule.New(n.db, schedule.Config{IDs: l.ids, Contacts: n.stores.contacts, Clock: clock,
		Settings: n.stores.settings,
		Sender: actors.ScheduleSender{Node: l.node, Guard: l.guard, Users: n.stores.users,
			Connections: l.conns},
		// The API exists before the timers start (below), so a fire always has it.
		OnChange: func(sc engine.Schedule) { n.api.PublishSchedule(sc) },
		Jobs:     n.jobInserter,
		Log:      log.With().Str("component", "schedule").Logger()})
	if err != nil {
		return nil, err
	}
	apiLimiter, err := n.apiLimiter(cfg.Limits.APISendsPerMinute)
	if err != nil {
		return nil, err
	}
	campaigns, err := n.newCampaigns(cfg, clock, log)
	if err != nil {
		return nil, err
	}
	dash, err := newFreshDashboard(dashboard.NewQueries(n.db, l.dashboard.BucketZone(n.db)), l)
	if err != nil {
		return nil, err
	}
	n.api, err = httpapi.New(httpapi.Config{CookieSecure: cfg.CookieSecure, RefreshTTL: cfg.RefreshTTL, Web: web.FS(),
		CORSOrigins: cfg.CORSOrigins, PublicURL: cfg.PublicURL, HSTS: cfg.Production(),
		MetricsToken: cfg.MetricsToken, MetricsOff: cfg.MetricsOffPublicPort(),
		SignupCompany: cfg.SignupCompany, RefuseCommonPasswords: cfg.Production(),
		TrustForwardedFor: cfg.Limits.TrustForwardedFor,
		MapTileURL:        cfg.MapTileURL, MapTileAttribution: cfg.MapTileAttribution,
		APISendsPerMinute: cfg.Limits.APISendsPerMinute},
		httpapi.Deps{
			TicketDeps: httpapi.TicketDeps{Tickets: l.commander, TicketQueries: l.queries, Journal: l.journal,
				IDs: l.ids, Media: l.media, Waiter: l.runner, VideoCalls: callInvites{live: l, node: n}},
			Publisher: realtime.Bus{Journal: l.journal, Logger: log},
			Users:     n.stores.users, Settings: rezoningSettings{SettingStore: n.stores.tenant.Settings(), rezoner: l.rezoner},
			RefreshTokens: n.stores.refreshTokens,
			RefDeps: httpapi.RefDeps{Contacts: n.stores.contacts, Queues: n.stores.tenant.Queues(),
				Tags: n.stores.tags, QuickAnswers: n.stores.quickAnswers,
				Announcements: store.NewAnnouncements(n.db, clock), Presence: n.presence,
				Bookings: store.NewBookings(n.db, clock), Slots: n.stores.slots,
				Catalog: store.NewCatalog(n.db, clock), Schedules: sched,
				Dashboard: dash,
				WaitPanel: l.queries, Locations: store.NewLocations(n.db), Bots: n.stores.tenant.Bots(),
				CalendarFeeds: store.NewCalendarFeeds(n.db, clock), Campaigns: campaigns,
				Groups: groupBatches},
			ConnectionDeps: httpapi.ConnectionDeps{Connections: n.stores.connections,
				Actors: actors.Connections{Node: l.node}},
			TenantDeps: httpapi.TenantDeps{Tenants: n.stores.companies, Cluster: n.clusterView},
			ChatDeps:   httpapi.ChatDeps{Chats: actors.Chats{Node: l.node}, ChatQueries: readmodel.NewChatQueries(n.db)},
			MessagingDeps: httpapi.MessagingDeps{APITokens: store.NewAPITokens(n.db, clock),
				APISender: actors.ScheduleSender{Node: l.node, Guard: l.guard, Users: n.stores.users,
					Connections: l.conns},
				APILimiter: apiLimiter},
			AIDeps: n.ai,
			Tokens: n.tokens, PairLimiter: pairs, AddressLimiter: addresses,
			Logger: log.With().Str("component", "http").Logger(), Clock: clock, Metrics: n.metrics,
			Ready: n.readyCheck,
		})
	if err != nil {
		return nil, err
	}
	n.api.Mount("/socket.io/", l.sockets)
	n.api.Mount("/webchat/", l.webchat)
	n.api.Mount("/media/", l.media)
	n.api.Mount("/docs/", httpapi.DocsHandler(docs.FS())) // the Support page's docs link
	l.channelRoutes(n.api)
	n.flowRoutes()
	bodiesCut := prometheus.NewCounter(prometheus.CounterOpts{Name: "atende_http_slow_bodies_cut_total",
		Help: "Request bodies cut for arriving below HTTP_MIN_BODY_RATE (or beyond HTTP_READ_TIMEOUT)."})
	n.metrics.MustRegister(bodiesCut)
	n.http = cfg.Limits.httpServer(n.api.Handler(), bodiesCut.Inc)
	// One River client per node works every kind of job (package jobs): River's
	// leader, whichever node it is, then has a worker for every kind and rescues a
	// dead node's running job of any kind rather than discarding it. It starts once
	// the API exists (a job's progress always has a socket to go to) and, closed in
	// reverse order, stops before the actors and the API its jobs call.
	worker, err := jobs.New(n.db, jobs.Config{Kinds: []jobs.Kinds{sched.Kinds(), campaigns.Kinds(),
		l.flows.timers.Kinds(), groupBatches.Kinds(), l.rezoner.kinds()}})
	if err != nil {
		return nil, err
	}
	if err := worker.Start(ctx); err != nil {
		return nil, err
	}
	n.onClose(worker.Stop)
	n.wakeFlows()
	l.rezoner.catchUp(ctx)
	n.catchUpGroups(ctx, groupBatches)
	return n, nil
}

func (n *Node) onClose(fn func(context.Context) error) { n.closers = append(n.closers, fn) }

// Run listens on cfg.HTTPAddr and serves until ctx ends, then shuts down gracefully
// within cfg.ShutdownTimeout.
func (n *Node) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", n.cfg.HTTPAddr)
	if err != nil {
		n.close(context.Background())
		return err
	}
	return n.ServeOn(ctx, ln)
}

// ServeOn is Run on a listener the caller opened.
func (n *Node) ServeOn(ctx context.Context, ln net.Listener) error {
	if err := n.startMetrics(); err != nil {
		_ = ln.Close()
		n.close(context.Background())
		return err
	}
	url, login := servingLine(n.cfg, ln.Addr())
	ev := n.log.Info().Str("addr", ln.Addr().String()).Str("url", url).Str("version", n.cfg.Version).Str("db", n.db.Desc)
	msg := "serving " + url
	if login != "" {
		ev = ev.Str("demo_login", login)
		msg += " (demo login " + login + ")"
	}
	ev.Msg(msg)
	errc := make(chan error, 1)
	goroutine.Go(func() { errc <- n.http.Serve(ln) })
	keepCtx, stopKeeping := context.WithCancel(context.Background())
	n.onClose(func(context.Context) error { stopKeeping(); return nil })
	if n.cfg.Cluster {
		n.live.routines.Go(func() { n.live.keepConnections(keepCtx, n.log, 2*time.Second) })
	} else {
		n.live.routines.Go(func() { n.live.activateConnections(keepCtx, n.log) })
	}
	dbLost := make(chan time.Duration, 1)
	if n.cfg.Cluster {
		n.live.routines.Go(func() {
			db.Watch(keepCtx, n.db.SQL, 500*time.Millisecond, n.cfg.DatabaseLostAfter, func(d time.Duration) { dbLost <- d })
		})
	}
	var evicted error
	select {
	case err := <-errc:
		n.close(context.Background())
		return err
	case <-ctx.Done():
	case <-n.evicted():
		// Declared dead while alive: the others never take this member id back.
		// Drain like a SIGTERM and exit non-zero so the supervisor starts a fresh process.
		evicted = errEvicted
		n.log.Error().Msg("evicted from the cluster: shutting down to restart")
	case <-n.live.journal.Fenced():
		evicted = errFenced
		n.log.Error().Msg("fenced off the journal by the cluster: shutting down to restart")
	case d := <-dbLost:
		// Leave first: the others take this node's actors at once, while the drain
		// below (which needs the database for little) runs out its budget.
		evicted = errDatabaseLost
		n.log.Error().Dur("unreachable_for", d).Msg("PostgreSQL unreachable: leaving the cluster to restart")
		if err := n.gossip.Leave(); err != nil {
			n.log.Warn().Err(err).Msg("leave the cluster")
		}
	}
	n.log.Info().Msg("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), n.cfg.ShutdownTimeout)
	defer cancel()
	err := n.http.Shutdown(sctx)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return errors.Join(evicted, err, n.close(sctx))
}

// servingLine is what the "serving" log line tells a person who just started the
// server: the URL to open (localhost when the listener takes every address) and,
// when the demo tenant was seeded at start, its administrator's e-mail and password.
func servingLine(cfg Config, addr net.Addr) (url, login string) {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		host, port = addr.String(), ""
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	url = "http://" + host
	if port != "" {
		url = "http://" + net.JoinHostPort(host, port)
	}
	if cfg.SeedDemo {
		for _, u := range seed.DemoUsers {
			if u.Profile == engine.ProfileAdmin {
				return url, u.Email + " / " + u.Password
			}
		}
	}
	return url, ""
}

func (n *Node) close(ctx context.Context) error {
	var errs []error
	for i := len(n.closers) - 1; i >= 0; i-- {
		errs = append(errs, n.closers[i](ctx))
	}
	n.closers = nil
	return errors.Join(errs...)
}
