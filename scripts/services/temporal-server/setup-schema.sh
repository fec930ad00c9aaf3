#!/bin/sh
# Creates or upgrades the Temporal server's PostgreSQL schemas with its own temporal-sql-tool, for
# scripts/services/temporal-server.sh and the schema job of docker-compose.yml (POSIX sh: the
# admin-tools image has no bash). Safe to re-run: each step is skipped or a no-op when done.
# Needs SQL_TOOL (default temporal-sql-tool), POSTGRES_HOST, POSTGRES_PORT, POSTGRES_USER, POSTGRES_PWD.
set -eu

tool() {
  timeout 120 "${SQL_TOOL:-temporal-sql-tool}" --ep "$POSTGRES_HOST" -p "$POSTGRES_PORT" -u "$POSTGRES_USER" --pw "$POSTGRES_PWD" --pl postgres12 "$@"
}

for pair in temporal:temporal temporal_visibility:visibility; do
  database=${pair%%:*}
  schema=${pair##*:}
  # A database that exists already is fine; any other failure shows up in the next step.
  tool --db "$database" create-database >/dev/null 2>&1 || true
  # setup-schema -v 0.0 only creates the version tables; it fails once they exist.
  tool --db "$database" setup-schema -v 0.0 >/dev/null 2>&1 || true
  tool --db "$database" update-schema --schema-name "postgresql/v12/$schema"
done
