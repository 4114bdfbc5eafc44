package node

import "time"

// Config is everything a node needs to run: cmd/atende fills it from flags and the
// environment (README.md lists them; a flag wins over its environment variable, both
// over the default) and validates it before New. Each field names its setting.
type Config struct {
	Env          string        // ATENDE_ENV: "development" (default) or "production"
	HTTPAddr     string        // HTTP_ADDR: listen address, default ":8080"
	DatabaseURL  string        // DATABASE_URL: empty = SQLite under DataDir; postgres://… for PostgreSQL
	RedisURL     string        // REDIS_URL: empty = in-process presence, rate limits and token store
	RedisPrefix  string        // REDIS_PREFIX: starts every key and channel, default "atende:"; one per cluster
	JWTSecret    string        // JWT_SECRET: required in production; generated and kept in DataDir in development
	DataDir      string        // DATA_DIR: default "./data" (SQLite file, media, dev secret)
	MediaDir     string        // MEDIA_DIR: default DataDir/media
	LogLevel     string        // LOG_LEVEL: debug, info (default), warn, error
	LogFormat    string        // LOG_FORMAT: json or console; default console in development, json in production
	CookieSecure bool          // COOKIE_SECURE: refresh cookie only over HTTPS; default true in production
	AccessTTL    time.Duration // ACCESS_TOKEN_TTL: default 15m
	RefreshTTL   time.Duration // REFRESH_TOKEN_TTL: default 168h
	PublicURL    string        // PUBLIC_URL: how customers and providers reach this server (web chat, webhooks)
	SeedDemo     bool          // SEED_DEMO: create the demo tenant at start (idempotent); refused in production
	// CORSOrigins (CORS_ORIGINS, comma-separated) are the front-end origins of other
	// hosts allowed to use the API, the socket and media (docs/security.md). Needs
	// PUBLIC_URL; empty: same-origin only.
	CORSOrigins []string
	// MetricsAddr (METRICS_ADDR) serves /metrics on a listener of its own (e.g.
	// 127.0.0.1:9090) instead of the public port.
	MetricsAddr string
	// MetricsToken (METRICS_TOKEN) makes /metrics ask for "Authorization: Bearer
	// <token>". In production without METRICS_ADDR or METRICS_TOKEN, /metrics is
	// not served at all.
	MetricsToken    string
	SignupCompany   int64         // SIGNUP_COMPANY_ID: tenant of POST /auth/signup (whaticket's sign-up page); 0 = off
	ShutdownTimeout time.Duration // SHUTDOWN_TIMEOUT: graceful shutdown budget, default 20s

	// SeedConversations (SEED_CONVERSATIONS) adds, with SeedDemo, the demo tenant's
	// sample conversations (persistence/seed/conversations.go); `make run` sets it.
	SeedConversations bool

	// Cloud channels (docs/channels.md). Provider base URLs are configuration so
	// tests point them at local fakes.
	GraphURL        string // GRAPH_API_URL: Meta Graph API, default https://graph.facebook.com
	MetaAppID       int64  // META_APP_ID: the Meta app; echoes of its own sends are skipped
	MetaAppSecret   string // META_APP_SECRET: verifies X-Hub-Signature-256 of WABA, Facebook and Instagram web-hooks
	MetaVerifyToken string // META_VERIFY_TOKEN: answers the web-hook subscription handshake
	MetaConfigID    string // META_CONFIG_ID: the app's WhatsApp embedded signup configuration (FB.login config_id)
	TelegramAPIURL  string // TELEGRAM_API_URL: Bot API, default https://api.telegram.org
	TelegramMode    string // TELEGRAM_MODE: polling or webhook; default webhook when PUBLIC_URL is set
	// WebhookDedupeTTL (WEBHOOK_DEDUPE_TTL, default 1h) is how long a handled inbound
	// message's provider id absorbs re-deliveries before they reach the connection
	// actor (docs/channels.md, "Idempotency, inbound"); 0 takes the default.
	WebhookDedupeTTL time.Duration
	// MapTileURL (MAP_TILE_URL) is the client maps' tile server as a Leaflet URL
	// template, e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png; empty: the maps
	// draw their markers on a blank background. MapTileAttribution (MAP_TILE_ATTRIBUTION)
	// is the credit that server asks for.
	MapTileURL, MapTileAttribution string
	// Tests only (docs/channels.md, WhatsApp): WhatsAppFake runs the wire-level fake
	// WhatsApp in-process with its control API on this host:port; the other three point
	// the clients at an outside one (cmd/fakewa): its wss:// URL, the PEM file of its
	// TLS certificate and its noise root key in hex.
	WhatsAppFake, WhatsAppWSURL, WhatsAppCAFile, WhatsAppCertKey string
	// Tests only: WhatsAppFakePhone replaces the WhatsApp clients with fakewa.Phone
	// (sends succeed and are recorded, no socket) with its control API (POST /scan,
	// GET /sent) on this host:port; WhatsAppFakePhoneLog, a file, gets every send
	// appended as a JSON line, so a test reads them after killing the node;
	// WhatsAppFakePhoneDelay is how long each fake send takes.
	WhatsAppFakePhone, WhatsAppFakePhoneLog string
	WhatsAppFakePhoneDelay                  time.Duration
	// AIKeySecret (AI_KEY_SECRET) seals the tenants' AI API keys at rest; empty uses
	// JWTSecret. Changing it makes the stored keys unreadable (the tenants enter them
	// again). AIFake (AI_FAKE), a host:port, serves the fake OpenAI API there
	// (development and browser tests; docs/ai.md).
	AIKeySecret, AIFake string

	// Network limits (docs/security.md, "Network limits" and "Web chat limits").
	Limits Limits

	// Video calls (docs/calls.md): the ICE servers handed to both browsers; none
	// means host candidates only, enough on one network.
	CallSTUNURLs       []string      // CALL_STUN_URLS: comma-separated stun: URLs
	CallTURNURLs       []string      // CALL_TURN_URLS: comma-separated turn:/turns: URLs
	CallTURNUsername   string        // CALL_TURN_USERNAME
	CallTURNCredential string        // CALL_TURN_CREDENTIAL
	CallLinkTTL        time.Duration // CALL_LINK_TTL: how long a call link joins, default 30m

	// CampaignInterval (CAMPAIGN_INTERVAL, default 4s) is the pause between two
	// campaign sends of one connection, plus up to 3 s of jitter; 0 sends without
	// pacing (benchmarks), docs/campaigns.md.
	CampaignInterval time.Duration

	// CompactAfter (COMPACT_AFTER, default 24h) is how long a journal stream stays
	// quiet before it is compacted into one archived row (PostgreSQL;
	// docs/architecture.md, "Compaction"); 0 never compacts.
	CompactAfter time.Duration

	// InboundPartitions (INBOUND_PARTITIONS) is how many actors share one
	// connection's customers, by a hash of their number (actors,
	// connection_partition.go); 1 keeps them all in the connection actor. Zero:
	// DefaultInboundPartitions in a cluster, 1 on a single node, where partitions
	// spread nothing across nodes and B3 measured them 10–20 % dearer per message.
	// The same on every node of a cluster.
	InboundPartitions int

	// Cluster mode (docs/cluster.md). Requires PostgreSQL and Redis.
	Cluster         bool     // CLUSTER: join or start a cluster
	GossipAddr      string   // GOSSIP_ADDR: memberlist bind address, default 0.0.0.0:7946
	GossipAdvertise string   // GOSSIP_ADVERTISE: address other nodes reach the gossip on
	Seeds           []string // CLUSTER_SEEDS: gossip addresses of nodes to join; none starts a new cluster
	// JoinTimeout (CLUSTER_JOIN_TIMEOUT, default 2m) is how long a node retries its
	// seeds before giving up: nodes started together migrate and seed in turns, so a
	// seed may answer only after the others' turns.
	JoinTimeout time.Duration
	// DatabaseLostAfter (DATABASE_LOST_AFTER, default 2s) is how long a cluster node
	// goes on once it cannot reach PostgreSQL: it then leaves the cluster, so its
	// customers move to nodes that can store their messages, and exits 1 to be
	// restarted (docs/cluster.md, "Fencing").
	DatabaseLostAfter time.Duration
	ActorAddr         string // ACTOR_ADDR: actor remote bind address; default 127.0.0.1 on a free port, 0.0.0.0:8090 in a cluster
	ActorAdvertise    string // ACTOR_ADVERTISE: host:port other nodes reach the actors on
	// GossipKey (GOSSIP_KEY, base64 of 16, 24 or 32 bytes) encrypts and authenticates
	// gossip (AES-GCM); nil gossips in clear text.
	GossipKey []byte
	// The failure detector (docs/cluster.md, "Failure detection"); zero takes
	// cluster.Default….
	GossipProbeInterval time.Duration // GOSSIP_PROBE_INTERVAL: default 200ms
	GossipProbeTimeout  time.Duration // GOSSIP_PROBE_TIMEOUT: default 100ms, below the interval
	GossipSuspicionMult int           // GOSSIP_SUSPICION_MULT: default 2

	// Version is the build's version: logged when the node serves and reported to the
	// other members for GET /cluster.
	Version string
}

// Production reports whether the server runs in production mode.
func (c Config) Production() bool { return c.Env == "production" }

// DefaultInboundPartitions is Config.InboundPartitions when zero, in a cluster.
const DefaultInboundPartitions = 8

// inboundPartitions is the count the node runs with.
func (c Config) inboundPartitions() int {
	switch {
	case c.InboundPartitions > 0:
		return c.InboundPartitions
	case c.Cluster:
		return DefaultInboundPartitions
	}
	return 1
}
