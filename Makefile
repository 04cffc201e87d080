# liqo-auth-tui — see README.md. Every target installs what it needs.
SHELL := /bin/bash
GO ?= go
FUZZTIME ?= 60s
TEST_TIMEOUT ?= 25m
TEST_PARALLEL ?= 4
# The self-built control-plane binaries (built once, then cached per user).
KUBE_BINARIES = $(shell hack/install-kube-binaries.sh)
# What the lab's Nodes run: kubelet, kube-scheduler, kube-proxy, containerd
# (built once, then cached per user) and Debian's runc and CNI plugins.
NODE_BINARIES = $(shell hack/install-node-binaries.sh)

# Stamped into the binaries (--version) and the image labels.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)
VERSION_PKG = github.com/liqo-auth-tui/liqo-auth-tui/cmd/internal/version
LDFLAGS = -X $(VERSION_PKG).Version=$(VERSION) -X $(VERSION_PKG).Revision=$(REVISION)
# The image index's architectures (the OS is linux): make image IMAGE_ARCHS=arm64.
IMAGE_ARCHS ?= amd64,arm64

.PHONY: all build release size image man chart test lint bench bench-scale soak demo test-main test-tools lab-image test-binaries kube-binaries node-binaries liqo-peer liqo0x generate fuzz clean tools

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/ ./cmd/...

# Release archives in dist/ (hack/release): liqo-auth-tui for linux and
# darwin on amd64 and arm64 and for windows/amd64, liqo-auth-controller for
# linux and darwin; stripped, stamped with the version (v0.0.0-SNAPSHOT-<commit>
# without a v-tag), reproducible (files at SOURCE_DATE_EPOCH, else the commit's
# time), named as goreleaser names them, with <project>_<version>_checksums.txt
# and the krew manifest liqo-auth.yaml, whose URLs start with RELEASE_URL
# (default: the version's GitHub release).
RELEASE_URL ?=
release:
	cd hack/release && GOOS= GOARCH= $(GO) run . --repo=../.. --version=$(VERSION) --revision=$(REVISION) $(if $(RELEASE_URL),--release-url=$(RELEASE_URL))

# The release binaries' sizes against their limits (fails over them), and
# make build's for comparison.
size: build release
	cd hack/release && GOOS= GOARCH= $(GO) run . size --repo=../..

# The controller's multi-arch image, without a container daemon (hack/image):
# an OCI layout in bin/image/liqo-auth-controller holding an image index
# (linux/amd64 and linux/arm64) tagged $(VERSION) and latest, and each image's
# CycloneDX SBOM attached as an OCI 1.1 referrer; push all of it with
# `oras cp -r --from-oci-layout bin/image/liqo-auth-controller:$(VERSION) REGISTRY/liqo-auth-controller:$(VERSION)`.
# docker load cannot take an index: bin/liqo-auth-controller-image.tar is a
# docker-archive of this host's architecture only (`docker load -i` it, or
# podman load). GOOS/GOARCH are cleared so that the builder itself runs on
# this host.
image:
	cd hack/image && GOOS= GOARCH= $(GO) run . --repo=../.. --arch=$(IMAGE_ARCHS) --version=$(VERSION) --revision=$(REVISION)

# One man page per command (liqo-auth-tui.1, liqo-auth-tui-doctor.1, ...)
# in MAN_DIR: `man -l bin/man/liqo-auth-tui.1`. Generated from the commands
# by hack/man (cobra/doc is not linked into the CLI), dated by the last
# commit so that the same commit makes the same bytes. In bin/ with the
# other build outputs, not committed: pages under docs/ would go stale with
# every flag added, and a release's dist/ belongs to its packager.
MAN_DIR ?= bin/man
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null)
man:
	rm -rf $(MAN_DIR)
	SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) $(GO) run -ldflags "$(LDFLAGS)" ./hack/man --dir $(MAN_DIR)

# The controller's Helm chart (assets/deploy) as dist/liqo-auth-controller-<version>.tgz,
# its version and appVersion (the default image tag) stamped with VERSION,
# SemVer for a tagged release (v1.2.3 -> 1.2.3), else 0.0.0-<commit>.
chart:
	cd hack/helmchart && $(GO) run . package -version $(VERSION) -dest ../../dist

# The controller's image for the lab's Nodes (this host's architecture,
# tagged v0.0.0-lab and latest, the manifests' default): the tests and the
# demo load it into the Nodes without a registry. Built before the tests so
# that those which run it, and the image's own test, find it compiled.
LAB_IMAGE = bin/liqo-auth-controller-lab-image.tar
lab-image:
	@mkdir -p bin && cd hack/image && GOOS= GOARCH= $(GO) run . --repo=../.. --arch=$$(GOOS= GOARCH= $(GO) env GOARCH) --oci-dir= \
	  --tar=$(CURDIR)/$(LAB_IMAGE) --version=v0.0.0-lab --revision=$(REVISION)
