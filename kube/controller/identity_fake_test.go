package controller

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/clientcmd"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// consumerSide is a consumer cluster, made of fakes, holding the Identity
// a provider issued to it.
type consumerSide struct {
	*fixture
	identity *authv1beta1.Identity
	keyPEM   []byte
}

// newConsumerSide sets up a consumer with its key pair (unless keys is
// nil: the test brings its own) and an Identity for providerID.
func newConsumerSide(t *testing.T, providerID string, keys func(namespace string) *corev1.Secret) *consumerSide {
	f := newFixture(t)
	c := &consumerSide{fixture: f}
	if keys == nil {
		key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
		require.NoError(t, err)
		keys = func(namespace string) *corev1.Secret {
			s, err := kube.NewKeysSecret(namespace, key)
			require.NoError(t, err)
			return s
		}
	}
	if s := keys(kube.DefaultLiqoNamespace); s != nil {
		require.NoError(t, f.kube.Tracker().Add(s)) // read live, not from a cache
		c.keyPEM = s.Data[kube.PrivateKeyField]
	}
	ns := kube.TenantNamespaceName(providerID)
	c.identity = &authv1beta1.Identity{
		ObjectMeta: metav1.ObjectMeta{Name: kube.ControlPlaneIdentityName(providerID), Namespace: ns, UID: types.UID("uid-identity-" + providerID),
			Labels: map[string]string{kube.RemoteClusterIDLabel: providerID}},
		Spec: authv1beta1.IdentitySpec{ClusterID: providerID, Type: authv1beta1.ControlPlaneIdentityType, Namespace: "liqo-tenant-me",
			AuthParams: authv1beta1.AuthParams{APIServer: "https://" + providerID + ".example:6443", CA: []byte("ca"), SignedCRT: []byte("crt")}},
	}
	f.add(c.identity)
	return c
}

func (c *consumerSide) reconciler() *identityReconciler {
	return &identityReconciler{c: c.cluster, events: c.events(), identities: c.identities, secrets: corelisters.NewSecretLister(c.secrets)}
}

func (c *consumerSide) key() string { return c.identity.Namespace + "/" + c.identity.Name }

func (c *consumerSide) secretName() string { return kube.KubeconfigSecretName(c.identity.Name) }

func (c *consumerSide) secret() *corev1.Secret {
	c.t.Helper()
	s, err := c.kube.CoreV1().Secrets(c.identity.Namespace).Get(c.t.Context(), c.secretName(), metav1.GetOptions{})
	require.NoError(c.t, err)
	return s
}

func (c *consumerSide) stored() *authv1beta1.Identity {
	c.t.Helper()
	obj, err := c.liqo.tracker.Get(authv1beta1.IdentityGroupVersionResource, c.identity.Namespace, c.identity.Name)
	require.NoError(c.t, err)
	return obj.(*authv1beta1.Identity)
}

// The kubeconfig Secret cannot be written: the error goes back to the
// queue, rate-limited, with no Event and no status; the next pass writes
// it, owned by the Identity, and points the status at it.
func TestFakeIdentitySecretWriteFailureIsRetried(t *testing.T) {
	c := newConsumerSide(t, "fake-provider", nil)
	c.kube.PrependReactor("create", "secrets", failing(1, internalErr, named(c.secretName())))
	l := newLoop("identity", c.reconciler().sync, nil)
	defer l.queue.ShutDown()
	l.queue.Add(c.key())

	err := runLoop(t, l, c.key())
	require.True(t, apierrors.IsInternalError(err), "%v", err)
	assert.Equal(t, 1, l.queue.NumRequeues(c.key()))
	assert.Empty(t, c.recorded())
	assert.Empty(t, writes(c.liqo.Actions()), "no status without the Secret")

	require.NoError(t, runLoop(t, l, c.key()))
	assert.Equal(t, 0, l.queue.NumRequeues(c.key()))
	events := c.recorded()
	assert.Equal(t, []string{"Normal " + ReasonKubeconfigEnsured + " Kubeconfig secret created"}, events)
	for _, e := range events {
		assert.NotContains(t, e, string(c.keyPEM), "the private key is never in an Event")
	}
	s := c.secret()
	owner := metav1.GetControllerOf(s)
	require.NotNil(t, owner)
	assert.Equal(t, c.identity.UID, owner.UID)
	assert.Equal(t, "liqo-tenant-me", s.Annotations[kube.RemoteTenantNamespace])
	cfg, err := clientcmd.Load(s.Data[kube.KubeconfigField])
	require.NoError(t, err)
	assert.Equal(t, "https://fake-provider.example:6443", cfg.Clusters["fake-provider"].Server)
	assert.Equal(t, []string{"update identities/status " + c.key()}, writes(c.liqo.Actions()))
	require.NotNil(t, c.stored().Status.KubeconfigSecretRef)
	assert.Equal(t, c.secretName(), c.stored().Status.KubeconfigSecretRef.Name)
}

