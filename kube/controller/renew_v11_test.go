package controller

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The consumer waits for the provider to renew by itself until 5/6 of the
// validity, then asks, round after round; liqo.io/renew=true asks at once.
func TestDecideAsk(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	key := newConsumer(t, "ask").key
	id := &authv1beta1.Identity{Spec: authv1beta1.IdentitySpec{AuthParams: authv1beta1.AuthParams{
		SignedCRT: labtest.SelfSigned(t, key, "ask", t0, t0.Add(48*time.Hour))}}}

	// At 2/3 (32 h) a renewing provider is at work: not yet.
	ask, after := decideAsk(id, t0.Add(32*time.Hour))
	assert.False(t, ask.asking())
	assert.Equal(t, 8*time.Hour+time.Second, after, "looks again just after 5/6 (40 h)")

	ask, after = decideAsk(id, t0.Add(40*time.Hour+5*time.Minute))
	require.True(t, ask.asking())
	assert.False(t, ask.forced)
	assert.Equal(t, 10*time.Minute, ask.every, "1/48 of the validity (1 h), at most 10 min")
	assert.Equal(t, t0.Add(40*time.Hour), ask.round)
	assert.Equal(t, 5*time.Minute+time.Second, after, "looks again at the next round")
	assert.Equal(t, t0.Add(48*time.Hour), ask.notAfter)

	id.Annotations = map[string]string{kube.RenewAnnotation: "True"}
	ask, _ = decideAsk(id, t0.Add(time.Hour))
	assert.True(t, ask.asking() && ask.forced, "liqo.io/renew asks before 5/6")
	id.Annotations[kube.RenewAnnotation] = "yes"
	ask, _ = decideAsk(id, t0.Add(time.Hour))
	assert.False(t, ask.asking(), "only true or True, as Liqo")

	id.Spec.AuthParams.SignedCRT = []byte("unreadable")
	ask, after = decideAsk(id, t0)
	assert.False(t, ask.asking())
	assert.Zero(t, after)
	id.Annotations[kube.RenewAnnotation] = "true"
	ask, _ = decideAsk(id, t0)
	assert.True(t, ask.asking() && ask.notAfter.IsZero())

	assert.Equal(t, 10*time.Second, askEvery(3*time.Minute))
	assert.Equal(t, 10*time.Minute, askEvery(365*24*time.Hour))
}

// A Renew's CSR and key are checked as a Tenant's: a Liqo v1.1 consumer's
// passes, a Liqo v1.0 consumer's (the provider's ID as CN) and one for
// another key do not, and say why.
func TestAskedRenewalError(t *testing.T) {
	cs := newConsumer(t, "asker")
	tenant := cs.tenant(t, "liqo-tenant-asker", "nonce")
	der, err := authcrypto.PublicKeyDER(cs.key.Public())
	require.NoError(t, err)
	renew := func(csr []byte) *authv1beta1.Renew {
		return &authv1beta1.Renew{ObjectMeta: metav1.ObjectMeta{Name: "controlplane-p", Namespace: "liqo-tenant-asker"},
			Spec: authv1beta1.RenewSpec{ConsumerClusterID: cs.id, IdentityType: authv1beta1.ControlPlaneIdentityType, CSR: csr, PublicKey: der}}
	}
	assert.NoError(t, askedRenewalError(renew(tenant.Spec.CSR), tenant, cs.id), "Liqo v1.1: the Tenant's CSR")

	v10, err := authcrypto.NewCSR(cs.key, "the-provider")
	require.NoError(t, err)
	assert.ErrorContains(t, askedRenewalError(renew(v10), tenant, cs.id), "Liqo v1.0 consumer names its provider")

	other := newConsumer(t, "asker")
	otherCSR, err := authcrypto.NewCSR(other.key, cs.id)
	require.NoError(t, err)
	r := renew(otherCSR)
	r.Spec.PublicKey = nil
	assert.ErrorContains(t, askedRenewalError(r, tenant, cs.id), "invalid public key")
	otherDER, err := authcrypto.PublicKeyDER(other.key.Public())
	require.NoError(t, err)
	r.Spec.PublicKey = otherDER
	assert.ErrorContains(t, askedRenewalError(r, tenant, cs.id), "key pair changed since the handshake")

	sliceCSR, err := authcrypto.NewResourceSliceCSR(cs.key, "s1", cs.id)
	require.NoError(t, err)
	r = renew(sliceCSR)
	r.Spec.IdentityType, r.Spec.ResourceSliceRef = authv1beta1.ResourceSliceIdentityType, &corev1.LocalObjectReference{Name: "s1"}
	assert.NoError(t, askedRenewalError(r, tenant, cs.id))
	r.Spec.ResourceSliceRef.Name = "s2"
	assert.ErrorContains(t, askedRenewalError(r, tenant, cs.id), "invalid common name")

	var w renewCSRWarnings
	assert.True(t, w.first("ns/r", "m"))
	assert.False(t, w.first("ns/r", "m"), "once per Renew name and message")
	assert.True(t, w.first("ns/r", "n"))
}
