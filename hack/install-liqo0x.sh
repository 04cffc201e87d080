#!/usr/bin/env bash
# Builds REAL Liqo 0.x components (auth-service, liqo-controller-manager and
# crd-replicator of Liqo v0.10.1, the newest 0.x release the Go module proxy
# serves) from the nested module hack/liqo0x into a per-user cache, with
# the CRDs and ClusterRole rule files of the same release, for the 0.x
# interoperability tests (internal/testlab/realliqo0x).
# Prints the folder on stdout; progress goes to stderr. A completion stamp
# holding a hash of hack/liqo0x and of this script makes a second run a
# no-op; a change to either rebuilds.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
liqo_version=v0.10.1
cache_root=${LIQO_AUTH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/liqo-auth-tui}
dest="$cache_root/liqo0x-$liqo_version"
stamp="$dest/.complete"

src="$here/liqo0x"
sources_hash=$(cd "$src" && cat go.mod go.sum "$here/install-liqo0x.sh" | sha256sum | cut -c1-16)
if [[ -f "$stamp" && "$(cat "$stamp")" == "$sources_hash" ]]; then
	echo "$dest"
	exit 0
fi

# The checksum database has no entry for github.com/liqotech/liqo v0.10.1;
# hack/liqo0x/go.sum pins it instead. Only this module skips the database.
export GONOSUMDB=github.com/liqotech/liqo
export CGO_ENABLED=0

log() { echo "liqo0x: $*" >&2; }
mkdir -p "$dest"
rm -f "$stamp"
cd "$src"

start=$SECONDS
log "building Liqo $liqo_version's auth-service, liqo-controller-manager and crd-replicator into $dest"
log "this happens once per machine (and when hack/liqo0x changes): several minutes on 2 cores, then cached"
log "downloading modules..."
go mod download
build() { # name
	local t=$SECONDS
	log "building $1..."
	nice go build -trimpath -ldflags "-s -w" -o "$dest/$1.tmp" "github.com/liqotech/liqo/cmd/$1"
	mv "$dest/$1.tmp" "$dest/$1"
	log "built $1 in $((SECONDS - t))s"
}
build auth-service
build liqo-controller-manager
build crd-replicator

liqo_dir=$(go list -m -f '{{.Dir}}' github.com/liqotech/liqo)
log "copying Liqo's CRDs and ClusterRole rules from $liqo_dir"
rm -rf "$dest/crds" "$dest/files"
mkdir -p "$dest/crds" "$dest/files"
cp "$liqo_dir"/deployments/liqo/crds/*.yaml "$dest/crds/"
cp "$liqo_dir"/deployments/liqo/files/liqo-remote-peering-*-ClusterRole.yaml "$dest/files/"
chmod u+w "$dest"/crds/*.yaml "$dest"/files/*.yaml # the module cache is read-only

for bin in auth-service liqo-controller-manager crd-replicator; do
	"$dest/$bin" --help >/dev/null 2>&1 || [[ $? == 2 ]] || { log "the built $bin does not run"; exit 1; }
done
echo "$sources_hash" >"$stamp"
log "done in $((SECONDS - start))s"
echo "$dest"