# The commands the tests run as binaries (labbin), built once before them:
# test packages starting together would each compile the same packages.
# Static and -trimpath, as the image's binary is built: one compilation serves both.
TEST_BINARIES = bin/test
test-binaries:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(TEST_BINARIES)/ ./cmd/liqo-auth-tui ./cmd/liqo-auth-controller ./cmd/liqo-auth-lab
kube-binaries:
	@hack/install-kube-binaries.sh >/dev/null

# After kube-binaries: both compile k8s.io/kubernetes, once is enough.
node-binaries: kube-binaries
	@hack/install-node-binaries.sh >/dev/null

# REAL Liqo v1 authentication reconcilers (hack/liqo-peer) and crd-replicator
# with Liqo's CRDs, of each release the interoperability tests run against
# (v1.2.0, v1.1.2, v1.0.3; built once, then cached per user).
liqo-peer:
	@hack/install-liqo-peer.sh >/dev/null

# REAL Liqo v0.10.1 auth-service, liqo-controller-manager and crd-replicator
# (hack/liqo0x) with Liqo 0.x's CRDs, for the Liqo 0.x interoperability
# tests (built once, then cached per user).
liqo0x:
	@hack/install-liqo0x.sh >/dev/null

# Unit tests and the real-cluster tests (they start real kube-apiservers).
# The cluster tests sit behind the `cluster` build tag: a plain `go test ./...`
# runs only the tests that need no control-plane binaries.
# Everything runs under the race detector (flows call sinks and run
# controllers on several goroutines).
# Test packages run TEST_PARALLEL at a time (go test's default is one per
# CPU): they mostly wait on real control planes and Liqo's own loops, which
# left a 2-CPU machine's CPUs about half idle with two at a time.
test:
	@$(MAKE) --no-print-directory -j2 test-main test-tools

test-main: kube-binaries node-binaries liqo-peer liqo0x lab-image test-binaries
	LIQO_AUTH_TEST_BINARIES=$(CURDIR)/$(TEST_BINARIES) LIQO_AUTH_KUBE_BINARIES=$(KUBE_BINARIES) LIQO_AUTH_NODE_BINARIES=$(NODE_BINARIES) LIQO_AUTH_LAB_IMAGE=$(CURDIR)/$(LAB_IMAGE) CGO_ENABLED=1 $(GO) test -race -tags cluster -p $(TEST_PARALLEL) -timeout $(TEST_TIMEOUT) -count=1 ./...

# The hack/ modules' tests (the image's two cross builds, the release
# archive, the Helm chart on a lab kube-apiserver) mostly compile: they run
# beside the main tests, niced so that those keep the first claim on the
# CPUs, instead of after them.
# The image's cross builds get the CPUs last (niced) and finish once the
# main tests are done: a measured run on 2 CPUs still built at 27 min, past
# TEST_TIMEOUT, so they have a longer bound.
IMAGE_TEST_TIMEOUT ?= 45m
test-tools: kube-binaries node-binaries lab-image
	cd hack/image && nice -n 10 $(GO) test -timeout $(IMAGE_TEST_TIMEOUT) -count=1 ./...
	cd hack/helmchart && LIQO_AUTH_KUBE_BINARIES=$(KUBE_BINARIES) LIQO_AUTH_NODE_BINARIES=$(NODE_BINARIES) LIQO_AUTH_LAB_IMAGE=$(CURDIR)/$(LAB_IMAGE) CGO_ENABLED=1 nice -n 10 $(GO) test -race -tags cluster -timeout $(TEST_TIMEOUT) -count=1 ./...
	cd hack/release && nice -n 10 $(GO) test -timeout $(TEST_TIMEOUT) -count=1 ./...

# Vet compiles what it checks in the race detector's mode, as `make test`
# does: on a cold machine the dependencies are compiled once, not twice.
# One vet, with the cluster tag: the tag only adds files (none is built
# without it), so it checks every file a plain vet would.
lint:
	CGO_ENABLED=1 GOFLAGS="$$($(GO) env GOFLAGS) -race" $(GO) vet -tags cluster ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# Benchmarks, printing numbers: crypto, wizard frames, Tenant reconcile, the
