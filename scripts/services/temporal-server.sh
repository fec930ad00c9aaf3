#!/usr/bin/env bash
# A real multi-service Temporal server (frontend, history, matching, worker in one process) on
# 127.0.0.1, on PostgreSQL (scripts/services/postgres.sh's cluster, databases temporal and
# temporal_visibility, SQL visibility), built from its Go module: the production engine, not the
# dev server. It runs scripts/services/temporal-server/config.yaml, the config docker-compose.yml mounts.
#
#   eval "$(scripts/services/temporal-server.sh start)"   # sets HERMES_TEST_TEMPORAL_SERVER_ADDRESS
#   scripts/services/temporal-server.sh env               # prints the export line again
#   scripts/services/temporal-server.sh restart           # stop + start on the same port (tests use it)
#   scripts/services/temporal-server.sh stop
#   scripts/services/temporal-server.sh build             # only build (or find) the binaries
#
# The binaries are built once per version with `go install` into $HERMES_CACHE_DIR
# (default /var/cache/hermes-temporal, else ~/.cache/hermes-temporal), with the Go build and module
# caches there too, so a clean clone on this machine reuses them. Go comes from PATH or
# /usr/local/go/bin. A cold build took ~25 min on this 2-core machine shared with other builds;
# a warm start takes a few seconds. Progress goes to stderr; stdout carries only `export` lines.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/scripts/services/temporal-server"
STATE="$ROOT/.tmp/services/temporal-server"
LOG="$STATE/server.log"
PIDFILE="$STATE/server.pid"
# Keep in step with docker-compose.yml (test/unit/scale-out/compose-consistency.test.ts checks it).
# v1.32.2 needs Go >= 1.26.10; this machine has 1.26.8, which v1.32.1 accepts.
TEMPORAL_SERVER_VERSION=v1.32.1
NAMESPACE=default
DEFAULT_PORT=17233
START_TIMEOUT_SECONDS=120
BUILD_TIMEOUT_SECONDS=5400

SERVICE=temporal-server
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cache_dir() {
  if [[ -n ${HERMES_CACHE_DIR:-} ]]; then
    echo "$HERMES_CACHE_DIR"
  elif mkdir -p /var/cache/hermes-temporal 2>/dev/null && [[ -w /var/cache/hermes-temporal ]]; then
    echo /var/cache/hermes-temporal
  else
    echo "$HOME/.cache/hermes-temporal"
  fi
}

CACHE="$(cache_dir)"
BIN="$CACHE/temporal-server-$TEMPORAL_SERVER_VERSION/bin"

find_go() {
  if command -v go >/dev/null 2>&1; then
    command -v go
  elif [[ -x /usr/local/go/bin/go ]]; then
    echo /usr/local/go/bin/go
  else
    die "Go not found (PATH or /usr/local/go/bin): the Temporal server is built from its Go module"
  fi
}

# `go install` of the server and of temporal-sql-tool (cmd/tools/sql), once per version.
build() {
  if [[ -x $BIN/server && -x $BIN/sql ]]; then
    say "Temporal server $TEMPORAL_SERVER_VERSION found in $BIN"
    return 0
  fi
  local go started
  go=$(find_go)
  mkdir -p "$BIN" "$CACHE/go-build" "$CACHE/gomod"
  started=$SECONDS
  say "building Temporal server $TEMPORAL_SERVER_VERSION with $("$go" version) into $BIN (cold: ~25 min here) ..."
  # GOTOOLCHAIN=local: a version needing a newer Go fails here instead of downloading a toolchain.
  if ! GOBIN="$BIN" GOCACHE="$CACHE/go-build" GOMODCACHE="$CACHE/gomod" GOFLAGS=-mod=mod GOTOOLCHAIN=local \
    timeout "$BUILD_TIMEOUT_SECONDS" "$go" install \
    "go.temporal.io/server/cmd/server@$TEMPORAL_SERVER_VERSION" \
    "go.temporal.io/server/cmd/tools/sql@$TEMPORAL_SERVER_VERSION" >"$STATE/build.log" 2>&1; then
    tail -n 20 "$STATE/build.log" >&2
    die "go install failed (log: $STATE/build.log)"
  fi
  say "built in $((SECONDS - started)) s"
}

