package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"atende/cluster"
	"atende/node"
	httpapi "atende/transport/http"
)

// parseConfig reads the configuration of `atende serve` from args and the environment.
func parseConfig(args []string, getenv func(string) string) (node.Config, error) {
	return parseConfigOn(flag.NewFlagSet("serve", flag.ContinueOnError), args, getenv)
}

// parseConfigOn declares every setting on fs, then parses args: the README test walks
// fs to hold the configuration table equal to the flags.
func parseConfigOn(fs *flag.FlagSet, args []string, getenv func(string) string) (node.Config, error) {
	env := func(key, def string) string {
		if v := getenv(key); v != "" {
			return v
		}
		return def
	}
	var c node.Config
	fs.StringVar(&c.Env, "env", env("ATENDE_ENV", "development"), "development or production (ATENDE_ENV)")
	fs.StringVar(&c.HTTPAddr, "http-addr", env("HTTP_ADDR", ":8080"), "listen address (HTTP_ADDR)")
	fs.StringVar(&c.DatabaseURL, "database-url", env("DATABASE_URL", ""), "postgres://… or sqlite:PATH; empty = SQLite in the data dir (DATABASE_URL)")
	fs.StringVar(&c.RedisURL, "redis-url", env("REDIS_URL", ""), "redis://…; empty = in-process (REDIS_URL)")
	fs.StringVar(&c.RedisPrefix, "redis-prefix", env("REDIS_PREFIX", ""), "prefix of every Redis key; the same on every node of a cluster (REDIS_PREFIX)")
	fs.StringVar(&c.JWTSecret, "jwt-secret", env("JWT_SECRET", ""), "HMAC secret for access tokens (JWT_SECRET)")
	fs.StringVar(&c.DataDir, "data-dir", env("DATA_DIR", "data"), "folder for the SQLite file, media and the development secret (DATA_DIR)")
	fs.StringVar(&c.MediaDir, "media-dir", env("MEDIA_DIR", ""), "folder for uploaded and received media; default DATA_DIR/media (MEDIA_DIR)")
	fs.StringVar(&c.LogLevel, "log-level", env("LOG_LEVEL", "info"), "debug, info, warn or error (LOG_LEVEL)")
	fs.StringVar(&c.LogFormat, "log-format", env("LOG_FORMAT", ""), "json or console; default console in development, json in production (LOG_FORMAT)")
	fs.StringVar(&c.PublicURL, "public-url", env("PUBLIC_URL", ""), "public base URL, e.g. https://atende.example.com (PUBLIC_URL)")
	fs.StringVar(&c.MapTileURL, "map-tile-url", env("MAP_TILE_URL", ""), "tile server of the client maps, a Leaflet template with {z}, {x} and {y}; empty: markers on a blank background (MAP_TILE_URL)")
	fs.StringVar(&c.MapTileAttribution, "map-tile-attribution", env("MAP_TILE_ATTRIBUTION", ""), "credit shown on the maps for the tile server (MAP_TILE_ATTRIBUTION)")
	fs.StringVar(&c.GraphURL, "graph-api-url", env("GRAPH_API_URL", "https://graph.facebook.com"), "Meta Graph API base URL (GRAPH_API_URL)")
	var metaAppID, signupCompany string
	fs.StringVar(&signupCompany, "signup-company-id", env("SIGNUP_COMPANY_ID", ""), "tenant whaticket's public sign-up adds users to while its userCreation setting is enabled; empty = sign-up off (SIGNUP_COMPANY_ID)")
	fs.StringVar(&metaAppID, "meta-app-id", env("META_APP_ID", ""), "Meta app id (META_APP_ID)")
	fs.StringVar(&c.MetaAppSecret, "meta-app-secret", env("META_APP_SECRET", ""), "Meta app secret, verifies web-hook signatures (META_APP_SECRET)")
	fs.StringVar(&c.MetaVerifyToken, "meta-verify-token", env("META_VERIFY_TOKEN", ""), "token of the Meta web-hook handshake (META_VERIFY_TOKEN)")
	fs.StringVar(&c.MetaConfigID, "meta-config-id", env("META_CONFIG_ID", ""), "WhatsApp embedded signup configuration id of the Meta app (META_CONFIG_ID)")
	fs.StringVar(&c.TelegramAPIURL, "telegram-api-url", env("TELEGRAM_API_URL", "https://api.telegram.org"), "Telegram Bot API base URL (TELEGRAM_API_URL)")
	fs.StringVar(&c.TelegramMode, "telegram-mode", env("TELEGRAM_MODE", ""), "polling or webhook; default webhook when PUBLIC_URL is set (TELEGRAM_MODE)")
	var corsOrigins string
	fs.StringVar(&corsOrigins, "cors-origins", env("CORS_ORIGINS", ""), "comma-separated front-end origins of other hosts allowed to call the API, e.g. https://app.example.com (CORS_ORIGINS)")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", env("METRICS_ADDR", ""), "serve /metrics on this address instead of the public port, e.g. 127.0.0.1:9090 (METRICS_ADDR)")
	fs.StringVar(&c.MetricsToken, "metrics-token", env("METRICS_TOKEN", ""), "bearer token /metrics asks for (METRICS_TOKEN)")
	fs.BoolVar(&c.SeedDemo, "seed-demo", env("SEED_DEMO", "") == "true" || env("SEED_DEMO", "") == "1", "create the demo tenant at start (SEED_DEMO)")
	fs.BoolVar(&c.SeedConversations, "seed-conversations", env("SEED_CONVERSATIONS", "") == "true" || env("SEED_CONVERSATIONS", "") == "1",
		"with the demo tenant, also its sample conversations (SEED_CONVERSATIONS)")
	fs.StringVar(&c.AIKeySecret, "ai-key-secret", env("AI_KEY_SECRET", ""), "secret sealing the tenants' AI API keys; empty: the JWT secret (AI_KEY_SECRET)")
	fs.StringVar(&c.AIFake, "ai-fake", env("AI_FAKE", ""), "development and tests: serve a fake OpenAI API on this host:port (AI_FAKE)")
	fs.StringVar(&c.WhatsAppFake, "whatsapp-fake", "", "tests only: in-process fake WhatsApp, control API on this host:port")
	fs.StringVar(&c.WhatsAppWSURL, "whatsapp-ws-url", "", "tests only: wss:// URL of a fake WhatsApp Web server")
	fs.StringVar(&c.WhatsAppCAFile, "whatsapp-ca-file", "", "tests only: PEM certificate the fake WhatsApp server presents")
	fs.StringVar(&c.WhatsAppCertKey, "whatsapp-cert-key", "", "tests only: the fake's noise certificate root key (hex, 32 bytes)")
	fs.StringVar(&c.WhatsAppFakePhone, "whatsapp-fake-phone", "", "tests only: fake WhatsApp clients that record their sends, control API on this host:port")
	fs.StringVar(&c.WhatsAppFakePhoneLog, "whatsapp-fake-phone-log", "", "tests only: append the fake clients' sends to this file, one JSON line each")
	fs.DurationVar(&c.WhatsAppFakePhoneDelay, "whatsapp-fake-phone-delay", 0, "tests only: how long each send of the fake clients takes")
	cookieDefault := env("ATENDE_ENV", "development") == "production"
	if v := getenv("COOKIE_SECURE"); v != "" {
		cookieDefault = v == "true" || v == "1"
	}
	fs.BoolVar(&c.CookieSecure, "cookie-secure", cookieDefault, "send the refresh cookie only over HTTPS (COOKIE_SECURE)")
	fs.BoolVar(&c.Cluster, "cluster", env("CLUSTER", "") == "true" || env("CLUSTER", "") == "1", "run as a member of a cluster (CLUSTER)")
	fs.StringVar(&c.GossipAddr, "gossip-addr", env("GOSSIP_ADDR", "0.0.0.0:7946"), "memberlist bind address (GOSSIP_ADDR)")
	fs.StringVar(&c.GossipAdvertise, "gossip-advertise", env("GOSSIP_ADVERTISE", ""), "gossip address other nodes reach (GOSSIP_ADVERTISE)")
	var seeds string
	fs.StringVar(&seeds, "seeds", env("CLUSTER_SEEDS", ""), "comma-separated gossip addresses to join (CLUSTER_SEEDS)")
	var joinTimeout string
	fs.StringVar(&joinTimeout, "join-timeout", env("CLUSTER_JOIN_TIMEOUT", "2m"), "how long to retry the seeds before giving up (CLUSTER_JOIN_TIMEOUT)")
	var dbLostAfter string
	fs.StringVar(&dbLostAfter, "database-lost-after", env("DATABASE_LOST_AFTER", "2s"), "in a cluster, how long a node goes on without reaching PostgreSQL before it leaves (DATABASE_LOST_AFTER)")
	fs.StringVar(&c.ActorAddr, "actor-addr", env("ACTOR_ADDR", ""), "actor remote bind host:port (ACTOR_ADDR)")
	fs.StringVar(&c.ActorAdvertise, "actor-advertise", env("ACTOR_ADVERTISE", ""), "actor host:port other nodes reach (ACTOR_ADVERTISE)")
	var gossipKey, probeInterval, probeTimeout, suspicionMult string
	fs.StringVar(&gossipKey, "gossip-key", env("GOSSIP_KEY", ""), "base64 of 16, 24 or 32 random bytes, the same on every node; encrypts gossip (GOSSIP_KEY)")
	fs.StringVar(&probeInterval, "gossip-probe-interval", env("GOSSIP_PROBE_INTERVAL", cluster.DefaultProbeInterval.String()), "failure detector: probe interval (GOSSIP_PROBE_INTERVAL)")
	fs.StringVar(&probeTimeout, "gossip-probe-timeout", env("GOSSIP_PROBE_TIMEOUT", cluster.DefaultProbeTimeout.String()), "failure detector: direct probe timeout (GOSSIP_PROBE_TIMEOUT)")
	fs.StringVar(&suspicionMult, "gossip-suspicion-mult", env("GOSSIP_SUSPICION_MULT", strconv.Itoa(cluster.DefaultSuspicionMult)), "failure detector: suspicion multiplier (GOSSIP_SUSPICION_MULT)")
	limits := limitFlags(&c.Limits, fs, env)
	var stun, turn, callTTL string
	fs.StringVar(&stun, "call-stun-urls", env("CALL_STUN_URLS", ""), "comma-separated STUN URLs for video calls, e.g. stun:stun.example.org:3478 (CALL_STUN_URLS)")
	fs.StringVar(&turn, "call-turn-urls", env("CALL_TURN_URLS", ""), "comma-separated TURN URLs for video calls, e.g. turn:turn.example.org:3478 (CALL_TURN_URLS)")
	fs.StringVar(&c.CallTURNUsername, "call-turn-username", env("CALL_TURN_USERNAME", ""), "TURN user name for video calls (CALL_TURN_USERNAME)")
	fs.StringVar(&c.CallTURNCredential, "call-turn-credential", env("CALL_TURN_CREDENTIAL", ""), "TURN credential for video calls (CALL_TURN_CREDENTIAL)")
	fs.StringVar(&callTTL, "call-link-ttl", env("CALL_LINK_TTL", "30m"), "how long a video call link lets the customer join (CALL_LINK_TTL)")
	var access, refresh, shutdown, dedupeTTL, campaignInterval, compactAfter, partitions string
	fs.StringVar(&partitions, "inbound-partitions", env("INBOUND_PARTITIONS", "0"), "how many actors share one connection's customers, by number; 0 = 8 in a cluster, 1 on a single node; the same on every node (INBOUND_PARTITIONS)")
	fs.StringVar(&compactAfter, "compact-after", env("COMPACT_AFTER", "24h"), "how long a journal stream stays quiet before it is compacted (PostgreSQL); 0 = never (COMPACT_AFTER)")
	fs.StringVar(&campaignInterval, "campaign-interval", env("CAMPAIGN_INTERVAL", "4s"), "pause between two campaign sends of one connection, plus up to 3s of jitter; 0 = no pacing (CAMPAIGN_INTERVAL)")
	fs.StringVar(&dedupeTTL, "webhook-dedupe-ttl", env("WEBHOOK_DEDUPE_TTL", "1h"), "how long a web-hook message's provider id absorbs re-deliveries (WEBHOOK_DEDUPE_TTL)")
	fs.StringVar(&access, "access-ttl", env("ACCESS_TOKEN_TTL", "15m"), "access token lifetime (ACCESS_TOKEN_TTL)")
	fs.StringVar(&refresh, "refresh-ttl", env("REFRESH_TOKEN_TTL", "168h"), "refresh token lifetime (REFRESH_TOKEN_TTL)")
	fs.StringVar(&shutdown, "shutdown-timeout", env("SHUTDOWN_TIMEOUT", "20s"), "graceful shutdown budget (SHUTDOWN_TIMEOUT)")
	if err := fs.Parse(args); err != nil {
		return node.Config{}, err
	}
	if err := parseCallFlags(&c, stun, turn, callTTL); err != nil {
		return node.Config{}, err
	}
	if d, err := time.ParseDuration(campaignInterval); err != nil || d < 0 || d > time.Hour {
		return node.Config{}, fmt.Errorf("config: CAMPAIGN_INTERVAL must be a duration from 0 to 1h, got %q", campaignInterval)
	} else {
		c.CampaignInterval = d
	}
	if d, err := time.ParseDuration(compactAfter); err != nil || (d != 0 && d < time.Minute) {
		return node.Config{}, fmt.Errorf("config: COMPACT_AFTER must be 0 or a duration of at least 1m, got %q", compactAfter)
	} else {
		c.CompactAfter = d
	}
	if n, err := strconv.Atoi(strings.TrimSpace(partitions)); err != nil || n < 0 || n > 256 {
		return node.Config{}, fmt.Errorf("config: INBOUND_PARTITIONS must be a whole number from 0 to 256, got %q", partitions)
	} else {
		c.InboundPartitions = n
	}
	if metaAppID != "" {
		id, err := strconv.ParseInt(metaAppID, 10, 64)
		if err != nil || id <= 0 {
			return node.Config{}, fmt.Errorf("config: META_APP_ID must be a number, got %q", metaAppID)
		}
		c.MetaAppID = id
	}
	if signupCompany != "" {
		id, err := strconv.ParseInt(signupCompany, 10, 64)
		if err != nil || id <= 0 {
			return node.Config{}, fmt.Errorf("config: SIGNUP_COMPANY_ID must be a company id, got %q", signupCompany)
		}
		c.SignupCompany = id
	}
	var err error
	if c.AccessTTL, err = parsePositive("access-ttl", access); err != nil {
		return node.Config{}, err
	}
	if c.RefreshTTL, err = parsePositive("refresh-ttl", refresh); err != nil {
		return node.Config{}, err
	}
	if c.ShutdownTimeout, err = parsePositive("shutdown-timeout", shutdown); err != nil {
		return node.Config{}, err
	}
	if c.JoinTimeout, err = parsePositive("join-timeout", joinTimeout); err != nil {
		return node.Config{}, err
	}
	if c.DatabaseLostAfter, err = parsePositive("database-lost-after", dbLostAfter); err != nil {
		return node.Config{}, err
	}
	if c.WebhookDedupeTTL, err = parsePositive("webhook-dedupe-ttl", dedupeTTL); err != nil {
		return node.Config{}, err
	}
	if err := limits(); err != nil {
		return node.Config{}, err
	}
	if err := parseGossip(&c, gossipKey, probeInterval, probeTimeout, suspicionMult); err != nil {
		return node.Config{}, err
	}
	for _, o := range strings.Split(corsOrigins, ",") {
		if o = strings.TrimSpace(o); o == "" {
			continue
		}
		n, err := httpapi.NormalizeOrigin(o)
		if err != nil {
			return node.Config{}, fmt.Errorf("config: CORS_ORIGINS: %v", err)
		}
		c.CORSOrigins = append(c.CORSOrigins, n)
	}
	for _, s := range strings.Split(seeds, ",") {
		if s = strings.TrimSpace(s); s != "" {
			c.Seeds = append(c.Seeds, s)
		}
	}
	if c.ActorAddr == "" {
		c.ActorAddr = "127.0.0.1:0"
		if c.Cluster {
			c.ActorAddr = "0.0.0.0:8090"
		}
	}
	if c.MediaDir == "" {
		c.MediaDir = filepath.Join(c.DataDir, "media")
	}
	if c.DatabaseURL == "" {
		c.DatabaseURL = "sqlite:" + filepath.Join(c.DataDir, "atende.db")
	}
	if c.LogFormat == "" {
		// A person reads a development server's log in a terminal; production's goes to
		// a log collector that parses JSON.
		c.LogFormat = "console"
		if c.Production() {
			c.LogFormat = "json"
		}
	}
	return c, validate(c)
}