// A Secret of that name created by someone else (without our labels, so
// not in the informer's cache) makes the create fail with AlreadyExists:
// it is adopted, keeping what others put on it, and updated in place.
func TestFakeIdentityAdoptsExistingSecret(t *testing.T) {
	c := newConsumerSide(t, "fake-adopt", nil)
	isController := true
	theirs := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: c.secretName(), Namespace: c.identity.Namespace, UID: "uid-theirs",
			Labels: map[string]string{"team": "platform"},
			OwnerReferences: []metav1.OwnerReference{
				{APIVersion: "v1", Kind: "ConfigMap", Name: "bundle", UID: "uid-bundle"},
				{APIVersion: "apps/v1", Kind: "Deployment", Name: "old-owner", UID: "uid-old", Controller: &isController},
			}},
		Data: map[string][]byte{kube.KubeconfigField: []byte("stale")},
	}
	require.NoError(t, c.kube.Tracker().Add(theirs))

	_, err := c.reconciler().sync(t.Context(), c.key())
	require.NoError(t, err)
	name := c.identity.Namespace + "/" + c.secretName()
	assert.Equal(t, []string{"create secrets " + name, "update secrets " + name}, writes(c.kube.Actions()))
	s := c.secret()
	assert.Equal(t, types.UID("uid-theirs"), s.UID, "updated, not replaced")
	assert.Equal(t, "platform", s.Labels["team"])
	assert.Equal(t, "fake-adopt", s.Labels[kube.RemoteClusterIDLabel])
	assert.Equal(t, string(authv1beta1.ControlPlaneIdentityType), s.Labels[kube.IdentityTypeLabel])
	require.Len(t, s.OwnerReferences, 2, "the Identity replaces the old controller; other owners stay")
	assert.Equal(t, c.identity.UID, metav1.GetControllerOf(s).UID)
	assert.Equal(t, types.UID("uid-bundle"), s.OwnerReferences[1].UID)
	assert.NotEqual(t, []byte("stale"), s.Data[kube.KubeconfigField])
	assert.Equal(t, []string{"Normal " + ReasonKubeconfigEnsured + " Kubeconfig secret updated"}, c.recorded())
}

// The key pair cannot be read: an API error is retried quietly; a missing
// or broken key pair, which retrying does not fix by itself, is also a
// KubeconfigFailed Warning on the Identity saying what to do.
func TestFakeIdentityKeyPairUnreadable(t *testing.T) {
	broken := func(namespace string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: kube.AuthKeysSecretName, Namespace: namespace},
			Data: map[string][]byte{kube.PrivateKeyField: []byte("-----BEGIN PRIVATE KEY-----\nbroken\n-----END PRIVATE KEY-----\n")}}
	}
	none := func(string) *corev1.Secret { return nil }
	for _, tc := range []struct {
		name    string
		keys    func(string) *corev1.Secret
		apiErr  error
		warning string // "" = no Event
	}{
		{"API error", nil, internalErr, ""},
		{"no key pair", none, nil, "run `liqo-auth-tui init` on this cluster or install Liqo"},
		{"broken key", broken, nil, "private key in secret liqo/" + kube.AuthKeysSecretName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newConsumerSide(t, "fake-keys", tc.keys)
			if tc.apiErr != nil {
				c.kube.PrependReactor("get", "secrets", failing(-1, tc.apiErr, named(kube.AuthKeysSecretName)))
			}

			_, err := c.reconciler().sync(t.Context(), c.key())
			require.Error(t, err)
			if tc.apiErr != nil {
				assert.True(t, apierrors.IsInternalError(err), "%v", err)
			}
			events := c.recorded()
			if tc.warning == "" {
				assert.Empty(t, events)
			} else {
				require.Len(t, events, 1)
				assert.True(t, strings.HasPrefix(events[0], "Warning "+ReasonKubeconfigFailed+" Unable to build the kubeconfig: "), events[0])
				assert.Contains(t, events[0], tc.warning)
			}
			assert.Empty(t, writes(c.kube.Actions()), "no Secret without a key")
			assert.Empty(t, writes(c.liqo.Actions()))
		})
	}
}

// The status update conflicts after the Secret was written: retried, the
// next pass finds the Secret as wanted (the informer shows it) and only
// writes the status.
func TestFakeIdentityStatusConflict(t *testing.T) {
	c := newConsumerSide(t, "fake-conflict", nil)
	c.liqo.PrependReactor("update", "identities", failing(1, conflictErr, subresource("status")))

	_, err := c.reconciler().sync(t.Context(), c.key())
	require.True(t, apierrors.IsConflict(err), "%v", err)
	assert.Equal(t, []string{"Normal " + ReasonKubeconfigEnsured}, c.reasons())
	assert.Nil(t, c.stored().Status.KubeconfigSecretRef)

	require.NoError(t, c.secrets.Add(c.secret())) // the informer catches up
	kubeWrites := len(writes(c.kube.Actions()))
	_, err = c.reconciler().sync(t.Context(), c.key())
	require.NoError(t, err)
	assert.Len(t, writes(c.kube.Actions()), kubeWrites, "the Secret is left alone")
	assert.Empty(t, c.recorded())
	require.NotNil(t, c.stored().Status.KubeconfigSecretRef)
	assert.Equal(t, c.secretName(), c.stored().Status.KubeconfigSecretRef.Name)
}