# whole handshake over 50 fresh ID pairs (p50/p99/max and per step) and the
# 1,000-Tenant scale run against the in-cluster controller (with its floor).
bench: kube-binaries liqo0x
	LIQO_AUTH_KUBE_BINARIES=$(KUBE_BINARIES) $(GO) test -run '^$$' -bench . -benchmem -timeout $(TEST_TIMEOUT) ./crypto/ ./tui/ ./kube/controller/ ./cmd/liqo-auth-tui/cmd/
	LIQO_AUTH_KUBE_BINARIES=$(KUBE_BINARIES) $(GO) test -run '^$$' -bench 'Authenticate|Overview' -benchtime 50x -timeout $(TEST_TIMEOUT) ./flows/ ./flows/peerings/
	LIQO_AUTH_KUBE_BINARIES=$(KUBE_BINARIES) $(GO) test -run '^$$' -bench Scale -benchtime 1x -timeout $(TEST_TIMEOUT) ./cmd/liqo-auth-controller/
	LIQO_AUTH_KUBE_BINARIES=$(KUBE_BINARIES) $(GO) test -tags cluster -run '^$$' -bench Liqo0x -benchtime 5x -timeout $(TEST_TIMEOUT) ./internal/testlab/suites/liqo0xlab/

# The scale benchmark at 1,000 and N Tenants (default 10,000), each on a lab
# of its own, printing per-Tenant costs side by side (about 30 minutes on 2 CPUs).
N ?= 10000
bench-scale: kube-binaries
	LIQO_AUTH_SCALE_TENANTS=1000,$(N) LIQO_AUTH_KUBE_BINARIES=$(KUBE_BINARIES) $(GO) test -run '^$$' -bench Scale -benchtime 1x -timeout 90m ./cmd/liqo-auth-controller/

# The soak (hack/soak): one lab provider, its controller as 2 replicas under
# leader election, CONSUMERS consumers each with its kube-apiserver and
# controller process, renewing 3-minute certificates for DURATION while the
# provider's kube-apiserver restarts, the leader replica is SIGKILLed and a
# consumer's kube-apiserver pauses; its last line sums it up. CONSUMERS
# empty: the soak's default, 100, or as many as the machine's CPUs carry
# (docs/benchmarks.md, Soak).
DURATION ?= 30m
CONSUMERS ?=
soak: kube-binaries
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/ ./cmd/liqo-auth-controller
	LIQO_AUTH_KUBE_BINARIES=$(KUBE_BINARIES) $(GO) run ./hack/soak --controller bin/liqo-auth-controller --duration $(DURATION) $(if $(CONSUMERS),--consumers $(CONSUMERS))

# Each fuzz target for FUZZTIME (go test -fuzz runs one target at a time):
# a duration (default 60s) or a count, as go test's -fuzztime Nx takes it:
# `make fuzz FUZZTIME=1000000x` runs every target for one million executions
# (the depth the README's Fuzzing section records). FUZZFLAGS go to go test,
# e.g. FUZZFLAGS=-parallel=1 for one fuzzing worker on a shared machine.
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$t"; $(GO) test $$pkg -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -timeout 0 $(FUZZFLAGS) || exit 1; \
	  done; \
	done

# Two real control planes and the wizard against both; leaving it stops the lab.
# The binaries carry the version as `make build` stamps it (--version).
# The build prints every 25th package it compiles (a first build takes minutes).
demo: kube-binaries
	@echo "demo: building bin/liqo-auth-tui, bin/liqo-auth-controller and bin/liqo-auth-lab..."
	@set -o pipefail; start=$$SECONDS; \
	  $(GO) build -v -ldflags "$(LDFLAGS)" -o bin/ ./cmd/liqo-auth-tui ./cmd/liqo-auth-controller ./cmd/liqo-auth-lab 2>&1 | \
	  awk '/^[^ :]+$$/ { if (++n % 25 == 0) { print "demo:   compiled " n " packages (" $$0 ")"; fflush() } next } { print; fflush() }' && \
	  echo "demo: built in $$((SECONDS - start))s"
	@if [ "$$(id -u)" = 0 ]; then $(MAKE) --no-print-directory node-binaries lab-image; fi
	@nodes=; if [ "$$(id -u)" = 0 ]; then nodes="--nodes --load-image $(LAB_IMAGE)"; \
	  else echo "demo: not root: the clusters get no Nodes and the controllers run as processes (sudo make demo runs them as Pods)"; fi; \
	  echo "demo: starting the lab: bin/liqo-auth-lab run --dir .lab --signing-duration 4m $$nodes -- hack/demo.sh"; \
	  DEMO_NODES=$${nodes:+1} LIQO_AUTH_KUBE_BINARIES=$(KUBE_BINARIES) LIQO_AUTH_NODE_BINARIES=$$(if [ -n "$$nodes" ]; then hack/install-node-binaries.sh; fi) \
	  bin/liqo-auth-lab run --dir .lab --signing-duration 4m $$nodes -- hack/demo.sh

generate:
	hack/generate.sh

clean:
	rm -rf bin .lab dist