// parseGossip reads the gossip key and the failure detector settings. A key that is
// not base64 of 16, 24 or 32 bytes is refused: a node with another key (or none)
// could never join, and a typo must not silently disable encryption.
func parseGossip(c *node.Config, key, interval, timeout, mult string) error {
	if key = strings.TrimSpace(key); key != "" {
		b, err := base64.StdEncoding.DecodeString(key)
		if err != nil {
			return fmt.Errorf("config: GOSSIP_KEY must be base64 (openssl rand -base64 32): %v", err)
		}
		switch len(b) {
		case 16, 24, 32:
		default:
			return fmt.Errorf("config: GOSSIP_KEY decodes to %d bytes; want 16, 24 or 32 (openssl rand -base64 32)", len(b))
		}
		c.GossipKey = b
	}
	var err error
	if c.GossipProbeInterval, err = parsePositive("gossip-probe-interval", interval); err != nil {
		return err
	}
	if c.GossipProbeTimeout, err = parsePositive("gossip-probe-timeout", timeout); err != nil {
		return err
	}
	if c.GossipProbeTimeout >= c.GossipProbeInterval {
		return fmt.Errorf("config: GOSSIP_PROBE_TIMEOUT (%v) must be below GOSSIP_PROBE_INTERVAL (%v)", c.GossipProbeTimeout, c.GossipProbeInterval)
	}
	n, err := strconv.Atoi(strings.TrimSpace(mult))
	if err != nil || n < 1 {
		return fmt.Errorf("config: GOSSIP_SUSPICION_MULT must be a whole number of at least 1, got %q", mult)
	}
	c.GossipSuspicionMult = n
	return nil
}

