package main

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"atende/node"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestConfigDefaults(t *testing.T) {
	c, err := parseConfig(nil, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != ":8080" || c.Env != "development" || c.AccessTTL != 15*time.Minute {
		t.Fatalf("unexpected defaults: %+v", c)
	}
	if c.DatabaseURL != "sqlite:"+filepath.Join("data", "atende.db") {
		t.Fatalf("default database %q", c.DatabaseURL)
	}
	if c.CookieSecure {
		t.Fatal("development default should not require HTTPS cookies")
	}
	if c.CompactAfter != 24*time.Hour {
		t.Fatalf("default COMPACT_AFTER %v", c.CompactAfter)
	}
	if c, err := parseConfig([]string{"--compact-after", "0"}, envOf(nil)); err != nil || c.CompactAfter != 0 {
		t.Fatalf("COMPACT_AFTER=0: %v, %v", c.CompactAfter, err)
	}
	if c.InboundPartitions != 0 {
		t.Fatalf("default INBOUND_PARTITIONS %d, want 0 (the node's default)", c.InboundPartitions)
	}
	if c, err := parseConfig(nil, envOf(map[string]string{"INBOUND_PARTITIONS": "1"})); err != nil || c.InboundPartitions != 1 {
		t.Fatalf("INBOUND_PARTITIONS=1: %d, %v", c.InboundPartitions, err)
	}
}

func TestConfigFlagBeatsEnv(t *testing.T) {
	c, err := parseConfig([]string{"--http-addr", ":9999"}, envOf(map[string]string{"HTTP_ADDR": ":7000", "DATABASE_URL": "postgres://x@y/z"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != ":9999" || c.DatabaseURL != "postgres://x@y/z" {
		t.Fatalf("got %+v", c)
	}
}

func TestConfigRefusals(t *testing.T) {
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"production without secret", nil, map[string]string{"ATENDE_ENV": "production"}, "JWT_SECRET is required"},
		{"production short secret", nil, map[string]string{"ATENDE_ENV": "production", "JWT_SECRET": "short"}, "at least 32"},
		{"unknown env", nil, map[string]string{"ATENDE_ENV": "staging"}, "development or production"},
		{"bad ttl", []string{"--access-ttl", "-1s"}, nil, "positive duration"},
		{"bad log format", nil, map[string]string{"LOG_FORMAT": "xml"}, "json or console"},
		{"compaction too eager", nil, map[string]string{"COMPACT_AFTER": "10s"}, "COMPACT_AFTER must be"},
		{"compaction not a duration", []string{"--compact-after", "daily"}, nil, "COMPACT_AFTER must be"},
		{"negative partitions", nil, map[string]string{"INBOUND_PARTITIONS": "-1"}, "INBOUND_PARTITIONS must be"},
		{"too many partitions", []string{"--inbound-partitions", "1000"}, nil, "INBOUND_PARTITIONS must be"},
		{"partitions not a number", []string{"--inbound-partitions", "many"}, nil, "INBOUND_PARTITIONS must be"},
		{"cluster on sqlite", []string{"--cluster"}, map[string]string{"REDIS_URL": "redis://x", "JWT_SECRET": strings.Repeat("k", 40)}, "needs PostgreSQL"},
		{"cluster without redis", []string{"--cluster"}, map[string]string{"DATABASE_URL": "postgres://x/y", "JWT_SECRET": strings.Repeat("k", 40)}, "needs Redis"},
		{"cluster without secret", []string{"--cluster"}, map[string]string{"DATABASE_URL": "postgres://x/y", "REDIS_URL": "redis://x"}, "needs JWT_SECRET"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseConfig(tc.args, envOf(tc.env))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestProductionCookiesSecureByDefault(t *testing.T) {
	c, err := parseConfig(nil, envOf(map[string]string{"ATENDE_ENV": "production", "JWT_SECRET": strongSecret}))
	if err != nil {
		t.Fatal(err)
	}
	if !c.CookieSecure {
		t.Fatal("production must default to secure cookies")
	}
}

func TestDevSecretIsStable(t *testing.T) {
	dir := t.TempDir()
	c := node.Config{Env: "development", DataDir: dir}
	if err := ensureDevSecret(&c); err != nil {
		t.Fatal(err)
	}
	first := c.JWTSecret
	if len(first) < 32 {
		t.Fatalf("secret too short: %q", first)
	}
	c2 := node.Config{Env: "development", DataDir: dir}
	if err := ensureDevSecret(&c2); err != nil {
		t.Fatal(err)
	}
	if c2.JWTSecret != first {
		t.Fatal("development secret changed between starts")
	}
	info, err := os.Stat(filepath.Join(dir, "jwt.secret"))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("secret file mode %v, want 0600", info.Mode().Perm())
	}
}

func TestClusterConfig(t *testing.T) {
	c, err := parseConfig([]string{"--cluster", "--seeds", "10.0.0.1:7946, 10.0.0.2:7946"}, envOf(map[string]string{
		"DATABASE_URL": "postgres://x/y", "REDIS_URL": "redis://r", "JWT_SECRET": strings.Repeat("k", 40)}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Seeds) != 2 || c.Seeds[1] != "10.0.0.2:7946" || c.ActorAddr != "0.0.0.0:8090" || c.GossipAddr != "0.0.0.0:7946" {
		t.Fatalf("cluster config %+v", c)
	}
	single, _ := parseConfig(nil, envOf(nil))
	if single.ActorAddr != "127.0.0.1:0" || single.Cluster {
		t.Fatalf("single node actor address %q", single.ActorAddr)
	}
}

func TestGossipConfig(t *testing.T) {
	base := map[string]string{"DATABASE_URL": "postgres://x/y", "REDIS_URL": "redis://r", "JWT_SECRET": strings.Repeat("k", 40)}
	c, err := parseConfig([]string{"--cluster"}, envOf(base))
	if err != nil {
		t.Fatal(err)
	}
	if c.GossipKey != nil || c.GossipProbeInterval != 200*time.Millisecond || c.GossipProbeTimeout != 100*time.Millisecond ||
		c.GossipSuspicionMult != 2 {
		t.Fatalf("gossip defaults %+v", c)
	}
	key := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("s", 32)))
	env := map[string]string{"GOSSIP_KEY": key, "GOSSIP_PROBE_INTERVAL": "1s", "GOSSIP_SUSPICION_MULT": "3"}
	for k, v := range base {
		env[k] = v
	}
	c, err = parseConfig([]string{"--cluster", "--gossip-probe-timeout", "300ms"}, envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	if string(c.GossipKey) != strings.Repeat("s", 32) || c.GossipProbeInterval != time.Second ||
		c.GossipProbeTimeout != 300*time.Millisecond || c.GossipSuspicionMult != 3 {
		t.Fatalf("gossip settings %+v", c)
	}
	for _, n := range []int{16, 24} {
		k := base64.StdEncoding.EncodeToString(make([]byte, n))
		if c, err := parseConfig([]string{"--gossip-key", k}, envOf(nil)); err != nil || len(c.GossipKey) != n {
			t.Fatalf("%d-byte key: %v", n, err)
		}
	}

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"key not base64", []string{"--gossip-key", "not base64!"}, "GOSSIP_KEY must be base64"},
		{"key of 20 bytes", []string{"--gossip-key", base64.StdEncoding.EncodeToString(make([]byte, 20))}, "decodes to 20 bytes"},
		{"timeout not below interval", []string{"--gossip-probe-interval", "100ms", "--gossip-probe-timeout", "100ms"}, "must be below"},
		{"bad interval", []string{"--gossip-probe-interval", "soon"}, "positive duration"},
		{"suspicion zero", []string{"--gossip-suspicion-mult", "0"}, "at least 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseConfig(tc.args, envOf(base))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}
