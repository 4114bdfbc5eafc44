# Atende — one binary: REST API, realtime gateway, actors, channels and the web app.
#   make run    build everything, migrate, seed the demo tenant and its sample
#               conversations, serve on :8080 (SQLite; HTTP_ADDR=:9090 make run for another port)
#   make test   every test: Go (unit + integration on real PostgreSQL and Redis), web, e2e;
#               ends with one line per suite (GO_TEST_TIMEOUT bounds each Go package)
#   make audit  known vulnerabilities (govulncheck, offline database), staticcheck, npm audit
#   make bench  the benchmarks of ../shared/BENCHMARKS.md, written to docs/benchmarks.md
#               (BENCH_PKGS, BENCH_RUN: regexps of packages, benchmarks; BENCH_COUNT runs;
#               BENCH_BROWSER=0 skips B8)

SHELL := /bin/bash
GO ?= go
NPM ?= npm
BIN := bin/atende
VERSION ?= 6.0.2
COMMIT := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)

# The toolchain line of go.mod (a Go release with the known standard-library fixes) is
# used even where the user's go env says GOTOOLCHAIN=local; the go command downloads
# it once through the module proxy.
export GOTOOLCHAIN := auto

# Pinned tools of `make audit` and `make vulncheck` (docs/security.md, "Dependencies").
# VULNDB_VERSION is the golang.org/x/vulndb module whose data/osv files become the
# offline vulnerability database: move it forward to learn of new vulnerabilities.
GOVULNCHECK_VERSION := v1.9.0
STATICCHECK_VERSION := v0.8.2
VULNDB_VERSION := v0.0.0-20261105234957-e22db6528018
VULNDB_DIR := .tools/vulndb-$(VULNDB_VERSION)

.PHONY: run build web server test test-go test-web test-e2e test-socketio test-whaticket lint bench fuzz services clean audit vulncheck staticcheck audit-web vulndb

# Each step says what it does: a first `make run` on a fresh clone downloads the web
# packages and the Go modules and compiles everything (about a minute and a half).
run: build
	@echo "==> starting the server: migrating the database, seeding the demo tenant, serving (Ctrl-C stops)"
	./$(BIN) serve --seed-demo --seed-conversations

build: web server

# The web app is rebuilt only when a file it is built from changed: `make run` again,
# and test-e2e after test-web, reuse the last build.
WEB_SRC := $(shell find web/src web/scripts -type f 2>/dev/null) web/index.html web/package.json web/vite.config.ts web/tsconfig.json web/proxy.config.ts
web: web/dist/index.html

web/dist/index.html: web/node_modules $(WEB_SRC)
	@echo "==> building the web app (web/dist)"
	cd web && $(NPM) run build
	@touch $@

web/node_modules: web/package-lock.json
	@echo "==> installing the web packages (npm ci; first run only, about a minute)"
	cd web && $(NPM) ci --no-audit --no-fund
	@touch web/node_modules

server:
	@echo "==> building the server ($(BIN); the first build downloads the Go modules and compiles, about a minute)"
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/atende

services:
	./scripts/test-services.sh postgres redis poppler

# The suites of `make test`, each run to its end; scripts/test-suites.sh prints one
# line per suite (ok or FAILED, time, counts) at the end and fails if any failed.
TEST_SUITES := lint vulncheck test-go test-web test-whaticket test-e2e
test: services
	@MAKE="$(MAKE)" ./scripts/test-suites.sh $(TEST_SUITES)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '\.pb\.go$$') 2>/dev/null); \
	 if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# Every package runs under the race detector (protoactor-go's races are fixed in
