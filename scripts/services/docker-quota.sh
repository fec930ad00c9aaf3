#!/usr/bin/env bash
# A second private Docker daemon whose storage driver keeps a container's disk bound (btrfs with
# quotas, on a loop-mounted image): what the docker backend's `disk_mb` tests need. Same commands
# as docker.sh (start|stop|env); state under .tmp/services/docker-quota/.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
export HERMES_DOCKER_STORAGE=btrfs
export HERMES_DOCKER_STATE_DIR="${HERMES_DOCKER_QUOTA_STATE_DIR:-$ROOT/.tmp/services/docker-quota}"
# The rootfs tarball docker.sh builds is shared, so the image is imported, not built again.
export HERMES_DOCKER_ROOTFS_TAR="${HERMES_DOCKER_ROOTFS_TAR:-$ROOT/.tmp/services/docker/rootfs-bookworm.tar}"
exec bash "$ROOT/scripts/services/docker.sh" "$@"
