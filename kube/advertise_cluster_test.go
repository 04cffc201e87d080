//go:build cluster

package kube_test

import (
	"errors"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The Node case of §6.4 on a real API server: the control-plane label, then
// master, then controlplane; address types by preference across nodes; no
// node → Liqo's error with what to do. Subtests run in order: Nodes are
// cluster-wide.
func TestControlPlaneAddressFromNodes(t *testing.T) {
	c, err := kube.NewCluster(clusters(t)[0].Config, "advertise-nodes")
	require.NoError(t, err)
	ctx := t.Context()
	nodeAddress := kube.AdvertiseOptions{NodeAddress: true}
	parent := t // the Nodes stay until the end: each subtest adds a better one

	t.Run("no node", func(t *testing.T) {
		labtest.CreateNode(t, parent, c.Kube, "adv-worker", map[string]string{"node-role.kubernetes.io/worker": ""},
			corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "198.51.100.9"})
		_, err := c.Advertise(ctx, nodeAddress)
		require.ErrorIs(t, err, kube.ErrNoControlPlaneNode)
		assert.ErrorContains(t, err, "no ApiServer.Address variable provided and no master node found, one of the two values must be present")
		assert.ErrorContains(t, err, "set --api-server-address-override")
	})
	t.Run("controlplane label, last fallback", func(t *testing.T) {
		labtest.CreateNode(t, parent, c.Kube, "adv-cp3", map[string]string{"node-role.kubernetes.io/controlplane": "true"},
			corev1.NodeAddress{Type: corev1.NodeHostName, Address: "cp3.local"})
		a, err := c.Advertise(ctx, nodeAddress)
		require.NoError(t, err)
		assert.Equal(t, "https://cp3.local:6443", a.APIServer)
		assert.Equal(t, kube.AdvertiseFromNode, a.APIServerSource)
	})
	t.Run("master label beats controlplane", func(t *testing.T) {
		labtest.CreateNode(t, parent, c.Kube, "adv-master", map[string]string{"node-role.kubernetes.io/master": ""},
			corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.1.0.2"})
		a, err := c.Advertise(ctx, nodeAddress)
		require.NoError(t, err)
		assert.Equal(t, "https://10.1.0.2:6443", a.APIServer)
	})
	t.Run("control-plane label first, type preference across nodes", func(t *testing.T) {
		labtest.CreateNode(t, parent, c.Kube, "adv-cp-a", map[string]string{"node-role.kubernetes.io/control-plane": ""},
			corev1.NodeAddress{Type: corev1.NodeHostName, Address: "cp-a.local"},
			corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.2.0.1"},
			corev1.NodeAddress{Type: corev1.NodeInternalDNS, Address: "cp-a.internal"})
		labtest.CreateNode(t, parent, c.Kube, "adv-cp-b", map[string]string{"node-role.kubernetes.io/control-plane": ""},
			corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.2.0.2"},
			corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "203.0.113.20"})
		a, err := c.Advertise(ctx, nodeAddress)
		require.NoError(t, err)
		assert.Equal(t, "https://203.0.113.20:6443", a.APIServer, "ExternalIP of the second node beats InternalDNS of the first")
	})
	t.Run("override wins over nodes", func(t *testing.T) {
		a, err := c.Advertise(ctx, kube.AdvertiseOptions{NodeAddress: true, APIServerOverride: "api.example:443"})
		require.NoError(t, err)
		assert.Equal(t, "https://api.example:443", a.APIServer)
		assert.Equal(t, kube.AdvertiseFromOverride, a.APIServerSource)
	})
}

// Without node lookup the client's server is advertised; the CA is the
// override, none with TrustedCA, else the client's.
func TestAdvertiseServerAndCA(t *testing.T) {
	lc := clusters(t)[1]
	c, err := kube.NewCluster(lc.Config, "advertise-ca")
	require.NoError(t, err)
	ctx := t.Context()

	a, err := c.Advertise(ctx, kube.AdvertiseOptions{})
	require.NoError(t, err)
	assert.Equal(t, c.Config.Host, a.APIServer)
	assert.Equal(t, kube.AdvertiseFromKubeconfig, a.APIServerSource)
	assert.Equal(t, lc.Config.CAData, a.CA)

	for in, want := range map[string]string{"https://api.example:6443": "https://api.example:6443", "api.example:6443": "https://api.example:6443"} {
		a, err = c.Advertise(ctx, kube.AdvertiseOptions{APIServerOverride: in})
		require.NoError(t, err)
		assert.Equal(t, want, a.APIServer, in)
	}

	a, err = c.Advertise(ctx, kube.AdvertiseOptions{TrustedCA: true})
	require.NoError(t, err)
	assert.Nil(t, a.CA)
	assert.Equal(t, kube.AdvertiseFromTrusted, a.CASource)

	ca := advertiseTestCA(t)
	a, err = c.Advertise(ctx, kube.AdvertiseOptions{TrustedCA: true, CAOverride: ca})
	require.NoError(t, err)
	assert.Equal(t, ca, a.CA, "a CA override wins over trusted-ca, as in Liqo")

	_, err = c.Advertise(ctx, kube.AdvertiseOptions{APIServerOverride: "http://api.example"})
	assert.ErrorContains(t, err, "only https")
}

// The consumer's check of an advertised address: the lab's server with its
// CA answers (even unauthenticated); a closed port, or a CA that did not
// sign the server's certificate, fail with their class.
func TestCheckAdvertisedAPIServer(t *testing.T) {
	lc := clusters(t)[0]
	ctx := t.Context()
	require.NoError(t, kube.CheckAdvertisedAPIServer(ctx, lc.Config.Host, lc.Config.CAData, ""))

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := closed.Addr().String()
	closed.Close()
	var reach *kube.ReachError
	err = kube.CheckAdvertisedAPIServer(ctx, "https://"+addr, nil, "")
	require.True(t, errors.As(err, &reach), "%v", err)
	assert.Equal(t, kube.FailureRefused, reach.Class)

	err = kube.CheckAdvertisedAPIServer(ctx, lc.Config.Host, advertiseTestCA(t), "")
	require.True(t, errors.As(err, &reach), "%v", err)
	assert.Equal(t, kube.FailureTLS, reach.Class)

	err = kube.CheckAdvertisedAPIServer(ctx, lc.Config.Host, lc.Config.CAData, "http://"+addr)
	require.True(t, errors.As(err, &reach), "%v", err)
	assert.Equal(t, kube.FailureProxy, reach.Class)
	assert.Equal(t, "http://"+addr, reach.Proxy)
}
