package controller

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// On fakes, one pass over a valid Tenant does the provider's whole part:
// the CSR is created, approved and deleted once signed, the certificate
// cached, the bindings made and the status written, in that order.
func TestFakeTenantReconciled(t *testing.T) {
	p := newProvider(t, "fake-ok")
	p.add(p.tenant)

	after, err := p.reconciler().sync(t.Context(), p.key())
	require.NoError(t, err)
	assert.Greater(t, after.Hours(), 15.0, "renewal check at 2/3 of the day")

	assert.Equal(t, []string{
		"create certificatesigningrequests liqo-identity-*",
		"update certificatesigningrequests/approval liqo-identity-00001",
		"delete certificatesigningrequests liqo-identity-00001",
		"create secrets " + p.ns + "/" + kube.RemoteCertSecretName,
		"create rolebindings " + p.ns + "/" + kube.RoleBindingName(kube.RemoteControlPlaneClusterRole),
		"create clusterrolebindings " + kube.ClusterRoleBindingName(kube.RemoteClusterWideClusterRole, "fake-ok"),
	}, writes(p.kube.Actions()))
	assert.Equal(t, []string{"update tenants/status " + p.key()}, writes(p.liqo.Actions()))
	got := p.stored()
	assert.Equal(t, p.ns, got.Status.TenantNamespace)
	require.NotNil(t, got.Status.AuthParams)
	assert.Equal(t, "https://provider.example:6443", got.Status.AuthParams.APIServer)
	assert.Equal(t, []byte("provider CA"), got.Status.AuthParams.CA)
	assert.Contains(t, string(got.Status.AuthParams.SignedCRT), "BEGIN CERTIFICATE")
	assert.Equal(t, []string{"Normal " + ReasonReconciled}, p.reasons())
}

// A status write that fails: a conflict (our cache was behind) is retried
// quietly; any other error says so in a Warning; a Tenant deleted
// meanwhile is no news. Each returns the error, so that the key is
// retried, and none claims the Tenant was reconciled.
func TestFakeTenantStatusWriteFails(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		is     func(error) bool
		events []string
	}{
		{"conflict", conflictErr, apierrors.IsConflict, nil},
		{"not found", apierrors.NewNotFound(authv1beta1.Resource(authv1beta1.TenantResource), "fake-status"), apierrors.IsNotFound, nil},
		{"server error", internalErr, apierrors.IsInternalError, []string{"Warning " + ReasonUpdateFailed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t, "fake-status")
			p.add(p.tenant)
			p.liqo.PrependReactor("update", "tenants", failing(-1, tc.err, subresource("status")))

			_, err := p.reconciler().sync(t.Context(), p.key())
			require.Error(t, err)
			assert.True(t, tc.is(err), "%v", err)
			events := p.recorded()
			assert.Equal(t, tc.events, reasonsOf(events))
			if tc.events != nil {
				assert.Contains(t, events[0], "Unable to update the Tenant status")
			}
			assert.Equal(t, []string{"update tenants/status " + p.key()}, writes(p.liqo.Actions()), "tried once")
			assert.Nil(t, p.stored().Status.AuthParams)
		})
	}
}

// A conflict on the status goes back to the queue, rate-limited, and the
// next pass converges without asking the CA again: the certificate stored
// by the first pass is reused.
func TestFakeTenantStatusConflictIsRequeued(t *testing.T) {
	p := newProvider(t, "fake-requeue")
	p.add(p.tenant)
	p.liqo.PrependReactor("update", "tenants", failing(1, conflictErr, subresource("status")))
	l := newLoop("tenant", p.reconciler().sync, nil)
	defer l.queue.ShutDown()
	l.queue.Add(p.key())

	err := runLoop(t, l, p.key())
	require.True(t, apierrors.IsConflict(err), "%v", err)
	assert.Equal(t, 1, l.queue.NumRequeues(p.key()), "retried with back-off")
	assert.Empty(t, p.recorded(), "a conflict is routine")

	require.NoError(t, runLoop(t, l, p.key())) // waits for the back-off
	assert.Equal(t, 0, l.queue.NumRequeues(p.key()), "forgotten once it succeeded")
	assert.Equal(t, 1, p.csrCreates(), "the cached certificate is reused")
	require.NotNil(t, p.stored().Status.AuthParams)
	assert.Equal(t, []string{"Normal " + ReasonReconciled}, p.reasons())
}

