#!/usr/bin/env bash
# Builds liqo-peer (REAL Liqo v1 authentication reconcilers, hack/liqo-peer)
# and Liqo's own crd-replicator for each Liqo v1 release the interoperability
# tests run against, each into its own per-user cache folder
# liqo-peer-<release>, with that release's CRDs and the ClusterRoles its
# Tenant controller binds (rendered as Liqo's Helm chart renders them), and
# in pods/ the ClusterRoles and Roles the chart binds to the ServiceAccounts
# of liqo-controller-manager and crd-replicator (to run them as Pods), for
# internal/testlab/realliqov1.
#
#   hack/install-liqo-peer.sh [RELEASE...]   (default: every release below)
#
# Prints the folder of each release on stdout; progress goes to stderr. A
# completion stamp per folder holding a hash of what went into it makes a
# second run a no-op; a change rebuilds that release only.
#
# Every release builds from the same sources (hack/liqo-peer/*.go) but for
# the file that wires the Renew reconcilers, whose constructors changed in
# v1.2.0. hack/liqo-peer's go.mod is v1.2.0's; releases/<release>/go.mod pins
# every other dependency to the versions of v1.2.0's build (Kubernetes,
# controller-runtime, ...; MVS lets them be raised), and the build flags are
# the same: Go's build cache then compiles the dependencies once, and each
# further release only its own Liqo packages (48 of them).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src="$here/liqo-peer"
cache_root=${LIQO_AUTH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/liqo-auth-tui}
# The first one compiles the shared dependencies; keep it first.
all_releases=(v1.2.0 v1.1.2 v1.0.3)

# module_dir RELEASE: where the release's go.mod and go.sum are.
module_dir() {
	if [[ $1 == v1.2.0 ]]; then echo "$src"; else echo "$src/releases/$1"; fi
}

# renewers RELEASE: the file that wires the release's Renew reconcilers
# (their constructors changed with provider-driven renewal in v1.2.0).
renewers() {
	case $1 in
	v1.0.* | v1.1.*) echo "$src/releases/_consumer-driven-renewal/renewers.go" ;;
	*) echo "$src/renewers.go" ;;
	esac
}

# rbac DEST LIQO_DIR RELEASE KIND FILE LABELNAME COMPONENT: Liqo's KIND
# (ClusterRole or Role) liqo-FILE as the chart renders it for release "liqo"
# (templates/liqo-remote-controlplane-rbac.yaml, liqo-virtual-kubelet-remote.yaml,
# liqo-peer-rbac.yaml), labelled as its liqo.labels helper labels it: the
# Tenant controller finds its ClusterRoles by app.kubernetes.io/name,
# `generate peering-user` the peering user's by app.kubernetes.io/component.
# ClusterRoles go to DEST/clusterroles, Roles (of the Liqo namespace) to
# DEST/roles.
rbac() {
	local folder=clusterroles
	[[ $4 == Role ]] && folder=roles
	local out="$1/$folder/liqo-$5.yaml"
	cat >"$out" <<-EOF
		apiVersion: rbac.authorization.k8s.io/v1
		kind: $4
		metadata:
		  name: liqo-$5
		  labels:
		    app.kubernetes.io/name: "$6"
		    app.kubernetes.io/instance: "liqo-$6"
		    app.kubernetes.io/component: "$7"
		    app.kubernetes.io/part-of: "liqo"
		    helm.sh/chart: "liqo-$3"
		    app.kubernetes.io/version: "$3"
		    app.kubernetes.io/managed-by: "Helm"
	EOF
	cat "$2/deployments/liqo/files/liqo-$5-$4.yaml" >>"$out"
}

