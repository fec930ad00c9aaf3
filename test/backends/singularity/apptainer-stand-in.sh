#!/bin/bash
# Stand-in apptainer for hermes-temporal tests: records argv, runs commands with bwrap.
STATE=__STATE__
LOG=__LOG__
BWRAP=__BWRAP__
# The `bind path` entries of an apptainer.conf: host folders every instance gets, even contained.
SITE_BIND_PATHS=__SITE_BIND_PATHS__

record() {
  local arg line=""
  for arg in "$@"; do line+="$(printf '%s' "$arg" | base64 -w0),"; done
  { flock 9; printf '%s\n' "$line" >&9; } 9>>"$LOG"
}
record "$@"

fatal() { echo "FATAL:   $*" >&2; exit 255; }
# Processes of an instance carry its name in their environment (inherited by everything they start).
marked_pids() { grep -lsaxz "HERMES_STANDIN_INSTANCE=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3; }

instance_start() {
  # Like Apptainer, the host's network unless --net; --network implies --net, and only `none` is
  # open to unprivileged users (a namespace with its own loopback only).
  local overlay="" network=host site_binds=yes positional=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --containall|--no-home|--cleanenv|--writable-tmpfs) shift ;;
      --overlay) overlay=$2; shift 2 ;;
      --net) [ "$network" = host ] && network=bridge; shift ;;
      --network) network=$2; shift 2 ;;
      --no-mount) [[ ",$2," == *,bind-paths,* ]] && site_binds=no; shift 2 ;;
      -*) fatal "the stand-in does not know option $1" ;;
      *) positional+=("$1"); shift ;;
    esac
  done
  [ ${#positional[@]} -eq 2 ] || fatal "usage: instance start [options] <image> <name>"
  [ "$network" = host ] || [ "$network" = none ] || fatal "network $network requires root; non-root users can only use --network=none"
  local image=${positional[0]} name=${positional[1]}
  local dir="$STATE/instances/$name" root
  [ -e "$dir" ] && fatal "instance $name already exists"
  if [ -n "$overlay" ]; then
    [ -d "$overlay" ] || fatal "overlay $overlay is not a directory"
    root=$overlay
  else
    root="$dir/tmpfs"
  fi
  mkdir -p "$dir" "$root"
  printf '%s' "$image" > "$dir/image"
  printf '%s' "$root" > "$dir/root"
  printf '%s' "$network" > "$dir/network"
  printf '%s' "$site_binds" > "$dir/site-binds"
  HERMES_STANDIN_INSTANCE=$name setsid sleep infinity </dev/null >/dev/null 2>&1 &
  echo $! > "$dir/pid"
  echo "INFO:    instance started successfully"
}

instance_list() {
  [ "$1" = "--json" ] || fatal "the stand-in only lists with --json"
  local first=1 dir
  printf '{\n   "instances": ['
  for dir in "$STATE"/instances/*/; do
    [ -d "$dir" ] || continue
    [ $first = 1 ] || printf ','
    first=0
    printf '\n      {"instance": "%s", "pid": %s, "img": "%s", "ip": "", "logErrPath": "", "logOutPath": ""}' \
      "$(basename "$dir")" "$(cat "$dir/pid")" "$(cat "$dir/image")"
  done
  printf '\n   ]\n}\n'
}

instance_stop() {
  local name=$1 dir="$STATE/instances/$1" pid root
  [ -d "$dir" ] || fatal "no instance found with name $name"
  for pid in $(marked_pids "$name"); do kill -KILL "$pid" 2>/dev/null; done
  root=$(cat "$dir/root")
  # A writable tmpfs dies with the instance; an overlay stays.
  case "$root" in "$dir"/*) rm -rf "$root" ;; esac
  rm -rf "$dir"
  echo "INFO:    Stopping $name instance"
}

run_exec() {
  local envs=() item
  while [ $# -gt 0 ]; do
    case "$1" in
      --cleanenv) shift ;;
      # Like Apptainer, --env takes a comma-separated list of K=V.
      --env) IFS=',' read -ra items <<< "$2"; for item in "${items[@]}"; do [[ "$item" == *=* ]] || fatal "invalid --env value $item"; envs+=("$item"); done; shift 2 ;;
      -*) fatal "the stand-in does not know option $1" ;;
      *) break ;;
    esac
  done
  local target=$1
  shift
  [[ "$target" == instance://* ]] || fatal "the stand-in only runs instance:// targets"
  local name=${target#instance://}
  local dir="$STATE/instances/$name"
  [ -d "$dir" ] || fatal "no instance found with name $name"
  local args=(--bind "$(cat "$dir/root")" / --ro-bind /usr /usr --ro-bind /etc /etc --proc /proc --dev /dev
    --die-with-parent --clearenv --setenv PATH /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    --setenv HOME /root --setenv LANG C.UTF-8 --setenv HERMES_STANDIN_INSTANCE "$name")
  [ "$(cat "$dir/network")" = none ] && args+=(--unshare-net)
  if [ "$(cat "$dir/site-binds")" = yes ]; then
    for item in $SITE_BIND_PATHS; do args+=(--bind "$item" "$item"); done
  fi
  local system
  for system in /bin /sbin /lib /lib32 /lib64 /libx32; do [ -e "$system" ] && args+=(--ro-bind "$system" "$system"); done
  for item in "${envs[@]}"; do args+=(--setenv "${item%%=*}" "${item#*=}"); done
  local variable
  for variable in $(compgen -e); do
    case "$variable" in
      APPTAINERENV_*) args+=(--setenv "${variable#APPTAINERENV_}" "${!variable}") ;;
      SINGULARITYENV_*) args+=(--setenv "${variable#SINGULARITYENV_}" "${!variable}") ;;
    esac
  done
  exec "$BWRAP" "${args[@]}" --chdir / -- "$@"
}

case "$1" in
  version) echo "1.3.0-stand-in" ;;
  instance)
    case "$2" in
      start) shift 2; instance_start "$@" ;;
      list) shift 2; instance_list "$@" ;;
      stop) shift 2; instance_stop "$@" ;;
      *) fatal "the stand-in does not implement instance $2" ;;
    esac ;;
  exec) shift; run_exec "$@" ;;
  *) fatal "the stand-in does not implement $1" ;;
esac