// A CSR that the signer denies or fails is an AuthParamsFailed Warning and
// an error (retried). The status still records the tenant namespace, and
// the cluster-wide binding is made, but no certificate is cached and the
// consumer gets no namespace binding.
func TestFakeTenantCSRDeniedOrFailed(t *testing.T) {
	for _, cond := range []certv1.RequestConditionType{certv1.CertificateDenied, certv1.CertificateFailed} {
		t.Run(string(cond), func(t *testing.T) {
			p := newProvider(t, "fake-csr")
			p.add(p.tenant)
			p.sign = func(csr *certv1.CertificateSigningRequest) {
				csr.Status.Conditions = append(csr.Status.Conditions, certv1.CertificateSigningRequestCondition{
					Type: cond, Status: corev1.ConditionTrue, Reason: "SignerSaysNo", Message: "not today"})
			}

			_, err := p.reconciler().sync(t.Context(), p.key())
			require.Error(t, err)
			assert.Contains(t, err.Error(), string(cond)+": not today")
			events := p.recorded()
			require.NotEmpty(t, events)
			assert.True(t, strings.HasPrefix(events[0], "Warning "+ReasonAuthParamsFailed+" "), events[0])
			assert.Contains(t, events[0], "CertificateSigningRequest liqo-identity-00001 "+string(cond))

			got := p.stored()
			assert.Equal(t, p.ns, got.Status.TenantNamespace)
			assert.Nil(t, got.Status.AuthParams)
			w := writes(p.kube.Actions())
			assert.NotContains(t, w, "create secrets "+p.ns+"/"+kube.RemoteCertSecretName)
			assert.NotContains(t, w, "create rolebindings "+p.ns+"/"+kube.RoleBindingName(kube.RemoteControlPlaneClusterRole))
			assert.Contains(t, w, "create clusterrolebindings "+kube.ClusterRoleBindingName(kube.RemoteClusterWideClusterRole, "fake-csr"))
		})
	}
}

