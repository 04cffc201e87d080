package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corelisters "k8s.io/client-go/listers/core/v1"
	k8stesting "k8s.io/client-go/testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The nonce creator works from a cache that can be behind: when someone
// filled the nonce meanwhile, its write conflicts and is retried, and the
// retry, once the cache caught up, leaves that nonce alone. A Tenant
// signed over the first nonce is never invalidated by a second one.
func TestFakeNonceCreatorConflictNeverWritesASecondNonce(t *testing.T) {
	f := newFixture(t)
	const consumerID = "fake-nonce"
	ns := kube.TenantNamespaceName(consumerID)
	f.add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: kube.TenantNamespaceLabels(consumerID)}})
	empty := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: kube.NonceSecretName, Namespace: ns, ResourceVersion: "1",
		Labels: map[string]string{kube.RemoteClusterIDLabel: consumerID, kube.NonceLabel: "true"}}}
	require.NoError(t, f.secrets.Add(empty)) // the cache: still empty
	filled := empty.DeepCopy()
	filled.ResourceVersion = "2"
	filled.Data = map[string][]byte{kube.NonceField: []byte("their-nonce")}
	require.NoError(t, f.kube.Tracker().Add(filled)) // the API: filled by someone else
	// The fake tracker does not compare resourceVersions: the API server would.
	f.kube.PrependReactor("update", "secrets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.(k8stesting.UpdateAction).GetObject().(*corev1.Secret).ResourceVersion != "2" {
			return true, nil, conflictErr
		}
		return false, nil, nil
	})
	r := &nonceCreator{c: f.cluster, events: f.events(), secrets: corelisters.NewSecretLister(f.secrets), namespaces: f.tenantNamespaces()}
	l := newLoop("nonce-creator", r.sync, nil)
	defer l.queue.ShutDown()
	key := ns + "/" + kube.NonceSecretName
	l.queue.Add(key)

	err := runLoop(t, l, key)
	require.True(t, apierrors.IsConflict(err), "%v", err)
	assert.Equal(t, 1, l.queue.NumRequeues(key))
	assert.Empty(t, f.recorded(), "no NonceGenerated")

	require.NoError(t, f.secrets.Update(filled)) // the informer catches up
	require.NoError(t, runLoop(t, l, key))
	assert.Equal(t, 0, l.queue.NumRequeues(key))
	assert.Equal(t, []string{"update secrets " + key}, writes(f.kube.Actions()), "only the refused write")
	s, err := f.kube.CoreV1().Secrets(ns).Get(t.Context(), kube.NonceSecretName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "their-nonce", string(s.Data[kube.NonceField]))
	assert.Empty(t, f.recorded())
}
