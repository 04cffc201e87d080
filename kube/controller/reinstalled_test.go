//go:build cluster

package controller

import (
	"bytes"
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

// A consumer re-installed with new keys under the same cluster ID: while
// the certificate in the Tenant's status is not due, the cache's CSR
// mismatch is refused with its fix (AuthParamsFailed), as Liqo does; once
// it is due, the cache is skipped and the new CSR signed (Liqo's
// EnsureCertificate with IsRenew), in the status and in the cache.
func TestReinstalledConsumerIsSignedAtRenewal(t *testing.T) {
	p := providerCluster(t)
	startManager(t, p, Options{Provider: true})
	ctx := labtest.Context(t)
	first := newConsumer(t, "reinstalled")
	tn := first.handshake(t, p)
	ns := tn.Namespace

	again := newConsumer(t, "reinstalled") // same ID, new key
	nonce := waitSecret(t, p, ns, kube.NonceSecretName, func(*corev1.Secret) bool { return true }).Data[kube.NonceField]
	_, _, err := p.ApplyTenant(ctx, again.tenant(t, ns, string(nonce)))
	require.NoError(t, err)
	ev := waitEvent(t, p, authv1beta1.TenantKind, ns, again.id, ReasonAuthParamsFailed)
	assert.Contains(t, ev.Message, "the stored and the provided CSR do not match")
	assert.Contains(t, ev.Message, "delete secret "+ns+"/"+kube.RemoteCertSecretName)

	// The status certificate reaches its 2/3 point.
	due := labtest.SelfSigned(t, first.key, first.id, time.Now().Add(-3*time.Hour), time.Now().Add(time.Hour))
	labtest.SetTenantCertificate(t, ctx, p, ns, again.id, due)

	got := waitTenant(t, p, ns, again.id, func(got *authv1beta1.Tenant) bool {
		if !statusFilled(got) || bytes.Equal(got.Status.AuthParams.SignedCRT, due) {
			return false
		}
		cert, err := authcrypto.ParseCertificatePEM(got.Status.AuthParams.SignedCRT)
		return err == nil && authcrypto.SamePublicKey(cert.PublicKey, again.key.Public())
	})
	cached, err := p.Kube.CoreV1().Secrets(ns).Get(ctx, kube.RemoteCertSecretName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, got.Spec.CSR, cached.Data[kube.RemoteCertCSRField], "the cache holds the new CSR")
	assert.Equal(t, got.Status.AuthParams.SignedCRT, cached.Data[kube.RemoteCertCertificateField])
}