func parsePositive(name, v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("config: %s must be a positive duration, got %q", name, v)
	}
	return d, nil
}

func validate(c node.Config) error {
	switch c.Env {
	case "development", "production":
	default:
		return fmt.Errorf("config: ATENDE_ENV must be development or production, got %q", c.Env)
	}
	switch c.TelegramMode {
	case "", "polling", "webhook":
	default:
		return fmt.Errorf("config: TELEGRAM_MODE must be polling or webhook, got %q", c.TelegramMode)
	}
	if c.TelegramMode == "webhook" && c.PublicURL == "" {
		return errors.New("config: TELEGRAM_MODE=webhook needs PUBLIC_URL")
	}
	switch c.LogFormat {
	case "json", "console":
	default:
		return fmt.Errorf("config: LOG_FORMAT must be json or console, got %q", c.LogFormat)
	}
	if c.Cluster {
		if !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
			return errors.New("config: cluster mode needs PostgreSQL (DATABASE_URL=postgres://…); SQLite is one node's file")
		}
		if c.RedisURL == "" {
			return errors.New("config: cluster mode needs Redis (REDIS_URL) for presence, rate limits and token revocation")
		}
		if c.JWTSecret == "" {
			return errors.New("config: cluster mode needs JWT_SECRET, the same on every node")
		}
	}
	if len(c.CORSOrigins) > 0 && c.PublicURL == "" {
		return errors.New("config: CORS_ORIGINS needs PUBLIC_URL (media URLs must be absolute for another origin to load them)")
	}
	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("config: PUBLIC_URL must be an absolute http(s) URL without query, got %q", c.PublicURL)
		}
	}
	if c.Production() {
		if err := validateProduction(c); err != nil {
			return err
		}
	}
	return nil
}

