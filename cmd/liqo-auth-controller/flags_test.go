package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// The defaults the README and the Deployment rely on.
func TestFlagDefaults(t *testing.T) {
	o, done, err := parseFlags(nil, nil)
	require.NoError(t, err)
	assert.False(t, done)
	assert.Equal(t, "liqo", o.liqoNamespace)
	assert.Equal(t, 64, o.workers)
	assert.Equal(t, -1.0, o.qps)
	assert.Equal(t, 100, o.burst)
	assert.Equal(t, ":8081", o.healthAddr)
	assert.Equal(t, ":8080", o.metricsAddr)
	assert.True(t, o.leaderElect && o.provider && o.consumer)
	assert.Equal(t, "liqo-auth-controller", o.leaseName)
	assert.Equal(t, controller.LeaseTiming{LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second}, o.leaseTiming)
	assert.Equal(t, "text", o.logging.Format)
}

// Longer leader election timing is accepted; what client-go's elector
// would refuse is told in the flags' words before anything starts.
func TestLeaderElectTimingFlags(t *testing.T) {
	o, _, err := parseFlags([]string{"--leader-elect-lease-duration=60s", "--leader-elect-renew-deadline=40s", "--leader-elect-retry-period=10s"}, nil)
	require.NoError(t, err)
	assert.Equal(t, controller.LeaseTiming{LeaseDuration: time.Minute, RenewDeadline: 40 * time.Second, RetryPeriod: 10 * time.Second}, o.leaseTiming)
	for args, want := range map[string]string{
		"--leader-elect-lease-duration=10s":                                   "--leader-elect-lease-duration (10s) must be longer than --leader-elect-renew-deadline (10s)",
		"--leader-elect-renew-deadline=2s":                                    "--leader-elect-renew-deadline (2s) must be longer than 1.2 times --leader-elect-retry-period (2s)",
		"--leader-elect-retry-period=0s":                                      "must be positive",
		"--leader-elect-lease-duration=20s --leader-elect-renew-deadline=-1s": "must be positive",
	} {
		_, _, err := parseFlags(strings.Fields(args), nil)
		assert.ErrorContains(t, err, want, args)
	}
}

func TestFlagsParse(t *testing.T) {
	o, _, err := parseFlags([]string{"--liqo-namespace=other", "--workers", "8", "--kube-api-qps=50",
		"--provider=false", "-v", "4", "--logging-format=json", "--api-server-address-override", "https://x:6443"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "other", o.liqoNamespace)
	assert.Equal(t, 8, o.workers)
	assert.Equal(t, 50.0, o.qps)
	assert.False(t, o.provider)
	assert.Equal(t, "json", o.logging.Format)
	assert.EqualValues(t, 4, o.logging.Verbosity)
	assert.Equal(t, "https://x:6443", o.apiServerOverride)
}

func TestFlagMistakes(t *testing.T) {
	_, _, err := parseFlags([]string{"-workers=8"}, nil)
	assert.ErrorContains(t, err, "long flags take two dashes: --workers=8")
	_, _, err = parseFlags([]string{"--workers=many"}, nil)
	assert.ErrorContains(t, err, "--workers")
	assert.NotContains(t, err.Error(), "two dashes")
	_, _, err = parseFlags([]string{"run"}, nil)
	assert.ErrorContains(t, err, `unexpected argument "run"`)
}

func TestHelpAndVersionAreDone(t *testing.T) {
	for _, arg := range []string{"--help", "-h", "--version"} {
		var out bytes.Buffer
		_, done, err := parseFlags([]string{arg}, &out)
		require.NoError(t, err, arg)
		assert.True(t, done, arg)
		assert.Contains(t, out.String(), "liqo-auth-controller", arg)
	}
}

// --default-node-resources: Liqo's chart default, replaced by the first
// use, added to by the next ones, emptied by "".
func TestDefaultNodeResourcesFlag(t *testing.T) {
	o, _, err := parseFlags(nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "cpu=4,ephemeral-storage=20Gi,memory=8Gi,pods=110", o.defaultNodeResources.String())
	o, _, err = parseFlags([]string{"--default-node-resources=cpu=2,memory=1Gi", "--default-node-resources", "nvidia.com/gpu=1"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "cpu=2,memory=1Gi,nvidia.com/gpu=1", o.defaultNodeResources.String())
	copts, err := controllerOptions(o)
	require.NoError(t, err)
	assert.Len(t, copts.DefaultNodeResources, 3)
	o, _, err = parseFlags([]string{"--default-node-resources="}, nil)
	require.NoError(t, err)
	assert.NotNil(t, o.defaultNodeResources.list)
	assert.Empty(t, o.defaultNodeResources.list)
	for _, bad := range []string{"cpu", "cpu=lots", "=4", "cpu=4=4"} {
		_, _, err = parseFlags([]string{"--default-node-resources=" + bad}, nil)
		assert.ErrorContains(t, err, "default-node-resources", bad)
	}
}

// What a granted slice says the provider offers: Liqo's flags and syntax.
func TestSliceOfferFlags(t *testing.T) {
	o, _, err := parseFlags([]string{"--enable-storage", "--real-storage-class-name=fast",
		"--ingress-classes=nginx;default,traefik", "--load-balancer-classes", "metallb;default", "--load-balancer-classes=internal",
		"--cluster-labels=topology.kubernetes.io/zone=eu-1,example.com/opts=a=b", "--cluster-labels=tier=gold"}, nil)
	require.NoError(t, err)
	copts, err := controllerOptions(o)
	require.NoError(t, err)
	assert.Equal(t, controller.SliceOffer{EnableStorage: true, RealStorageClassName: "fast",
		IngressClasses:      []controller.ClassName{{Name: "nginx", Default: true}, {Name: "traefik"}},
		LoadBalancerClasses: []controller.ClassName{{Name: "metallb", Default: true}, {Name: "internal"}},
		ClusterLabels:       map[string]string{"topology.kubernetes.io/zone": "eu-1", "example.com/opts": "a=b", "tier": "gold"}}, copts.SliceOffer)

	o, _, err = parseFlags(nil, nil)
	require.NoError(t, err)
	assert.Equal(t, controller.SliceOffer{}, o.sliceOffer, "Liqo's defaults: nothing offered")
	copts, err = controllerOptions(o)
	require.NoError(t, err)
	assert.False(t, copts.DefaultSliceClassDisabled, "the default class is granted by default, as in Liqo")
	o, _, err = parseFlags([]string{"--default-resource-slice-class-enabled=false"}, nil)
	require.NoError(t, err)
	copts, err = controllerOptions(o)
	require.NoError(t, err)
	assert.True(t, copts.DefaultSliceClassDisabled)
	for flag, bad := range map[string]string{"ingress-classes": "nginx;yes", "load-balancer-classes": ";default", "cluster-labels": "zone"} {
		_, _, err = parseFlags([]string{"--" + flag + "=" + bad}, nil)
		assert.ErrorContains(t, err, flag, bad)
	}
}
