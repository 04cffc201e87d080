//go:build cluster

package controller

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The advertiser on a real API server: a control-plane Node's address when
// asked (the in-cluster controller), looked up once per TTL; the Tenant's
// annotations over the options; TrustedCA and CA overrides.
func TestAdvertiserNodeAndTenantAnnotations(t *testing.T) {
	lc := testLab.Clusters(t)[0]
	c, err := kube.NewCluster(lc.Config, "")
	require.NoError(t, err)
	ctx := t.Context()
	nodes := c.Kube.CoreV1().Nodes()
	n, err := nodes.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "adv-ctl-cp",
		Labels: map[string]string{"node-role.kubernetes.io/control-plane": ""}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = nodes.Delete(context.Background(), n.Name, metav1.DeleteOptions{}) })
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.9.0.1"}, {Type: corev1.NodeExternalDNS, Address: "cp.example"}}
	_, err = nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{})
	require.NoError(t, err)

	a := newAdvertiser(c, Options{AdvertiseNodeAddress: true})
	p, err := a.authParams(ctx, []byte("cert"), "http://proxy:3128")
	require.NoError(t, err)
	assert.Equal(t, "https://cp.example:6443", p.APIServer)
	assert.Equal(t, lc.Config.CAData, p.CA)
	assert.Equal(t, "http://proxy:3128", p.ProxyURL)
	assert.Equal(t, []byte("cert"), p.SignedCRT)

	// Reconciles build authParams on every pass: the Node list is cached.
	require.NoError(t, nodes.Delete(ctx, n.Name, metav1.DeleteOptions{}))
	p, err = a.authParams(ctx, nil, "")
	require.NoError(t, err)
	assert.Equal(t, "https://cp.example:6443", p.APIServer, "served from the cache")
	// Another advertiser (a new Manager) looks again: no node now.
	other, err := kube.NewCluster(lc.Config, "")
	require.NoError(t, err)
	_, err = newAdvertiser(other, Options{AdvertiseNodeAddress: true}).authParams(ctx, nil, "")
	require.ErrorIs(t, err, kube.ErrNoControlPlaneNode)

	// The Tenant's annotations win over the flags.
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ca := labtest.SelfSigned(t, key, "advertised-ca", time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	flags := newAdvertiser(other, Options{AdvertiseNodeAddress: true, APIServerOverride: "https://flag.example:6443"})
	tenant := &authv1beta1.Tenant{ObjectMeta: metav1.ObjectMeta{Annotations: kube.AdvertiseAnnotations("tenant.example", ca, false)},
		Spec: authv1beta1.TenantSpec{ProxyURL: "http://p:1"}}
	p, err = flags.forTenant(ctx, tenant, []byte("cert"))
	require.NoError(t, err)
	assert.Equal(t, "https://tenant.example", p.APIServer)
	assert.Equal(t, ca, p.CA)
	assert.Equal(t, "http://p:1", p.ProxyURL)

	p, err = flags.forTenant(ctx, &authv1beta1.Tenant{}, nil)
	require.NoError(t, err)
	assert.Equal(t, "https://flag.example:6443", p.APIServer, "no annotation: the flags")

	trusted := &authv1beta1.Tenant{ObjectMeta: metav1.ObjectMeta{Annotations: kube.AdvertiseAnnotations("", nil, true)}}
	p, err = newAdvertiser(c, Options{CAOverride: ca}).forTenant(ctx, trusted, nil)
	require.NoError(t, err)
	assert.Nil(t, p.CA, "the Tenant's trusted-ca omits the CA despite the flag's")
	assert.Equal(t, lc.Config.Host, p.APIServer, "no node lookup, no override: the client's server")

	p, err = newAdvertiser(c, Options{TrustedCA: true}).authParams(ctx, nil, "")
	require.NoError(t, err)
	assert.Nil(t, p.CA)

	bad := &authv1beta1.Tenant{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{kube.AdvertiseCAAnnotation: base64.StdEncoding.EncodeToString([]byte("x"))}}}
	_, err = a.forTenant(ctx, bad, nil)
	assert.ErrorContains(t, err, "annotation liqo-auth-tui.io/ca")
}
