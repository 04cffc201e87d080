#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager and etcd from source (versions
# pinned in hack/kube-binaries/go.mod) into a per-user cache, once.
# Prints the folder holding the binaries on stdout; progress goes to stderr.
# A completion stamp makes a second run a no-op that takes milliseconds.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
kube_version=v1.37.1
etcd_version=v3.7.0
cache_root=${LIQO_AUTH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/liqo-auth-tui}
dest="$cache_root/kube-$kube_version-etcd-$etcd_version"
stamp="$dest/.complete"

if [[ -f "$stamp" ]]; then
	echo "$dest"
	exit 0
fi

log() { echo "kube-binaries: $*" >&2; }
mkdir -p "$dest"
cd "$here/kube-binaries"

minor=${kube_version#v1.}; minor=${minor%%.*}
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	ldflags+=" -X $pkg.gitVersion=$kube_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
	ldflags+=" -X $pkg.gitTreeState=clean"
done

start=$SECONDS
log "building Kubernetes $kube_version and etcd $etcd_version from source into $dest"
log "this happens once per machine: about 8 minutes on 2 cores, then cached"
log "downloading modules..."
go mod download
build() { # name package
	local t=$SECONDS
	log "building $1..."
	CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$dest/$1.tmp" "$2"
	mv "$dest/$1.tmp" "$dest/$1"
	log "built $1 in $((SECONDS - t))s"
}
build etcd go.etcd.io/etcd/server/v3
build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
build kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager
"$dest/kube-apiserver" --version >&2
touch "$stamp"
log "done in $((SECONDS - start))s"
echo "$dest"
