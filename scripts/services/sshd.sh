#!/usr/bin/env bash
# A throwaway OpenSSH server for the SSH backend tests, on 127.0.0.1 only, with its own config,
# host key and client key under .tmp/services/sshd/ (git-ignored), and a dedicated test user
# (root's bash startup costs ~100 ms per command; a plain user does not).
#
#   eval "$(scripts/services/sshd.sh start)"   # sets HERMES_TEST_SSH_{HOST,PORT,USER,KEY,FINGERPRINT}
#   scripts/services/sshd.sh env               # prints the export lines again
#   scripts/services/sshd.sh stop
#
# Only `export ...` lines go to stdout (for eval); progress goes to stderr. Every wait is bounded.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="$ROOT/.tmp/services/sshd"
CONFIG="$STATE/sshd_config"
HOST_KEY="$STATE/host_ed25519_key"
CLIENT_KEY="$STATE/client_ed25519"
AUTHORIZED_KEYS="$STATE/authorized_keys"
PID_FILE="$STATE/sshd.pid"
LOG="$STATE/sshd.log"
SSHD=/usr/sbin/sshd
TEST_USER=hermes-test
DEFAULT_PORT=2222
# Sessions (channels) per connection; the backend's max_channels must stay below it.
MAX_SESSIONS=10
START_TIMEOUT_SECONDS=30

SERVICE=sshd
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_root() {
  [[ $(id -u) -eq 0 ]] || die "$1 needs root (run as root, or do it by hand)"
}

install_sshd() {
  [[ -x $SSHD ]] && command -v ssh-keygen >/dev/null 2>&1 && return 0
  need_root "installing openssh-server"
  say "installing openssh-server (apt-get) ..."
  timeout 600 apt-get update -qq >&2 || say "apt-get update failed; trying the install anyway"
  # Debian's policy-rc.d keeps the package from starting its own sshd on port 22.
  DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq --no-install-recommends openssh-server openssh-client >&2
  [[ -x $SSHD ]] || die "openssh-server installed but $SSHD is missing"
}

ensure_test_user() {
  id -u "$TEST_USER" >/dev/null 2>&1 && return 0
  need_root "creating the test user $TEST_USER"
  say "creating test user $TEST_USER (bash, no password)"
  useradd --create-home --shell /bin/bash "$TEST_USER"
  # With UsePAM no, a locked ('!') password blocks even key logins; an empty one does not
  # (password logins stay off in the config).
  passwd -d "$TEST_USER" >/dev/null
}

ensure_keys() {
  [[ -f $HOST_KEY ]] || ssh-keygen -q -t ed25519 -N '' -C hermes-test-host -f "$HOST_KEY"
  [[ -f $CLIENT_KEY ]] || ssh-keygen -q -t ed25519 -N '' -C hermes-test-client -f "$CLIENT_KEY"
  cp "$CLIENT_KEY.pub" "$AUTHORIZED_KEYS"
  # sshd reads authorized_keys as the target user: the file and its directories must be readable.
  chmod 644 "$AUTHORIZED_KEYS"
  chmod 600 "$HOST_KEY" "$CLIENT_KEY"
}

write_config() {
  local port=$1
  cat >"$CONFIG" <<EOF
# Written by scripts/services/sshd.sh: a test server for the SSH backend, loopback only.
Port $port
ListenAddress 127.0.0.1
HostKey $HOST_KEY
PidFile none
AuthorizedKeysFile $AUTHORIZED_KEYS
AllowUsers $TEST_USER
PermitRootLogin no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitEmptyPasswords no
UsePAM no
StrictModes no
MaxSessions $MAX_SESSIONS
MaxStartups 50:30:100
PrintMotd no
Subsystem sftp internal-sftp
LogLevel VERBOSE
EOF
}

