# Shared helpers for the service scripts (sourced, not run). Set SERVICE (for messages), and
# DEFAULT_PORT and STATE (for the port helpers) before using them.

# Progress and errors go to stderr: stdout carries only `export` lines.
say() { echo "${SERVICE:-service}.sh: $*" >&2; }
die() {
  say "$*"
  exit 1
}

# True when something already listens on 127.0.0.1:$1.
port_in_use() {
  timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

# The port saved from the last start, else DEFAULT_PORT, else the next free one above it.
choose_port() {
  local saved port
  saved=$(cat "$STATE/port" 2>/dev/null || true)
  for port in $saved $DEFAULT_PORT $(seq $((DEFAULT_PORT + 1)) $((DEFAULT_PORT + 200))); do
    if ! port_in_use "$port"; then
      echo "$port"
      return 0
    fi
  done
  die "no free port in $DEFAULT_PORT-$((DEFAULT_PORT + 200)) on 127.0.0.1"
}