// validateProduction refuses the set-ups that are fine on a laptop and unsafe on the
// internet (docs/security.md, "Production checks").
func validateProduction(c node.Config) error {
	if c.JWTSecret == "" {
		return errors.New("config: JWT_SECRET is required in production")
	}
	if len(c.JWTSecret) < 32 {
		return errors.New("config: JWT_SECRET must be at least 32 characters in production")
	}
	if err := checkSecretStrength(c.JWTSecret); err != nil {
		return fmt.Errorf("config: JWT_SECRET %v in production; generate one with: openssl rand -base64 48", err)
	}
	if c.SeedDemo {
		return errors.New("config: --seed-demo (SEED_DEMO) creates well-known logins (admin@atende.local / admin123) and is refused in production")
	}
	if c.MetricsToken != "" {
		if len(c.MetricsToken) < 24 {
			return errors.New("config: METRICS_TOKEN must be at least 24 characters in production")
		}
		if err := checkSecretStrength(c.MetricsToken); err != nil {
			return fmt.Errorf("config: METRICS_TOKEN %v in production", err)
		}
	}
	for _, o := range c.CORSOrigins {
		if !strings.HasPrefix(o, "https://") {
			return fmt.Errorf("config: CORS_ORIGINS entry %s must be https in production (the refresh cookie is Secure)", o)
		}
	}
	return nil
}