// When the approval is refused, the CSR just created is deleted, not left
// behind pending.
func TestFakeTenantApprovalRefusedDeletesCSR(t *testing.T) {
	p := newProvider(t, "fake-approval")
	p.add(p.tenant)
	forbidden := apierrors.NewForbidden(certv1.Resource("certificatesigningrequests/approval"), "liqo-identity-00001",
		errors.New("user cannot approve with signer kubernetes.io/kube-apiserver-client"))
	p.kube.PrependReactor("update", "certificatesigningrequests", failing(-1, forbidden, subresource("approval")))

	_, err := p.reconciler().sync(t.Context(), p.key())
	require.Error(t, err)
	assert.True(t, apierrors.IsForbidden(err), "%v", err)
	assert.Contains(t, err.Error(), "approving CertificateSigningRequest liqo-identity-00001")
	w := writes(p.kube.Actions())
	assert.Contains(t, w, "delete certificatesigningrequests liqo-identity-00001")
	_, err = p.kube.CertificatesV1().CertificateSigningRequests().Get(t.Context(), "liqo-identity-00001", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
	assert.Equal(t, "Warning "+ReasonAuthParamsFailed, p.reasons()[0])
}

// The certificate cache Secret appears between the lookup and the store
// (another replica, a restarted run): one for the same CSR is updated with
// the new certificate; one for another CSR is left alone and the Tenant
// fails with what to do.
func TestFakeTenantCertificateSecretCreatedMeanwhile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sameCSR bool
	}{{"same CSR", true}, {"other CSR", false}} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t, "fake-cache")
			p.add(p.tenant)
			csr := p.tenant.Spec.CSR
			if !tc.sameCSR {
				csr = newConsumer(t, "fake-cache").tenant(t, p.ns, p.consumer.nonce).Spec.CSR
			}
			theirs := &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: kube.RemoteCertSecretName, Namespace: p.ns,
					Labels: map[string]string{kube.RemoteClusterIDLabel: "fake-cache"}},
				Data: map[string][]byte{kube.RemoteCertCSRField: csr, kube.RemoteCertCertificateField: []byte("their certificate")},
			}
			p.kube.PrependReactor("create", "secrets", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if !named(kube.RemoteCertSecretName)(a) {
					return false, nil, nil
				}
				require.NoError(t, p.kube.Tracker().Add(theirs))
				return true, nil, apierrors.NewAlreadyExists(corev1.Resource("secrets"), kube.RemoteCertSecretName)
			})

			_, err := p.reconciler().sync(t.Context(), p.key())
			stored, getErr := p.kube.CoreV1().Secrets(p.ns).Get(t.Context(), kube.RemoteCertSecretName, metav1.GetOptions{})
			require.NoError(t, getErr)
			if tc.sameCSR {
				require.NoError(t, err)
				assert.Equal(t, p.stored().Status.AuthParams.SignedCRT, stored.Data[kube.RemoteCertCertificateField])
				assert.Contains(t, writes(p.kube.Actions()), "update secrets "+p.ns+"/"+kube.RemoteCertSecretName)
				return
			}
			require.ErrorIs(t, err, kube.ErrStoredCSRMismatch)
			assert.Equal(t, []byte("their certificate"), stored.Data[kube.RemoteCertCertificateField], "left alone")
			events := p.recorded()
			require.NotEmpty(t, events)
			assert.Contains(t, events[0], "Warning "+ReasonAuthParamsFailed)
			assert.Contains(t, events[0], "delete secret "+p.ns+"/"+kube.RemoteCertSecretName)
			assert.Nil(t, p.stored().Status.AuthParams)
		})
	}
}

// A failed namespace binding is a Warning and an error (retried), but the
// certificate is in the status already: the step before it is not undone.
func TestFakeTenantBindingFailureStillWritesStatus(t *testing.T) {
	p := newProvider(t, "fake-rbac")
	p.add(p.tenant)
	p.kube.PrependReactor("create", "rolebindings", failing(-1, apierrors.NewForbidden(
		corev1.Resource("rolebindings"), kube.RoleBindingName(kube.RemoteControlPlaneClusterRole), errors.New("escalation")), nil))

	_, err := p.reconciler().sync(t.Context(), p.key())
	require.Error(t, err)
	assert.True(t, apierrors.IsForbidden(err), "%v", err)
	assert.Equal(t, "Warning "+ReasonClusterRolesBindingFailed, p.reasons()[0])
	got := p.stored()
	require.NotNil(t, got.Status.AuthParams)
	assert.NotEmpty(t, got.Status.AuthParams.SignedCRT)
	assert.Contains(t, writes(p.kube.Actions()), "create clusterrolebindings "+kube.ClusterRoleBindingName(kube.RemoteClusterWideClusterRole, "fake-rbac"))
}

// Adding the finalizer on a stale Tenant conflicts: nothing else is done
// in that pass (no CSR, no status, no Event) and the error retries it.
func TestFakeTenantFinalizerConflict(t *testing.T) {
	p := newProvider(t, "fake-finalizer")
	p.tenant.Finalizers = nil
	p.add(p.tenant)
	p.liqo.PrependReactor("update", "tenants", failing(-1, conflictErr, subresource("")))

	_, err := p.reconciler().sync(t.Context(), p.key())
	require.True(t, apierrors.IsConflict(err), "%v", err)
	assert.Equal(t, []string{"update tenants " + p.key()}, writes(p.liqo.Actions()))
	assert.Empty(t, writes(p.kube.Actions()))
	assert.Empty(t, p.recorded())
	assert.Empty(t, p.stored().Finalizers)
}

// reasonsOf returns the "Type Reason" of recorded Events.
func reasonsOf(events []string) []string {
	var out []string
	for _, e := range events {
		f := strings.Fields(e)
		out = append(out, f[0]+" "+f[1])
	}
	return out
}
