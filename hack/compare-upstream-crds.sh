#!/usr/bin/env bash
# Developer check, not part of the test suite: compares assets/deploy/crds,
# assets/deploy/rbac and assets/deploy/peering-user with the upstream Liqo copies in ../shared/upstream-liqo-crds
# (override with UPSTREAM_DIR). Exit status 1 when something differs.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
exec go run ./hack/compare-upstream -upstream "${UPSTREAM_DIR:-$root/../shared/upstream-liqo-crds}" "$@"
