#!/usr/bin/env bash
# Regenerates the code and manifests derived from the API types and the Helm chart:
#   - kube/apis/**/zz_generated.deepcopy.go  (controller-gen object)
#   - assets/deploy/crds/<group>_<plural>.yaml       (controller-gen crd)
#   - assets/deploy/controller/*.yaml  (the Helm chart's templates/controller/
#     rendered with its default values, hack/helmchart)
# controller-gen is pinned in hack/tools/go.mod and built once into a per-user
# cache (keyed by its version); later runs reuse the binary.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools="$root/hack/tools"
cache_root=${LIQO_AUTH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/liqo-auth-tui}

log() { echo "generate: $*" >&2; }

version=$(cd "$tools" && go list -m -f '{{.Version}}' sigs.k8s.io/controller-tools)
controller_gen="$cache_root/tools/controller-gen-$version"
if [[ ! -x "$controller_gen" ]]; then
	log "building controller-gen $version into $controller_gen (once)"
	mkdir -p "$(dirname "$controller_gen")"
	(cd "$tools" && go build -o "$controller_gen.tmp" sigs.k8s.io/controller-tools/cmd/controller-gen)
	mv "$controller_gen.tmp" "$controller_gen"
fi

cd "$root"
log "deepcopy: kube/apis/..."
"$controller_gen" object paths=./kube/apis/...

log "CRDs: assets/deploy/crds/"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$controller_gen" crd paths=./kube/apis/... output:crd:artifacts:config="$tmp"
mkdir -p assets/deploy/crds
rm -f assets/deploy/crds/*.yaml
cp "$tmp"/*.yaml assets/deploy/crds/
log "done: $(ls assets/deploy/crds | tr '\n' ' ')"

log "plain manifests: assets/deploy/controller/ from the chart's templates/controller/"
(cd hack/helmchart && go run . generate)
