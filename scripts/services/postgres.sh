#!/usr/bin/env bash
# A throwaway PostgreSQL for the Postgres session-store tests, on 127.0.0.1 only, with its data,
# socket, log and password under .tmp/services/postgres/ (git-ignored).
#
#   eval "$(scripts/services/postgres.sh start)"   # sets HERMES_TEST_POSTGRES_URL
#   scripts/services/postgres.sh env               # prints the export line again
#   scripts/services/postgres.sh stop
#
# Only `export ...` lines go to stdout (for eval); progress goes to stderr. Every wait is bounded.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="$ROOT/.tmp/services/postgres"
DATA="$STATE/data"
SOCKETS="$STATE/run"
LOG="$STATE/postgres.log"
DATABASE=hermes_test
SUPERUSER=hermes
SYSTEM_USER=hermes-pg
DEFAULT_PORT=55432
START_TIMEOUT_SECONDS=60

SERVICE=postgres
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Postgres refuses to run as root: as root, the server runs as a dedicated system user.
as_server_user() {
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u "$SYSTEM_USER" -- "$@"
  else
    "$@"
  fi
}

find_pg_bin() {
  local dir
  dir=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -type d -name bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [[ -n $dir && -x $dir/initdb ]]; then
    echo "$dir"
  elif command -v initdb >/dev/null 2>&1; then
    dirname "$(readlink -f "$(command -v initdb)")"
  fi
}

install_postgres() {
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || die "initdb not found and not root: install PostgreSQL (apt-get install postgresql)"
    sudo=(sudo -n)
  fi
  say "installing PostgreSQL (apt-get install postgresql) ..."
  # Debian's package would create and start a 'main' cluster on port 5432; this script runs its own.
  "${sudo[@]}" mkdir -p /etc/postgresql-common/createcluster.d
  echo 'create_main_cluster = false' | "${sudo[@]}" tee /etc/postgresql-common/createcluster.d/hermes-no-main.conf >/dev/null
  "${sudo[@]}" timeout 600 apt-get update -qq >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq --no-install-recommends postgresql >&2
}

ensure_system_user() {
  [[ $(id -u) -eq 0 ]] || return 0
  id -u "$SYSTEM_USER" >/dev/null 2>&1 && return 0
  say "creating system user $SYSTEM_USER (postgres will not run as root)"
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$SYSTEM_USER"
}


is_running() {
  [[ -f $DATA/PG_VERSION ]] && as_server_user "$PG_BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1
}

url() {
  echo "postgres://$SUPERUSER:$(cat "$STATE/password")@127.0.0.1:$(cat "$STATE/port")/$DATABASE"
}

print_env() {
  echo "export HERMES_TEST_POSTGRES_URL=$(url)"
}

init_cluster() {
  [[ -f $DATA/PG_VERSION ]] && return 0
  say "initdb into $DATA"
  rm -rf "$DATA"
  mkdir -p "$DATA" "$SOCKETS"
  (umask 077 && head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$STATE/password")
  local pwfile="$STATE/initdb-password"
  cp "$STATE/password" "$pwfile"
  if [[ $(id -u) -eq 0 ]]; then chown "$SYSTEM_USER" "$DATA" "$SOCKETS" "$pwfile"; fi
  chmod 700 "$DATA" "$SOCKETS"
  # Password (scram) over TCP; the socket sits in a directory only the server user can enter.
  if ! as_server_user "$PG_BIN/initdb" -D "$DATA" -U "$SUPERUSER" --pwfile="$pwfile" \
    --auth-host=scram-sha-256 --auth-local=peer --encoding=UTF8 --no-locale >"$STATE/initdb.log" 2>&1; then
    rm -f "$pwfile"
    cat "$STATE/initdb.log" >&2
    rm -rf "$DATA"
    die "initdb failed"
  fi
  rm -f "$pwfile"
}

wait_ready() {
  local port=$1 deadline=$((SECONDS + START_TIMEOUT_SECONDS))
  until "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$port" -t 2; do
    if ((SECONDS >= deadline)); then
      tail -n 30 "$LOG" >&2 || true
      die "postgres did not become ready on 127.0.0.1:$port within ${START_TIMEOUT_SECONDS}s"
    fi
    sleep 0.5
  done
}

ensure_database() {
  local port=$1 sql
  export PGPASSWORD
  PGPASSWORD=$(cat "$STATE/password")
  sql="SELECT 1 FROM pg_database WHERE datname = '$DATABASE'"
  if [[ -z $(timeout 30 "$PG_BIN/psql" -h 127.0.0.1 -p "$port" -U "$SUPERUSER" -d postgres -tAc "$sql") ]]; then
    say "creating database $DATABASE"
    timeout 30 "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U "$SUPERUSER" "$DATABASE"
  fi
}

start() {
  PG_BIN=$(find_pg_bin)
  if [[ -z $PG_BIN ]]; then
    install_postgres
    PG_BIN=$(find_pg_bin)
    [[ -n $PG_BIN ]] || die "PostgreSQL installed but initdb not found under /usr/lib/postgresql/*/bin"
  fi
  ensure_system_user
  init_cluster
  if is_running; then
    say "already running on 127.0.0.1:$(cat "$STATE/port")"
  else
    local port
    port=$(choose_port)
    echo "$port" >"$STATE/port"
    touch "$LOG"
    if [[ $(id -u) -eq 0 ]]; then chown "$SYSTEM_USER" "$LOG" "$SOCKETS"; fi
    say "starting postgres on 127.0.0.1:$port (log: $LOG)"
    as_server_user "$PG_BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t "$START_TIMEOUT_SECONDS" \
      -o "-c listen_addresses=127.0.0.1 -p $port -k '$SOCKETS' -c max_connections=200 -c fsync=off" start >&2 9>&- ||
      {
        tail -n 30 "$LOG" >&2 || true
        die "pg_ctl start failed"
      }
  fi
  wait_ready "$(cat "$STATE/port")"
  ensure_database "$(cat "$STATE/port")"
  print_env
}

stop() {
  PG_BIN=$(find_pg_bin)
  if [[ -z $PG_BIN ]] || ! is_running; then
    say "not running"
    return 0
  fi
  as_server_user "$PG_BIN/pg_ctl" -D "$DATA" -m fast -w -t 30 stop >&2
}

env_() {
  PG_BIN=$(find_pg_bin)
  [[ -n $PG_BIN ]] && is_running || die "not running: start it with $0 start"
  print_env
}

main() {
  local command=${1:-}
  case $command in
    start | stop)
      mkdir -p "$STATE"
      chmod 755 "$STATE"
      # One start/stop at a time (two test runs starting it together); the server must not inherit fd 9.
      exec 9>"$STATE/.lock"
      flock -w 120 9 || die "another postgres.sh $command holds $STATE/.lock"
      "$command"
      ;;
    env) env_ ;;
    *)
      echo "usage: $0 start|stop|env" >&2
      exit 2
      ;;
  esac
}

main "$@"
