#!/usr/bin/env bash
# Builds liqo-peer (REAL Liqo v1.2.0 authentication reconcilers, hack/liqo-peer)
# and Liqo's own crd-replicator into a per-user cache, with Liqo's CRDs and
# the ClusterRoles its Tenant controller binds (rendered as Liqo's Helm chart
# renders them), for the interoperability tests (kube/lab/realliqov1).
# Prints the folder on stdout; progress goes to stderr. A completion stamp
# holding a hash of hack/liqo-peer and of this script makes a second run a
# no-op; a change to either rebuilds.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
liqo_version=v1.2.0
cache_root=${LIQO_AUTH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/liqo-auth-tui}
dest="$cache_root/liqo-peer-$liqo_version"
stamp="$dest/.complete"

src="$here/liqo-peer"
sources_hash=$(cd "$src" && cat go.mod go.sum ./*.go "$here/install-liqo-peer.sh" | sha256sum | cut -c1-16)
if [[ -f "$stamp" && "$(cat "$stamp")" == "$sources_hash" ]]; then
	echo "$dest"
	exit 0
fi

log() { echo "liqo-peer: $*" >&2; }
mkdir -p "$dest"
rm -f "$stamp"
cd "$src"

start=$SECONDS
log "building Liqo $liqo_version's authentication reconcilers and crd-replicator into $dest"
log "this happens once per machine (and when hack/liqo-peer changes): several minutes on 2 cores, then cached"
log "downloading modules..."
go mod download
build() { # name package
	local t=$SECONDS
	log "building $1..."
	CGO_ENABLED=0 nice go build -trimpath -ldflags "-s -w" -o "$dest/$1.tmp" "$2"
	mv "$dest/$1.tmp" "$dest/$1"
	log "built $1 in $((SECONDS - t))s"
}
build liqo-peer .
build crd-replicator github.com/liqotech/liqo/cmd/crd-replicator

liqo_dir=$(go list -m -f '{{.Dir}}' github.com/liqotech/liqo)
log "copying Liqo's CRDs and ClusterRoles from $liqo_dir"
rm -rf "$dest/crds" "$dest/clusterroles"
mkdir -p "$dest/crds" "$dest/clusterroles"
cp "$liqo_dir"/deployments/liqo/charts/liqo-crds/crds/*.yaml "$dest/crds/"
chmod u+w "$dest"/crds/*.yaml # the module cache is read-only

# clusterrole NAME MODULE: the ClusterRole liqo-NAME as the chart renders it
# (templates/liqo-remote-controlplane-rbac.yaml, liqo-virtual-kubelet-remote.yaml)
# for release "liqo": the Tenant controller finds it by app.kubernetes.io/name.
clusterrole() {
	local out="$dest/clusterroles/liqo-$1.yaml"
	cat >"$out" <<-EOF
		apiVersion: rbac.authorization.k8s.io/v1
		kind: ClusterRole
		metadata:
		  name: liqo-$1
		  labels:
		    app.kubernetes.io/name: "$1"
		    app.kubernetes.io/instance: "liqo-$1"
		    app.kubernetes.io/component: "$2"
		    app.kubernetes.io/part-of: "liqo"
		    helm.sh/chart: "liqo-$liqo_version"
		    app.kubernetes.io/version: "$liqo_version"
		    app.kubernetes.io/managed-by: "Helm"
	EOF
	cat "$liqo_dir/deployments/liqo/files/liqo-$1-ClusterRole.yaml" >>"$out"
}
clusterrole remote-controlplane authentication
clusterrole virtual-kubelet-remote-clusterwide virtualkubelet

"$dest/liqo-peer" --help >/dev/null 2>&1 || { log "the built liqo-peer does not run"; exit 1; }
echo "$sources_hash" >"$stamp"
log "done in $((SECONDS - start))s"
echo "$dest"
