#!/usr/bin/env bash
# Makes sure the services the test suite talks to are up: PostgreSQL and Redis on
# 127.0.0.1, and Debian's Chromium for the browser tests. Uses what already runs;
# installs from Debian's packages and starts what is missing. Idempotent.
set -euo pipefail

log() { printf 'test-services: %s\n' "$*" >&2; }

apt_updated=""
apt_install() {
	if [ -z "$apt_updated" ]; then
		DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
		apt_updated=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {
	for _ in $(seq 1 60); do
		port_open "$1" && return 0
		sleep 0.5
	done
	return 1
}

ensure_postgres() {
	if port_open 5432; then
		return 0
	fi
	if ! ls /etc/postgresql 2>/dev/null | grep -q .; then
		log "installing postgresql"
		apt_install postgresql
	fi
	local ver
	ver=$(ls /etc/postgresql | sort -V | tail -n 1)
	local hba="/etc/postgresql/$ver/main/pg_hba.conf"
	# Test machines only: let the suite connect as postgres over loopback without a password.
	if ! grep -q '^host all postgres 127.0.0.1/32 trust' "$hba"; then
		sed -i '1i host all postgres 127.0.0.1/32 trust\nhost all postgres ::1/128 trust' "$hba"
	fi
	log "starting postgresql $ver"
	pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
	wait_port 5432 || { log "postgresql did not start"; exit 1; }
}

ensure_redis() {
	if port_open 6379; then
		return 0
	fi
	if ! command -v redis-server >/dev/null; then
		log "installing redis-server"
		apt_install redis-server
	fi
	mkdir -p /var/lib/redis /var/log/redis
	log "starting redis"
	redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
		--dir /var/lib/redis --logfile /var/log/redis/ci.log
	wait_port 6379 || { log "redis did not start"; exit 1; }
}

ensure_chromium() {
	if [ -x /usr/bin/chromium ]; then
		return 0
	fi
	log "installing chromium"
	apt_install chromium fonts-liberation
}

# poppler-utils: pdftotext and pdftoppm read the ticket PDF reports back in the Go
# tests (transport/http) and the browser flow (web/e2e).
ensure_poppler() {
	if [ -x /usr/bin/pdftotext ] && [ -x /usr/bin/pdftoppm ]; then
		return 0
	fi
	log "installing poppler-utils"
	apt_install poppler-utils
}

for what in "$@"; do
	case "$what" in
	postgres) ensure_postgres ;;
	redis) ensure_redis ;;
	chromium) ensure_chromium ;;
	poppler) ensure_poppler ;;
	*) log "unknown service $what"; exit 2 ;;
	esac
done
