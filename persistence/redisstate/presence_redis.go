package redisstate

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"atende/engine"
)

// Presence keys, per tenant (hash tag {companyID}):
//
//	<prefix>presence:{c}:exp   sorted set: member "<userID>:<node key part>", score = expiry (ms, server clock)
//	<prefix>presence:{c}:data  hash: same member → "<since µs>|<refreshed µs>|<queue ids, comma-separated>"
//
// Expired members are purged by every script that touches the tenant; both keys
// carry a TTL at least as long as their longest lease, so an idle tenant's keys vanish.

// purgeLua drops expired leases; it is the head of every presence script and defines
// `now` (server clock, ms) and `nowus` (the same in µs: refreshes on two nodes within
// one ms still order). Lua numbers are doubles, exact for integers below 2^53.
const purgeLua = `
local t = redis.call('TIME')
local nowus = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now = math.floor(nowus / 1000)
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
for _, m in ipairs(gone) do redis.call('HDEL', KEYS[2], m) end
if #gone > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now) end
`

// setOnlineScript: ARGV[1] member, ARGV[2] ttl ms, ARGV[3] queue ids csv.
var setOnlineScript = redis.NewScript(purgeLua + `
local ttl = tonumber(ARGV[2])
local since = nowus
local old = redis.call('HGET', KEYS[2], ARGV[1])
if old then since = tonumber(string.match(old, '^(%d+)')) end
redis.call('ZADD', KEYS[1], string.format('%.0f', now + ttl), ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], string.format('%.0f|%.0f|', since, nowus) .. ARGV[3])
for _, k in ipairs(KEYS) do
  if redis.call('PTTL', k) < ttl then redis.call('PEXPIRE', k, ttl) end
end
return 1
`)

// onlineScript answers member, value, member, value… of the live leases.
var onlineScript = redis.NewScript(purgeLua + `
local out = {}
for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local v = redis.call('HGET', KEYS[2], m)
  if v then out[#out + 1] = m; out[#out + 1] = v end
end
return out
`)

// redisPresence implements engine.Presence in Redis.
type redisPresence struct {
	r *Redis // static
}

var _ engine.Presence = redisPresence{}

// Presence returns the Redis-backed engine.Presence.
func (r *Redis) Presence() engine.Presence { return redisPresence{r: r} }

func (p redisPresence) keys(companyID engine.ID) []string {
	base := p.r.prefix + "presence:" + tenantTag(companyID)
	return []string{base + ":exp", base + ":data"}
}

func leaseMember(userID engine.ID, node string) string {
	return strconv.FormatInt(userID, 10) + ":" + keyPart(node)
}

// SetOnline implements engine.Presence.
func (p redisPresence) SetOnline(ctx context.Context, companyID, userID engine.ID, queueIDs []engine.ID, node string, ttl time.Duration) error {
	if err := checkLease(node, ttl); err != nil {
		return err
	}
	qs := engine.NormalizeIDs(queueIDs)
	parts := make([]string, len(qs))
	for i, q := range qs {
		parts[i] = strconv.FormatInt(q, 10)
	}
	err := setOnlineScript.Run(ctx, p.r.client, p.keys(companyID),
		leaseMember(userID, node), millis(ttl), strings.Join(parts, ",")).Err()
	if err != nil {
		return fmt.Errorf("presence: set user %d online in company %d: %w", userID, companyID, err)
	}
	return nil
}

// SetOffline implements engine.Presence.
func (p redisPresence) SetOffline(ctx context.Context, companyID, userID engine.ID, node string) error {
	keys, member := p.keys(companyID), leaseMember(userID, node)
	_, err := p.r.client.TxPipelined(ctx, func(tx redis.Pipeliner) error {
		tx.ZRem(ctx, keys[0], member)
		tx.HDel(ctx, keys[1], member)
		return nil
	})
	if err != nil {
		return fmt.Errorf("presence: set user %d offline in company %d: %w", userID, companyID, err)
	}
	return nil
}

// Online implements engine.Presence.
func (p redisPresence) Online(ctx context.Context, companyID engine.ID) ([]engine.PresenceEntry, error) {
	raw, err := onlineScript.Run(ctx, p.r.client, p.keys(companyID)).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("presence: list company %d: %w", companyID, err)
	}
	leases := make([]lease, 0, len(raw)/2)
	for i := 0; i+1 < len(raw); i += 2 {
		l, err := parseLease(raw[i], raw[i+1])
		if err != nil {
			return nil, fmt.Errorf("presence: list company %d: %w", companyID, err)
		}
		leases = append(leases, l)
	}
	return mergeLeases(leases), nil
}

// OnlineInQueue implements engine.Presence.
func (p redisPresence) OnlineInQueue(ctx context.Context, companyID, queueID engine.ID) ([]engine.PresenceEntry, error) {
	all, err := p.Online(ctx, companyID)
	if err != nil {
		return nil, err
	}
	return inQueue(all, queueID), nil
}

// parseLease reads a lease back from its member and value.
func parseLease(member, value string) (lease, error) {
	uid, _, _ := strings.Cut(member, ":")
	userID, err := strconv.ParseInt(uid, 10, 64)
	if err != nil {
		return lease{}, fmt.Errorf("bad lease member %q", member)
	}
	f := strings.SplitN(value, "|", 3)
	if len(f) != 3 {
		return lease{}, fmt.Errorf("bad lease value %q", value)
	}
	since, err1 := strconv.ParseInt(f[0], 10, 64)
	setAt, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return lease{}, fmt.Errorf("bad lease value %q", value)
	}
	l := lease{userID: userID, since: time.UnixMicro(since), setAt: time.UnixMicro(setAt), queues: []engine.ID{}}
	if f[2] != "" {
		for _, s := range strings.Split(f[2], ",") {
			q, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return lease{}, fmt.Errorf("bad lease queues %q", value)
			}
			l.queues = append(l.queues, q)
		}
	}
	return l, nil
}
