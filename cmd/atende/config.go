package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Config is everything `atende serve` reads from flags and the environment. A flag wins
// over its environment variable; both win over the default. README.md lists them.
type Config struct {
	Env             string        // ATENDE_ENV: "development" (default) or "production"
	HTTPAddr        string        // HTTP_ADDR: listen address, default ":8080"
	DatabaseURL     string        // DATABASE_URL: empty = SQLite under DataDir; postgres://… for PostgreSQL
	RedisURL        string        // REDIS_URL: empty = in-process presence, rate limits and token store
	JWTSecret       string        // JWT_SECRET: required in production; generated and kept in DataDir in development
	DataDir         string        // DATA_DIR: default "./data" (SQLite file, media, dev secret)
	MediaDir        string        // MEDIA_DIR: default DataDir/media
	LogLevel        string        // LOG_LEVEL: debug, info (default), warn, error
	LogFormat       string        // LOG_FORMAT: json (default) or console
	CookieSecure    bool          // COOKIE_SECURE: refresh cookie only over HTTPS; default true in production
	AccessTTL       time.Duration // ACCESS_TOKEN_TTL: default 15m
	RefreshTTL      time.Duration // REFRESH_TOKEN_TTL: default 168h
	PublicURL       string        // PUBLIC_URL: how customers and providers reach this server (web chat, webhooks)
	SeedDemo        bool          // SEED_DEMO: create the demo tenant at start (idempotent)
	ShutdownTimeout time.Duration // SHUTDOWN_TIMEOUT: graceful shutdown budget, default 20s

	// Cluster mode (docs/cluster.md). Requires PostgreSQL and Redis.
	Cluster         bool     // CLUSTER: join or start a cluster
	GossipAddr      string   // GOSSIP_ADDR: memberlist bind address, default 0.0.0.0:7946
	GossipAdvertise string   // GOSSIP_ADVERTISE: address other nodes reach the gossip on
	Seeds           []string // CLUSTER_SEEDS: gossip addresses of nodes to join; none starts a new cluster
	ActorAddr       string   // ACTOR_ADDR: actor remote bind address; default 127.0.0.1 on a free port, 0.0.0.0:8090 in a cluster
	ActorAdvertise  string   // ACTOR_ADVERTISE: host:port other nodes reach the actors on
}

// Production reports whether the server runs in production mode.
func (c Config) Production() bool { return c.Env == "production" }

func parseConfig(args []string, getenv func(string) string) (Config, error) {
	env := func(key, def string) string {
		if v := getenv(key); v != "" {
			return v
		}
		return def
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var c Config
	fs.StringVar(&c.Env, "env", env("ATENDE_ENV", "development"), "development or production (ATENDE_ENV)")
	fs.StringVar(&c.HTTPAddr, "http-addr", env("HTTP_ADDR", ":8080"), "listen address (HTTP_ADDR)")
	fs.StringVar(&c.DatabaseURL, "database-url", env("DATABASE_URL", ""), "postgres://… or sqlite:PATH; empty = SQLite in the data dir (DATABASE_URL)")
	fs.StringVar(&c.RedisURL, "redis-url", env("REDIS_URL", ""), "redis://…; empty = in-process (REDIS_URL)")
	fs.StringVar(&c.JWTSecret, "jwt-secret", env("JWT_SECRET", ""), "HMAC secret for access tokens (JWT_SECRET)")
	fs.StringVar(&c.DataDir, "data-dir", env("DATA_DIR", "data"), "folder for the SQLite file, media and the development secret (DATA_DIR)")
	fs.StringVar(&c.MediaDir, "media-dir", env("MEDIA_DIR", ""), "folder for uploaded and received media; default DATA_DIR/media (MEDIA_DIR)")
	fs.StringVar(&c.LogLevel, "log-level", env("LOG_LEVEL", "info"), "debug, info, warn or error (LOG_LEVEL)")
	fs.StringVar(&c.LogFormat, "log-format", env("LOG_FORMAT", "json"), "json or console (LOG_FORMAT)")
	fs.StringVar(&c.PublicURL, "public-url", env("PUBLIC_URL", ""), "public base URL, e.g. https://atende.example.com (PUBLIC_URL)")
	fs.BoolVar(&c.SeedDemo, "seed-demo", env("SEED_DEMO", "") == "true" || env("SEED_DEMO", "") == "1", "create the demo tenant at start (SEED_DEMO)")
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
	fs.StringVar(&c.ActorAddr, "actor-addr", env("ACTOR_ADDR", ""), "actor remote bind host:port (ACTOR_ADDR)")
	fs.StringVar(&c.ActorAdvertise, "actor-advertise", env("ACTOR_ADVERTISE", ""), "actor host:port other nodes reach (ACTOR_ADVERTISE)")
	var access, refresh, shutdown string
	fs.StringVar(&access, "access-ttl", env("ACCESS_TOKEN_TTL", "15m"), "access token lifetime (ACCESS_TOKEN_TTL)")
	fs.StringVar(&refresh, "refresh-ttl", env("REFRESH_TOKEN_TTL", "168h"), "refresh token lifetime (REFRESH_TOKEN_TTL)")
	fs.StringVar(&shutdown, "shutdown-timeout", env("SHUTDOWN_TIMEOUT", "20s"), "graceful shutdown budget (SHUTDOWN_TIMEOUT)")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	var err error
	if c.AccessTTL, err = parsePositive("access-ttl", access); err != nil {
		return Config{}, err
	}
	if c.RefreshTTL, err = parsePositive("refresh-ttl", refresh); err != nil {
		return Config{}, err
	}
	if c.ShutdownTimeout, err = parsePositive("shutdown-timeout", shutdown); err != nil {
		return Config{}, err
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
	return c, c.validate()
}

func parsePositive(name, v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("config: %s must be a positive duration, got %q", name, v)
	}
	return d, nil
}

func (c Config) validate() error {
	switch c.Env {
	case "development", "production":
	default:
		return fmt.Errorf("config: ATENDE_ENV must be development or production, got %q", c.Env)
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
	if c.Production() {
		if c.JWTSecret == "" {
			return errors.New("config: JWT_SECRET is required in production")
		}
		if len(c.JWTSecret) < 32 {
			return errors.New("config: JWT_SECRET must be at least 32 characters in production")
		}
	}
	return nil
}

// ensureDevSecret gives a development server a stable random secret kept in the data
// folder, so that tokens survive a restart without anyone configuring one.
func (c *Config) ensureDevSecret() error {
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