// minSecretBits is the least entropy checkSecretStrength accepts, estimated from the
// secret's own character frequencies. 32 random hex digits (128 real bits) estimate
// at about 110; 32 random base64 characters at about 140.
const minSecretBits = 96

// checkSecretStrength refuses secrets that cannot be random: few distinct characters
// ("kkkk…", "abab…"), a repeated block ("secretsecret…"), a run of consecutive
// characters ("abcdef…", "012345…") over most of its length, or a low entropy
// estimate (length × Shannon entropy of its character frequencies). It is an
// estimate: it stops the obvious mistakes, not a chosen weak passphrase.
func checkSecretStrength(s string) error {
	counts := map[rune]int{}
	n := 0
	for _, r := range s {
		counts[r]++
		n++
	}
	if len(counts) < 10 {
		return fmt.Errorf("has only %d distinct characters", len(counts))
	}
	rs := []rune(s)
	for p := 1; p <= n/2; p++ {
		if n%p == 0 && strings.Repeat(string(rs[:p]), n/p) == s {
			return fmt.Errorf("is a %d-character block repeated", p)
		}
	}
	steps := 0
	for i := 1; i < len(rs); i++ {
		if d := rs[i] - rs[i-1]; d == 1 || d == -1 {
			steps++
		}
	}
	if steps*2 >= len(rs) {
		return errors.New("is mostly a run of consecutive characters")
	}
	bits := 0.0
	for _, k := range counts {
		p := float64(k) / float64(n)
		bits -= float64(k) * math.Log2(p)
	}
	if bits < minSecretBits {
		return fmt.Errorf("looks too predictable (about %.0f bits of entropy estimated, %d wanted)", bits, minSecretBits)
	}
	return nil
}

