package redisstate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"

	"atende/engine"
	"atende/goroutine"
)

// DefaultPrefix starts every key when Config.Prefix is empty.
const DefaultPrefix = "atende:"

// maxRawKey is the longest caller-given key part stored as is; longer ones are hashed.
const maxRawKey = 200

// Config configures a Redis connection.
type Config struct {
	// URL is a redis:// or rediss:// URL (user, password, database number, options as
	// go-redis' ParseURL reads them). Required.
	URL string
	// Prefix starts every key and the revocation channel; DefaultPrefix when empty.
	// Nodes of one cluster must use the same prefix; tests use a unique one each.
	Prefix string
	// Logger receives subscription warnings; the zero Logger discards them.
	Logger zerolog.Logger
}

// Redis is a connection to the Redis server the nodes share. It hands out the
// Redis-backed implementations of the engine's shared-state interfaces.
type Redis struct {
	// static after New
	client *redis.Client
	prefix string
	log    zerolog.Logger

	routines goroutine.Group // subscription goroutines

	mu     sync.Mutex                 // guards subs, closed
	subs   map[*redis.PubSub]struct{} // open subscriptions, closed by Close
	closed bool
}

// ErrClosed is answered by Subscribe after Close.
var ErrClosed = errors.New("redisstate: closed")

// Open connects to the Redis server at url with the default prefix and checks that it
// answers.
func Open(ctx context.Context, url string) (*Redis, error) {
	return New(ctx, Config{URL: url})
}

// New connects with cfg and checks (PING) that the server answers within ctx.
func New(ctx context.Context, cfg Config) (*Redis, error) {
	if cfg.URL == "" {
		return nil, errors.New("redisstate: URL is required")
	}
	opts, err := redis.ParseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("redisstate: parse URL: %w", err)
	}
	if cfg.Prefix == "" {
		cfg.Prefix = DefaultPrefix
	}
	client := redis.NewClient(opts)
	if err := client.Ping(ctx).Err(); err != nil {
		_ = client.Close()
		return nil, fmt.Errorf("redisstate: ping %s: %w", opts.Addr, err)
	}
	return &Redis{client: client, prefix: cfg.Prefix, log: cfg.Logger, subs: map[*redis.PubSub]struct{}{}}, nil
}

// Client is the underlying go-redis client (for health checks and tests).
func (r *Redis) Client() *redis.Client { return r.client }

// Ping checks the server answers (for readiness probes).
func (r *Redis) Ping(ctx context.Context) error {
	if err := r.client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redisstate: ping: %w", err)
	}
	return nil
}

// Close ends the subscriptions, waits for their goroutines and closes the connections.
func (r *Redis) Close() error {
	r.mu.Lock()
	r.closed = true
	subs := r.subs
	r.subs = map[*redis.PubSub]struct{}{}
	r.mu.Unlock()
	for ps := range subs {
		_ = ps.Close() // ends its goroutine's range over the channel
	}
	r.routines.Close()
	if err := r.client.Close(); err != nil {
		return fmt.Errorf("redisstate: close: %w", err)
	}
	return nil
}

// keyPart makes a caller-given string safe to embed in a key: as is when short,
// prefixed so a raw key never equals a hashed one; its SHA-256 when long.
func keyPart(s string) string {
	if len(s) <= maxRawKey {
		return "k:" + s
	}
	sum := sha256.Sum256([]byte(s))
	return "h:" + hex.EncodeToString(sum[:])
}

// tenantTag is the hash tag of a tenant's keys.
func tenantTag(companyID engine.ID) string {
	return "{" + strconv.FormatInt(companyID, 10) + "}"
}

// checkName refuses names that would make key namespaces ambiguous.
func checkName(what, name string) error {
	if name == "" || strings.ContainsAny(name, ":{} ") {
		return fmt.Errorf("redisstate: %s name %q must be non-empty without ':', '{', '}' or spaces", what, name)
	}
	return nil
}

// millis converts a duration to whole milliseconds, at least 1.
func millis(d time.Duration) int64 {
	ms := d.Milliseconds()
	if ms < 1 {
		ms = 1
	}
	return ms
}
