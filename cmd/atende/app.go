package main

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

// app is one running node: everything `atende serve` starts, in start order, and
// closed in reverse.
type app struct {
	cfg Config
	log zerolog.Logger

	db      *db.DB
	metrics *prometheus.Registry
	// metricsHTTP serves /metrics on METRICS_ADDR (metrics.go); nil without it.
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
	// built in newApp from every package's jobs.Kinds.
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
}

func newStores(d *db.DB, clock engine.Clock) stores {
	return stores{
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

func newApp(ctx context.Context, cfg Config, log zerolog.Logger) (_ *app, err error) {
	a := &app{cfg: cfg, log: log}
	defer func() {
		if err != nil {
			a.close(context.Background())
		}
	}()
	if a.db, err = openDB(ctx, cfg, log); err != nil {
		return nil, err
	}
	a.onClose(func(context.Context) error { return a.db.Close() })
	clock := engine.SystemClock{}
	a.stores = newStores(a.db, clock)
	if cfg.SeedDemo {
		if err := seedDemo(ctx, cfg, a.db, a.stores, log); err != nil {
			return nil, fmt.Errorf("seed demo: %w", err)
		}
	}
	a.metrics = prometheus.NewRegistry()
	a.metrics.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	if a.tokens, err = token.New(token.Config{Secret: []byte(cfg.JWTSecret), TTL: cfg.AccessTTL,
		Ended: store.NewEndedSessions(a.db, clock)}, a.stores.users, clock); err != nil {
		return nil, err
	}
	// Logouts recorded before a restart: their tokens are refused from the first request.
	if _, err := a.tokens.Sync(ctx); err != nil {
		return nil, err
	}
	pairs, addresses, err := a.sharedState(ctx, clock)
	if err != nil {
		return nil, err
	}
	if a.ai, err = a.aiDeps(); err != nil {
		return nil, err
	}
	if a.jobInserter, err = jobs.NewInserter(a.db); err != nil {
		return nil, err
	}
	if err := a.startLive(ctx); err != nil {
		return nil, err
	}
	l := a.live
	groupBatches, err := a.newGroups(clock, log)
	if err != nil {
		return nil, err
	}
	sched, err := schedule.New(a.db, schedule.Config{IDs: l.ids, Contacts: a.stores.contacts, Clock: clock,
		Settings: a.stores.settings,
		Sender: actors.ScheduleSender{Node: l.node, Guard: l.guard, Users: a.stores.users,
			Connections: l.conns},
		// The API exists before the timers start (below), so a fire always has it.
		OnChange: func(sc engine.Schedule) { a.api.PublishSchedule(sc) },
		Jobs:     a.jobInserter,
		Log:      log.With().Str("component", "schedule").Logger()})
	if err != nil {
		return nil, err
	}
	apiLimiter, err := a.apiLimiter(cfg.Limits.APISendsPerMinute)
	if err != nil {
		return nil, err
	}
	campaigns, err := a.newCampaigns(cfg, clock, log)
	if err != nil {
		return nil, err
	}
	a.api, err = httpapi.New(httpapi.Config{CookieSecure: cfg.CookieSecure, RefreshTTL: cfg.RefreshTTL, Web: web.FS(),
		CORSOrigins: cfg.CORSOrigins, PublicURL: cfg.PublicURL, HSTS: cfg.Production(),
		MetricsToken: cfg.MetricsToken, MetricsOff: cfg.metricsOffPublicPort(),
		SignupCompany: cfg.SignupCompany, RefuseCommonPasswords: cfg.Production(),
		TrustForwardedFor: cfg.Limits.TrustForwardedFor,
		MapTileURL:        cfg.MapTileURL, MapTileAttribution: cfg.MapTileAttribution,
		APISendsPerMinute: cfg.Limits.APISendsPerMinute},
		httpapi.Deps{
			TicketDeps: httpapi.TicketDeps{Tickets: l.commander, TicketQueries: l.queries, Journal: l.journal,
				IDs: l.ids, Media: l.media, Waiter: l.runner, VideoCalls: callInvites{live: l, app: a}},
			Publisher: realtime.Bus{Journal: l.journal, Logger: log},
			Users:     a.stores.users, Settings: rezoningSettings{SettingStore: a.stores.settings, rezoner: l.rezoner},
			RefreshTokens: a.stores.refreshTokens,
			RefDeps: httpapi.RefDeps{Contacts: a.stores.contacts, Queues: a.stores.queues,
				Tags: a.stores.tags, QuickAnswers: a.stores.quickAnswers,
				Announcements: store.NewAnnouncements(a.db, clock), Presence: a.presence,
				Bookings: store.NewBookings(a.db, clock), Slots: a.stores.slots,
				Catalog: store.NewCatalog(a.db, clock), Schedules: sched,
				Dashboard: dashboard.NewQueries(a.db, l.dashboard.BucketZone(a.db)),
				WaitPanel: l.queries, Locations: store.NewLocations(a.db), Bots: a.stores.bots,
				CalendarFeeds: store.NewCalendarFeeds(a.db, clock), Campaigns: campaigns,
				Groups: groupBatches},
			ConnectionDeps: httpapi.ConnectionDeps{Connections: a.stores.connections,
				Actors: actors.Connections{Node: l.node}},
			TenantDeps: httpapi.TenantDeps{Tenants: a.stores.companies, Cluster: a.clusterView},
			ChatDeps:   httpapi.ChatDeps{Chats: actors.Chats{Node: l.node}, ChatQueries: readmodel.NewChatQueries(a.db)},
			MessagingDeps: httpapi.MessagingDeps{APITokens: store.NewAPITokens(a.db, clock),
				APISender: actors.ScheduleSender{Node: l.node, Guard: l.guard, Users: a.stores.users,
					Connections: l.conns},
				APILimiter: apiLimiter},
			AIDeps: a.ai,
			Tokens: a.tokens, PairLimiter: pairs, AddressLimiter: addresses,
			Logger: log.With().Str("component", "http").Logger(), Clock: clock, Metrics: a.metrics,
			Ready: a.readyCheck,
		})
	if err != nil {
		return nil, err
	}
	a.api.Mount("/socket.io/", l.sockets)
	a.api.Mount("/webchat/", l.webchat)
	a.api.Mount("/media/", l.media)
	a.api.Mount("/docs/", httpapi.DocsHandler(docs.FS())) // the Support page's docs link
	l.channelRoutes(a.api)
	a.flowRoutes()
	bodiesCut := prometheus.NewCounter(prometheus.CounterOpts{Name: "atende_http_slow_bodies_cut_total",
		Help: "Request bodies cut for arriving below HTTP_MIN_BODY_RATE (or beyond HTTP_READ_TIMEOUT)."})
	a.metrics.MustRegister(bodiesCut)
	a.http = cfg.Limits.httpServer(a.api.Handler(), bodiesCut.Inc)
	// One River client per node works every kind of job (package jobs): River's
	// leader, whichever node it is, then has a worker for every kind and rescues a
	// dead node's running job of any kind rather than discarding it. It starts once
	// the API exists (a job's progress always has a socket to go to) and, closed in
	// reverse order, stops before the actors and the API its jobs call.
	worker, err := jobs.New(a.db, jobs.Config{Kinds: []jobs.Kinds{sched.Kinds(), campaigns.Kinds(),
		l.flows.timers.Kinds(), groupBatches.Kinds(), l.rezoner.kinds()}})
	if err != nil {
		return nil, err
	}
	if err := worker.Start(ctx); err != nil {
		return nil, err
	}
	a.onClose(worker.Stop)
	a.wakeFlows()
	l.rezoner.catchUp(ctx)
	a.catchUpGroups(ctx, groupBatches)
	return a, nil
}

func (a *app) onClose(fn func(context.Context) error) { a.closers = append(a.closers, fn) }

// run serves until ctx ends, then shuts down gracefully within the configured budget.
func (a *app) run(ctx context.Context) error {
	ln, err := net.Listen("tcp", a.cfg.HTTPAddr)
	if err != nil {
		a.close(context.Background())
		return err
	}
	return a.serveOn(ctx, ln)
}

// serveOn is run on a listener the caller opened.
func (a *app) serveOn(ctx context.Context, ln net.Listener) error {
	if err := a.startMetrics(); err != nil {
		_ = ln.Close()
		a.close(context.Background())
		return err
	}
	url, login := servingLine(a.cfg, ln.Addr())
	ev := a.log.Info().Str("addr", ln.Addr().String()).Str("url", url).Str("version", version).Str("db", a.db.Desc)
	msg := "serving " + url
	if login != "" {
		ev = ev.Str("demo_login", login)
		msg += " (demo login " + login + ")"
	}
	ev.Msg(msg)
	errc := make(chan error, 1)
	goroutine.Go(func() { errc <- a.http.Serve(ln) })
	keepCtx, stopKeeping := context.WithCancel(context.Background())
	a.onClose(func(context.Context) error { stopKeeping(); return nil })
	if a.cfg.Cluster {
		a.live.routines.Go(func() { a.live.keepConnections(keepCtx, a.log, 2*time.Second) })
	} else {
		a.live.routines.Go(func() { a.live.activateConnections(keepCtx, a.log) })
	}
	dbLost := make(chan time.Duration, 1)
	if a.cfg.Cluster {
		a.live.routines.Go(func() {
			db.Watch(keepCtx, a.db.SQL, 500*time.Millisecond, a.cfg.DatabaseLostAfter, func(d time.Duration) { dbLost <- d })
		})
	}
	var evicted error
	select {
	case err := <-errc:
		a.close(context.Background())
		return err
	case <-ctx.Done():
	case <-a.evicted():
		// Declared dead while alive: the others never take this member id back.
		// Drain like a SIGTERM and exit non-zero so the supervisor starts a fresh process.
		evicted = errEvicted
		a.log.Error().Msg("evicted from the cluster: shutting down to restart")
	case <-a.live.journal.Fenced():
		evicted = errFenced
		a.log.Error().Msg("fenced off the journal by the cluster: shutting down to restart")
	case d := <-dbLost:
		// Leave first: the others take this node's actors at once, while the drain
		// below (which needs the database for little) runs out its budget.
		evicted = errDatabaseLost
		a.log.Error().Dur("unreachable_for", d).Msg("PostgreSQL unreachable: leaving the cluster to restart")
		if err := a.gossip.Leave(); err != nil {
			a.log.Warn().Err(err).Msg("leave the cluster")
		}
	}
	a.log.Info().Msg("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownTimeout)
	defer cancel()
	err := a.http.Shutdown(sctx)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return errors.Join(evicted, err, a.close(sctx))
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

func (a *app) close(ctx context.Context) error {
	var errs []error
	for i := len(a.closers) - 1; i >= 0; i-- {
		errs = append(errs, a.closers[i](ctx))
	}
	a.closers = nil
	return errors.Join(errs...)
}
