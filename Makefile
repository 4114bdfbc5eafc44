# Atende — one binary: REST API, realtime gateway, actors, channels and the web app.
#   make run    build everything, migrate, seed the demo tenant, serve on :8080 (SQLite)
#   make test   every test: Go (unit + integration on real PostgreSQL and Redis), web, e2e
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

# protoactor-go's actor and cluster code (and the binary that runs it) does not pass
# the race detector: those
# packages run without -race; everything else runs with it.
NORACE_PKGS_RE := /(actors|cluster|cmd/atende)(/|$$)

.PHONY: run build web server test test-go test-web test-e2e test-socketio test-whaticket lint bench fuzz services clean

run: build
	./$(BIN) serve --seed-demo

build: web server

web: web/node_modules
	cd web && $(NPM) run build

web/node_modules: web/package-lock.json
	cd web && $(NPM) ci --no-audit --no-fund
	@touch web/node_modules

server:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/atende

services:
	./scripts/test-services.sh postgres redis

test: services lint test-go test-web test-whaticket test-e2e
	@echo "make test: all suites passed"

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '\.pb\.go$$') 2>/dev/null); \
	 if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

test-go:
	$(GO) test -race -count=1 $$($(GO) list ./... | grep -v -E '$(NORACE_PKGS_RE)')
	@pkgs=$$($(GO) list ./... | grep -E '$(NORACE_PKGS_RE)' || true); \
	 if [ -n "$$pkgs" ]; then $(GO) test -count=1 $$pkgs; fi

test-web:
	@if [ -f web/package.json ]; then $(MAKE) web/node_modules && \
	   cd web && $(NPM) run typecheck && $(NPM) test && $(NPM) run build; \
	 else echo "test-web: no web app yet"; fi

# whaticket's socket wire, driven with socket.io-client 3 against a real `atende serve`.
test-whaticket: server
	cd test/whaticket && $(NPM) ci --no-audit --no-fund && ATENDE_BIN=../../$(BIN) node --test --test-concurrency=1 whaticket.test.mjs

# The binary embeds web/dist: build the app first so the browser tests see the current one.
test-e2e:
	@if [ -f web/e2e/run.mjs ]; then \
	   ./scripts/test-services.sh chromium && $(MAKE) web && $(MAKE) server && cd web && node e2e/run.mjs; \
	 else echo "test-e2e: no browser suite yet"; fi

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