# The PostgreSQL cluster of postgres.sh (started if needed): user, password and port from its URL.
postgres_settings() {
  local url
  url=$("$ROOT/scripts/services/postgres.sh" start | sed -n 's/^export HERMES_TEST_POSTGRES_URL=//p')
  [[ $url =~ ^postgres://([^:]+):([^@]+)@127\.0\.0\.1:([0-9]+)/ ]] || die "unexpected postgres URL from postgres.sh"
  PG_USER=${BASH_REMATCH[1]}
  PG_PASSWORD=${BASH_REMATCH[2]}
  PG_PORT=${BASH_REMATCH[3]}
}

# With the server's own schema tool (the same steps as docker-compose.yml's schema job).
ensure_schema() {
  SQL_TOOL="$BIN/sql" POSTGRES_HOST=127.0.0.1 POSTGRES_PORT="$PG_PORT" POSTGRES_USER="$PG_USER" POSTGRES_PWD="$PG_PASSWORD" \
    "$HERE/setup-schema.sh" >>"$STATE/schema.log" 2>&1 || {
    tail -n 20 "$STATE/schema.log" >&2
    die "creating the schemas failed (log: $STATE/schema.log)"
  }
}

# Frontend, history, matching, worker: gRPC on base+0..3, membership on base+10..13, HTTP on base+20.
ports_of() {
  local base=$1
  echo "$base $((base + 1)) $((base + 2)) $((base + 3)) $((base + 10)) $((base + 11)) $((base + 12)) $((base + 13)) $((base + 20))"
}

choose_base_port() {
  local saved base port free
  saved=$(cat "$STATE/port" 2>/dev/null || true)
  for base in $saved $DEFAULT_PORT $(seq $((DEFAULT_PORT + 100)) 100 $((DEFAULT_PORT + 2000))); do
    free=1
    for port in $(ports_of "$base"); do
      if port_in_use "$port"; then
        free=0
        break
      fi
    done
    if ((free)); then
      echo "$base"
      return 0
    fi
  done
  die "no free block of ports from $DEFAULT_PORT on 127.0.0.1"
}

is_running() {
  [[ -f $PIDFILE ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null
}

address() {
  echo "127.0.0.1:$(cat "$STATE/port")"
}

print_env() {
  echo "export HERMES_TEST_TEMPORAL_SERVER_ADDRESS=$(address)"
}

wait_ready() {
  local port=$1 deadline=$((SECONDS + START_TIMEOUT_SECONDS))
  until port_in_use "$port"; do
    if ! is_running; then
      tail -n 30 "$LOG" >&2 || true
      die "the server exited during start-up (log: $LOG)"
    fi
    if ((SECONDS >= deadline)); then
      tail -n 30 "$LOG" >&2 || true
      die "the frontend did not listen on 127.0.0.1:$port within ${START_TIMEOUT_SECONDS}s"
    fi
    sleep 0.5
  done
  # Namespace and search attributes through the operator API; bounded inside (90 s).
  (cd "$ROOT" && timeout 150 node --import tsx "$HERE/prepare-namespace.ts" "127.0.0.1:$port" "$NAMESPACE") ||
    die "could not prepare namespace $NAMESPACE (log: $LOG)"
}

start() {
  build
  postgres_settings
  ensure_schema
  if is_running; then
    say "already running on $(address) (pid $(cat "$PIDFILE"))"
  else
    local base
    base=$(choose_base_port)
    echo "$base" >"$STATE/port"
    say "starting Temporal server $TEMPORAL_SERVER_VERSION on 127.0.0.1:$base (log: $LOG)"
    # The config is a template the server fills from these variables (as in docker-compose.yml).
    # setsid: its own process group, so stop() ends it and nothing else; fd 9 (the lock) stays here.
    BIND_ON_IP=127.0.0.1 TEMPORAL_BROADCAST_ADDRESS=127.0.0.1 FRONTEND_GRPC_PORT="$base" \
      POSTGRES_HOST=127.0.0.1 POSTGRES_PORT="$PG_PORT" POSTGRES_USER="$PG_USER" POSTGRES_PWD="$PG_PASSWORD" \
      DYNAMIC_CONFIG_FILE_PATH="$HERE/dynamic-config.yaml" \
      setsid "$BIN/server" --config-file "$HERE/config.yaml" --allow-no-auth start \
      --service frontend --service history --service matching --service worker >>"$LOG" 2>&1 </dev/null 9>&- &
    echo $! >"$PIDFILE"
  fi
  wait_ready "$(cat "$STATE/port")"
  print_env
}

stop() {
  if ! is_running; then
    say "not running"
    rm -f "$PIDFILE"
    return 0
  fi
  local pid deadline
  pid=$(cat "$PIDFILE")
  kill -TERM "$pid"
  deadline=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then
    say "still running after 30 s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$PIDFILE"
  say "stopped"
}

env_() {
  is_running || die "not running: start it with $0 start"
  print_env
}

main() {
  local command=${1:-}
  mkdir -p "$STATE"
  case $command in
    start | stop | build)
      exec 9>"$STATE/.lock"
      flock -w 600 9 || die "another temporal-server.sh holds $STATE/.lock"
      "$command"
      ;;
    restart)
      exec 9>"$STATE/.lock"
      flock -w 600 9 || die "another temporal-server.sh holds $STATE/.lock"
      stop
      start
      ;;
    env) env_ ;;
    *)
      echo "usage: $0 start|stop|restart|env|build" >&2
      exit 2
      ;;
  esac
}

main "$@"
