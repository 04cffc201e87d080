//go:build cluster

package controller

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The Renews a Liqo v1.0–v1.1 consumer's replicator copies here, each with
// a CSR and the key as PKIX DER, are answered with the Tenant's authParams,
// as a v1.2 one. A Liqo v1.1 consumer's CSR (the Tenant's) passes; a Liqo
// v1.0 consumer's names the provider as CN and gets one InvalidCSR Warning
// saying so, not one per Renew its loop re-creates.
func TestLiqoV11ConsumersRenewsAreAnswered(t *testing.T) {
	p := providerCluster(t)
	startManager(t, p, Options{Provider: true})
	cs := newConsumer(t, "old-renewer")
	tenant := cs.handshake(t, p)
	ctx := labtest.Context(t)
	ns := tenant.Namespace
	renews := p.Liqo.Renews(ns)
	der, err := authcrypto.PublicKeyDER(cs.key.Public())
	require.NoError(t, err)
	oldRenew := func(name string, csr []byte) *authv1beta1.Renew {
		return &authv1beta1.Renew{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: kube.ReplicaLabels(replicated(providerID, nil), cs.id)},
			Spec: authv1beta1.RenewSpec{ConsumerClusterID: cs.id, IdentityType: authv1beta1.ControlPlaneIdentityType, CSR: csr, PublicKey: der}}
	}
	answered := func(name string) *authv1beta1.Renew {
		got, err := kube.WaitFor(ctx, kube.ListWatch(renews.List, renews.Watch, kube.ByName(name)), "Renew "+name+" answered",
			func(r *authv1beta1.Renew) (bool, error) { return r.Status.AuthParams != nil, nil })
		require.NoError(t, err)
		assert.Equal(t, tenant.Status.AuthParams, got.Status.AuthParams, "%s: the Tenant's authParams", name)
		return got
	}
	create := func(r *authv1beta1.Renew) {
		_, err := renews.Create(ctx, r, metav1.CreateOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { _ = renews.Delete(context.Background(), r.Name, metav1.DeleteOptions{}) })
	}

	create(oldRenew("controlplane-v11", tenant.Spec.CSR))
	answered("controlplane-v11")

	v10CSR, err := authcrypto.NewCSR(cs.key, providerID)
	require.NoError(t, err)
	create(oldRenew("controlplane-v10", v10CSR))
	answered("controlplane-v10")
	ev := waitEvent(t, p, authv1beta1.RenewKind, ns, "controlplane-v10", ReasonInvalidCSR)
	assert.Equal(t, corev1.EventTypeWarning, ev.Type)
	assert.Contains(t, ev.Message, "Liqo v1.0 consumer names its provider")
	assert.NotContains(t, eventReasons(t, p, authv1beta1.RenewKind, ns, "controlplane-v11"), ReasonInvalidCSR)

	// The v1.0 consumer's loop: deleted, made again, answered again.
	require.NoError(t, renews.Delete(ctx, "controlplane-v10", metav1.DeleteOptions{}))
	waitGone(t, kube.ListWatch(renews.List, renews.Watch, kube.ByName("controlplane-v10")), &authv1beta1.Renew{}, "controlplane-v10")
	create(oldRenew("controlplane-v10", v10CSR))
	answered("controlplane-v10")
	var warnings int
	for _, r := range eventReasons(t, p, authv1beta1.RenewKind, ns, "controlplane-v10") {
		if r == ReasonInvalidCSR {
			warnings++
		}
	}
	assert.Equal(t, 1, warnings, "one Warning for the Renew the loop keeps making")
}

// liqo.io/renew=true on the Identity makes this consumer ask at once, as a
// Liqo v1.0–v1.1 consumer does: the Tenant's CSR and the key as PKIX DER in
// its Renew, copied to the provider, and a Normal Event saying so; without
// the annotation the Renew is a v1.2 one again.
func TestRenewAnnotationAsks(t *testing.T) {
	p, c := providerCluster(t), consumerCluster(t)
	startManager(t, p, Options{Provider: true})
	startManager(t, c, Options{Consumer: true})
	provNS, consNS := authenticate(t, p, c)
	ctx := labtest.Context(t)
	name := kube.ControlPlaneIdentityName(providerID)
	identities := c.Liqo.Identities(consNS)
	setAnnotation := func(value string) {
		require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
			id, err := identities.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			id.Annotations = withValue(id.Annotations, kube.RenewAnnotation, value)
			_, err = identities.Update(ctx, id, metav1.UpdateOptions{})
			return err
		}))
	}
	setAnnotation("true")
	tenant, err := p.Liqo.Tenants(provNS).Get(ctx, consumerID, metav1.GetOptions{})
	require.NoError(t, err)
	pub, _, err := c.PublicKey(ctx)
	require.NoError(t, err)
	der, err := authcrypto.PublicKeyDER(pub)
	require.NoError(t, err)
	remote := p.Liqo.Renews(provNS)
	asked, err := kube.WaitFor(ctx, kube.ListWatch(remote.List, remote.Watch, kube.ByName(name)), "Renew with a CSR on the provider",
		func(r *authv1beta1.Renew) (bool, error) { return len(r.Spec.CSR) > 0, nil })
	require.NoError(t, err)
	assert.Equal(t, tenant.Spec.CSR, asked.Spec.CSR)
	assert.Equal(t, der, asked.Spec.PublicKey)
	assert.NotEmpty(t, asked.Annotations[kube.RenewAskedAnnotation])
	ev := waitEvent(t, c, authv1beta1.IdentityKind, consNS, name, ReasonRenewalAsked)
	assert.Contains(t, ev.Message, kube.RenewAnnotation+"=true")

	setAnnotation("")
	local := c.Liqo.Renews(consNS)
	back, err := kube.WaitFor(ctx, kube.ListWatch(local.List, local.Watch, kube.ByName(name)), "Renew without a CSR",
		func(r *authv1beta1.Renew) (bool, error) { return len(r.Spec.CSR) == 0, nil })
	require.NoError(t, err)
	assert.Equal(t, authv1beta1.RenewSpec{ConsumerClusterID: consumerID, IdentityType: authv1beta1.ControlPlaneIdentityType}, back.Spec)
	assert.NotContains(t, back.Annotations, kube.RenewAskedAnnotation)
}