# Debian's sshd wants its privilege-separation directory (/run/sshd), which nothing creates here.
ensure_privsep_dir() {
  local missing
  missing=$("$SSHD" -t -f "$CONFIG" 2>&1 | tr -d '\r' | sed -n 's/^Missing privilege separation directory: //p' || true)
  if [[ -n $missing ]]; then
    need_root "creating $missing"
    install -d -m 0755 "$missing"
  fi
  "$SSHD" -t -f "$CONFIG" >&2 || die "sshd rejects $CONFIG"
}


# Running means: the recorded pid is alive and is our sshd (pids get reused).
is_running() {
  local pid
  pid=$(cat "$PID_FILE" 2>/dev/null || true)
  [[ -n $pid ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$CONFIG"
}

# Ready means: the port answers with an SSH banner.
wait_ready() {
  local port=$1 deadline=$((SECONDS + START_TIMEOUT_SECONDS)) banner
  for (( ; ; )); do
    banner=$(timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && head -c 8 <&3" 2>/dev/null || true)
    [[ $banner == SSH-2.0* ]] && return 0
    is_running || {
      tail -n 30 "$LOG" >&2 || true
      die "sshd exited during startup"
    }
    if ((SECONDS >= deadline)); then
      tail -n 30 "$LOG" >&2 || true
      die "sshd did not answer on 127.0.0.1:$port within ${START_TIMEOUT_SECONDS}s"
    fi
    sleep 0.1
  done
}

print_env() {
  local fingerprint
  fingerprint=$(ssh-keygen -l -E sha256 -f "$HOST_KEY.pub" | awk '{print $2}')
  printf 'export HERMES_TEST_SSH_HOST=127.0.0.1\n'
  printf 'export HERMES_TEST_SSH_PORT=%q\n' "$(cat "$STATE/port")"
  printf 'export HERMES_TEST_SSH_USER=%q\n' "$TEST_USER"
  printf 'export HERMES_TEST_SSH_KEY=%q\n' "$CLIENT_KEY"
  printf 'export HERMES_TEST_SSH_FINGERPRINT=%q\n' "$fingerprint"
}

start() {
  install_sshd
  ensure_test_user
  ensure_keys
  if is_running; then
    say "already running on 127.0.0.1:$(cat "$STATE/port") (pid $(cat "$PID_FILE"))"
  else
    local port
    port=$(choose_port)
    echo "$port" >"$STATE/port"
    write_config "$port"
    ensure_privsep_dir
    say "starting sshd on 127.0.0.1:$port (log: $LOG)"
    # One run's log at a time (VERBOSE logs every session); the previous one is kept beside it.
    [[ -f $LOG ]] && mv -f "$LOG" "$LOG.1"
    # -D: stay in the foreground (so the pid is ours to stop), -e: log to the log file.
    setsid "$SSHD" -D -e -f "$CONFIG" >>"$LOG" 2>&1 </dev/null &
    echo $! >"$PID_FILE"
  fi
  wait_ready "$(cat "$STATE/port")"
  print_env
}

stop() {
  if ! is_running; then
    say "not running"
    rm -f "$PID_FILE"
    return 0
  fi
  local pid deadline=$((SECONDS + 10))
  pid=$(cat "$PID_FILE")
  # The listener only: sessions still open die with their connections.
  kill -TERM "$pid"
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      say "sshd (pid $pid) ignored SIGTERM for 10s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.1
  done
  rm -f "$PID_FILE"
  say "stopped"
}

env_() {
  is_running || die "not running: start it with $0 start"
  print_env
}

main() {
  local command=${1:-}
  case $command in
    start | stop)
      mkdir -p "$STATE"
      # The test user must reach authorized_keys through these directories.
      chmod 755 "$ROOT/.tmp" "$ROOT/.tmp/services" "$STATE"
      # One start/stop at a time (two test runs starting it together).
      exec 9>"$STATE/.lock"
      flock -w 120 9 || die "another sshd.sh $command holds $STATE/.lock"
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