# install RELEASE: builds one release into its folder (unless stamped).
install() {
	local release=$1 dest="$cache_root/liqo-peer-$1"
	local mod stamp="$dest/.complete" inputs hash
	mod=$(module_dir "$release")
	inputs=("$src"/*.go "$(renewers "$release")" "$mod/go.mod" "$mod/go.sum" "$here/install-liqo-peer.sh")
	hash=$(cat "${inputs[@]}" | sha256sum | cut -c1-16)
	if [[ -f "$stamp" && "$(cat "$stamp")" == "$hash" ]]; then
		echo "$dest"
		return
	fi

	log() { echo "liqo-peer $release: $*" >&2; }
	local start=$SECONDS
	log "building Liqo $release's authentication reconcilers and crd-replicator into $dest"
	log "this happens once per machine (and when hack/liqo-peer changes), then cached"
	mkdir -p "$dest"
	rm -f "$stamp"
	# The build folder: the shared sources, the release's renewers and module.
	local work="$dest/.src"
	rm -rf "$work"
	mkdir -p "$work"
	cp "$src"/*.go "$mod/go.mod" "$mod/go.sum" "$work/"
	cp "$(renewers "$release")" "$work/renewers.go"
	cd "$work"
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
	# The consumer's replicator is built per release too, for a few seconds
	# (all but two of its Liqo packages are liqo-peer's): v1.0.x's has no
	# ForeignCluster-state controller and reflects without waiting for the
	# remote informers; v1.1.x's differs from v1.2.0's in the shared packages.
	build crd-replicator github.com/liqotech/liqo/cmd/crd-replicator

	local liqo_dir
	liqo_dir=$(go list -m -f '{{.Dir}}' github.com/liqotech/liqo)
	log "copying Liqo's CRDs, ClusterRoles and Roles from $liqo_dir"
	rm -rf "$dest/crds" "$dest/clusterroles" "$dest/roles" "$dest/pods"
	mkdir -p "$dest/crds" "$dest/clusterroles" "$dest/roles"
	cp "$liqo_dir"/deployments/liqo/charts/liqo-crds/crds/*.yaml "$dest/crds/"
	chmod u+w "$dest"/crds/*.yaml # the module cache is read-only
	rbac "$dest" "$liqo_dir" "$release" ClusterRole remote-controlplane remote-controlplane authentication
	rbac "$dest" "$liqo_dir" "$release" ClusterRole virtual-kubelet-remote-clusterwide virtual-kubelet-remote-clusterwide virtualkubelet
	rbac "$dest" "$liqo_dir" "$release" ClusterRole peering-user-tenant-ns peering-user peering-user
	rbac "$dest" "$liqo_dir" "$release" Role peering-user-liqo-ns peering-user peering-user
	# What the chart binds to the ServiceAccounts of liqo-controller-manager
	# and crd-replicator (liqo-controller-manager-rbac.yaml,
	# liqo-crd-replicator-rbac.yaml), for running them as Pods; kept apart
	# from what every test installs. The controller-manager's Role has no
	# rules file in the chart (an empty Role).
	mkdir -p "$dest/pods/clusterroles" "$dest/pods/roles"
	rbac "$dest/pods" "$liqo_dir" "$release" ClusterRole controller-manager controller-manager controller-manager
	rbac "$dest/pods" "$liqo_dir" "$release" ClusterRole crd-replicator crd-replicator dispatcher
	rbac "$dest/pods" "$liqo_dir" "$release" Role crd-replicator crd-replicator dispatcher

	"$dest/liqo-peer" --help >/dev/null 2>&1 || { log "the built liqo-peer does not run"; exit 1; }
	cd "$here"
	rm -rf "$work"
	echo "$hash" >"$stamp"
	log "done in $((SECONDS - start))s"
	echo "$dest"
}

releases=("$@")
((${#releases[@]})) || releases=("${all_releases[@]}")
for release in "${releases[@]}"; do
	if [[ " ${all_releases[*]} " != *" $release "* ]]; then
		echo "install-liqo-peer.sh: unknown Liqo release $release: use one of ${all_releases[*]}" >&2
		exit 2
	fi
	install "$release"
done