# third_party/protoactor-go; the process tests of cmd/atende build the binary they
# start with -race too). -timeout applies to each package's test binary: a hang
# fails that package after GO_TEST_TIMEOUT (with every goroutine's stack) instead of
# go test's 10 minutes. SLOW_PKGS_RE holds the packages that run many actors
# (actors: ~100 s under -race on 2 loaded cores), several cluster members in one
# process (cluster) or whole servers and clusters of processes (cmd/atende): they
# get GO_TEST_TIMEOUT_LONG. Both are bounds against hangs, not speed checks: at a
# load of 15 on 2 cores persistence/store (33 s when quiet) passed 5 minutes, so the
# bounds leave room for a machine ten times slower than a quiet one.
GO_TEST_TIMEOUT ?= 12m
GO_TEST_TIMEOUT_LONG ?= 30m
SLOW_PKGS_RE := /(actors|cluster|cmd/atende)(/|$$)
# The slow packages run even when a fast one failed, so one run reports every failure;
# the target fails at the end if either half did.
test-go:
	@status=0; \
	 $(GO) test -race -count=1 -timeout $(GO_TEST_TIMEOUT) $$($(GO) list ./... | grep -v -E '$(SLOW_PKGS_RE)') || status=1; \
	 pkgs=$$($(GO) list ./... | grep -E '$(SLOW_PKGS_RE)' || true); \
	 if [ -n "$$pkgs" ]; then $(GO) test -race -count=1 -timeout $(GO_TEST_TIMEOUT_LONG) $$pkgs || status=1; fi; \
	 exit $$status

test-web:
	@if [ -f web/package.json ]; then $(MAKE) web/node_modules && \
	   (cd web && $(NPM) run typecheck && $(NPM) test) && $(MAKE) web; \
	 else echo "test-web: no web app yet"; fi

# whaticket's socket wire, driven with socket.io-client 3 against a real `atende serve`.
test-whaticket: server
	cd test/whaticket && $(NPM) ci --no-audit --no-fund && ATENDE_BIN=../../$(BIN) node --test --test-concurrency=1 whaticket.test.mjs

# The binary embeds web/dist: the app is built first (unless test-web just did) so the
# browser tests see the current one.
test-e2e:
	@if [ -f web/e2e/run.mjs ]; then \
	   ./scripts/test-services.sh chromium poppler && $(MAKE) web && $(MAKE) server && cd web && node e2e/run.mjs; \
	 else echo "test-e2e: no browser suite yet"; fi

# Known vulnerabilities, offline: the database is built from the golang.org/x/vulndb
# module (its data/osv entries, indexed by its own cmd/indexdb) because vuln.go.dev is
# not reachable from every build machine. govulncheck exits non-zero when a
# vulnerability is reachable from our code, which fails `make test`.
vulndb: $(VULNDB_DIR)/index/db.json

$(VULNDB_DIR)/index/db.json:
	$(GO) mod download golang.org/x/vulndb@$(VULNDB_VERSION)
	rm -rf $(VULNDB_DIR).part
	$(GO) run golang.org/x/vulndb/cmd/indexdb@$(VULNDB_VERSION) \
	  -vulns "$$($(GO) env GOMODCACHE)/golang.org/x/vulndb@$(VULNDB_VERSION)/data/osv" -out $(VULNDB_DIR).part
	rm -rf $(VULNDB_DIR) && mv $(VULNDB_DIR).part $(VULNDB_DIR)

vulncheck: vulndb
	$(GO) run golang.org/x/vuln/cmd/govulncheck@$(GOVULNCHECK_VERSION) -db file://$(abspath $(VULNDB_DIR)) ./...

staticcheck:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

# The web app's dependencies against the npm registry's advisories (needs the registry).
audit-web: web/node_modules
	cd web && $(NPM) audit --audit-level=moderate

audit: vulncheck staticcheck audit-web
	@echo "make audit: no known vulnerabilities, staticcheck clean"

# Fuzz every wire parser for a while (not part of `make test`; seeds run there).
FUZZTIME ?= 30s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

# The browser benchmark (B8) serves the embedded web app: build both first.
bench: services web server
	./scripts/bench.sh

clean:
	rm -rf bin web/dist/assets web/dist/index.html
