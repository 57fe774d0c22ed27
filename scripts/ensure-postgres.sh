#!/usr/bin/env bash
# ensure-postgres.sh: make sure PostgreSQL server binaries (initdb, pg_ctl,
# postgres) are installed, for the embedded default database. Idempotent.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
if compgen -G '/usr/lib/postgresql/*/bin/pg_ctl' >/dev/null || command -v pg_ctl >/dev/null; then
    exit 0
fi
apt_install postgresql || die "could not install PostgreSQL; install it, or run with --database-url"
