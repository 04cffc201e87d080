#!/usr/bin/env bash
# Builds what a lab Node runs into a per-user cache, once: kubelet,
# kube-scheduler and kube-proxy from the same pinned Kubernetes module as
# kube-apiserver (hack/kube-binaries), containerd with its runc shim and ctr
# (hack/node-binaries); installs Debian's runc, CNI plugins and iptables when
# they are missing. Prints the folder holding the binaries on stdout;
# progress goes to stderr. A completion stamp makes a second run a no-op.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
kube_version=v1.37.1
containerd_version=v2.4.2
cache_root=${LIQO_AUTH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/liqo-auth-tui}
dest="$cache_root/node-$kube_version-containerd-$containerd_version"
stamp="$dest/.complete"

log() { echo "node-binaries: $*" >&2; }

# Debian's packages: runc (behind the lab's wrapper, see
# internal/testlab/node), the CNI plugins and iptables (the bridge plugin's
# masquerade). Checked on every run: a new machine has none of them.
need_apt=()
[[ -x /usr/sbin/runc || -x /usr/bin/runc ]] || need_apt+=(runc)
[[ -x /usr/lib/cni/bridge ]] || need_apt+=(containernetworking-plugins)
command -v iptables >/dev/null || need_apt+=(iptables)
if ((${#need_apt[@]})); then
	log "installing Debian's ${need_apt[*]}"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# The lab's own two pieces, rebuilt whenever their sources change (a second
# or two with a warm build cache): the runc wrapper and the sandbox image.
lab_pieces() {
	local repo=$here/..
	mkdir -p "$dest"
	if [[ ! -x "$dest/lab-runc" || "$repo/internal/testlab/cmd/lab-runc/main.go" -nt "$dest/lab-runc" ]]; then
		(cd "$repo" && CGO_ENABLED=0 go build -trimpath -o "$dest/lab-runc" ./internal/testlab/cmd/lab-runc)
	fi
	if [[ ! -f "$dest/pause.tar" || "$repo/internal/testlab/cmd/lab-pause/main.go" -nt "$dest/pause.tar" || "$here/image/pause.go" -nt "$dest/pause.tar" ]]; then
		(cd "$here/image" && GOOS= GOARCH= go run . --repo=../.. --pause-tar="$dest/pause.tar")
	fi
}

if [[ -f "$stamp" ]]; then
	lab_pieces
	echo "$dest"
	exit 0
fi
mkdir -p "$dest"
start=$SECONDS
log "building the kubelet, kube-scheduler, kube-proxy $kube_version and containerd $containerd_version into $dest"
log "this happens once per machine: several minutes on 2 cores, then cached"

minor=${kube_version#v1.}; minor=${minor%%.*}
kube_ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	kube_ldflags+=" -X $pkg.gitVersion=$kube_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
	kube_ldflags+=" -X $pkg.gitTreeState=clean"
done
containerd_ldflags="-s -w -X github.com/containerd/containerd/v2/version.Version=$containerd_version"

build() { # module-dir ldflags name package
	local t=$SECONDS
	log "building $3..."
	(cd "$here/$1" && CGO_ENABLED=0 go build -trimpath -ldflags "$2" -o "$dest/$3.tmp" "$4")
	mv "$dest/$3.tmp" "$dest/$3"
	log "built $3 in $((SECONDS - t))s"
}
(cd "$here/kube-binaries" && go mod download)
(cd "$here/node-binaries" && go mod download)
build kube-binaries "$kube_ldflags" kubelet k8s.io/kubernetes/cmd/kubelet
build kube-binaries "$kube_ldflags" kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler
build kube-binaries "$kube_ldflags" kube-proxy k8s.io/kubernetes/cmd/kube-proxy
build node-binaries "$containerd_ldflags" containerd github.com/containerd/containerd/v2/cmd/containerd
build node-binaries "$containerd_ldflags" containerd-shim-runc-v2 github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2
build node-binaries "$containerd_ldflags" ctr github.com/containerd/containerd/v2/cmd/ctr
lab_pieces
"$dest/kubelet" --version >&2
"$dest/containerd" --version >&2
touch "$stamp"
log "done in $((SECONDS - start))s"
echo "$dest"