// ensureDevSecret gives a development server a stable random secret kept in the data
// folder, so that tokens survive a restart without anyone configuring one.
func ensureDevSecret(c *node.Config) error {
	if c.JWTSecret != "" || c.Production() {
		return nil
	}
	path := filepath.Join(c.DataDir, "jwt.secret")
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		c.JWTSecret = strings.TrimSpace(string(b))
		return nil
	}
	var buf [32]byte
	if _, err := rand.Read(buf[:]); err != nil {
		return fmt.Errorf("generate development secret: %w", err)
	}
	if err := os.MkdirAll(c.DataDir, 0o750); err != nil {
		return fmt.Errorf("generate development secret: %w", err)
	}
	secret := hex.EncodeToString(buf[:])
	if err := os.WriteFile(path, []byte(secret+"\n"), 0o600); err != nil {
		return fmt.Errorf("write development secret: %w", err)
	}
	c.JWTSecret = secret
	return nil
}

// parseCallFlags reads the video call settings: ICE server URLs of their schemes,
// TURN credentials only with TURN URLs, a positive link lifetime.
func parseCallFlags(c *node.Config, stun, turn, ttl string) error {
	split := func(name, list string, schemes ...string) ([]string, error) {
		var out []string
		for _, u := range strings.Split(list, ",") {
			if u = strings.TrimSpace(u); u == "" {
				continue
			}
			ok := false
			for _, s := range schemes {
				ok = ok || strings.HasPrefix(u, s+":")
			}
			if !ok || strings.ContainsAny(u, " \t\r\n\"") {
				return nil, fmt.Errorf("config: %s: %q is not a %s URL", name, u, strings.Join(schemes, "/"))
			}
			out = append(out, u)
		}
		return out, nil
	}
	var err error
	if c.CallSTUNURLs, err = split("CALL_STUN_URLS", stun, "stun", "stuns"); err != nil {
		return err
	}
	if c.CallTURNURLs, err = split("CALL_TURN_URLS", turn, "turn", "turns"); err != nil {
		return err
	}
	if len(c.CallTURNURLs) == 0 && (c.CallTURNUsername != "" || c.CallTURNCredential != "") {
		return errors.New("config: CALL_TURN_USERNAME and CALL_TURN_CREDENTIAL need CALL_TURN_URLS")
	}
	if c.CallLinkTTL, err = time.ParseDuration(ttl); err != nil || c.CallLinkTTL <= 0 {
		return fmt.Errorf("config: CALL_LINK_TTL must be a positive duration, got %q", ttl)
	}
	return nil
}
