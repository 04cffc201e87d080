// Package liqotest holds what the cluster tests against real Liqo v1
// (liqointerop, liqorenewal) share: Liqo and this project set up on lab
// clusters, this project's controllers run for a test, and the waits and
// checks on what the two produce.
package liqotest

import (
	"context"
	"crypto/x509"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/tools/clientcmd"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqov1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// LiqoManager is the field manager of what liqo-peer writes (client-go
// names it after the binary): it tells Liqo's writes from this project's.
const LiqoManager = "liqo-peer"

// ReplicatorManager is the field manager of what Liqo's crd-replicator
// writes (client-go names it after the binary).
const ReplicatorManager = "crd-replicator"

// LiqoCluster is LiqoReleaseCluster of the default release
// (realliqov1.LiqoVersion).
func LiqoCluster(t *testing.T, ctx context.Context, lc *lab.Cluster, id string, provider, consumer bool) *kube.Cluster {
	t.Helper()
	return LiqoReleaseCluster(t, ctx, lc, realliqov1.LiqoVersion, id, provider, consumer)
}

// LiqoReleaseCluster installs Liqo release (one of realliqov1.Releases) on
// the lab cluster lc as its Helm chart would (namespace "liqo-<id>") and
// runs its liqo-peer there with the sides asked for, advertising the lab's
// admin address (lab clusters have no Nodes), with more of its flags
// (args). It returns this project's
// view of that cluster.
func LiqoReleaseCluster(t *testing.T, ctx context.Context, lc *lab.Cluster, release, id string, provider, consumer bool, args ...string) *kube.Cluster {
	t.Helper()
	ns := "liqo-" + id
	require.NoError(t, realliqov1.InstallRelease(ctx, lc.Config, release, ns, id))
	realliqov1.Start(t, lc.KubeconfigPath, realliqov1.Options{
		Release: release, ClusterID: id, Namespace: ns, Provider: provider, Consumer: consumer,
		APIServerOverride: lc.Config.Host, Args: args,
	})
	c, err := kube.NewCluster(lc.Config, ns)
	require.NoError(t, err)
	installed, err := c.LiqoInstalled(ctx)
	require.NoError(t, err)
	require.True(t, installed, "with Liqo's CRDs the cluster must look like Liqo to this project")
	return c
}

// OurCluster initialises the lab cluster lc with this project's `init`.
func OurCluster(t *testing.T, ctx context.Context, lc *lab.Cluster, id string) *kube.Cluster {
	t.Helper()
	c, err := kube.NewCluster(lc.Config, "liqo-"+id)
	require.NoError(t, err)
	_, err = c.Init(ctx, kube.InitOptions{ClusterID: id})
	require.NoError(t, err)
	return c
}

// Managers lists the field managers of an object, as manager/subresource.
func Managers(m metav1.Object) []string {
	var out []string
	for _, f := range m.GetManagedFields() {
		out = append(out, f.Manager+"/"+f.Subresource)
	}
	return out
}

// RunOurManager runs this project's reconcilers of one side on c until the
// test ends, as liqo-auth-controller does, and returns once their caches
// synced.
func RunOurManager(t *testing.T, ctx context.Context, c *kube.Cluster, o controller.Options) {
	t.Helper()
	m, err := controller.New(c, o)
	require.NoError(t, err)
	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(runCtx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	select {
	case <-m.Synced():
	case err := <-done:
		t.Fatalf("our controllers stopped before syncing: %v", err)
	case <-ctx.Done():
		t.Fatal("our controllers' caches did not sync")
	}
}

// WaitSlice waits on c for the ResourceSlice namespace/name to satisfy cond.
func WaitSlice(t *testing.T, ctx context.Context, c *kube.Cluster, namespace, name, what string,
	cond func(*authv1beta1.ResourceSlice) bool) *authv1beta1.ResourceSlice {
	t.Helper()
	slices := c.Liqo.ResourceSlices(namespace)
	rs, err := kube.WaitFor(ctx, kube.ListWatch(slices.List, slices.Watch, kube.ByName(name)), what,
		func(rs *authv1beta1.ResourceSlice) (bool, error) { return cond(rs), nil })
	require.NoError(t, err, what)
	return rs
}

// SliceAccepted: the provider's answer is there, authentication accepted
// with a certificate.
func SliceAccepted(rs *authv1beta1.ResourceSlice) bool {
	return kube.SliceConditionStatus(rs, authv1beta1.ResourceSliceConditionTypeAuthentication) == authv1beta1.ResourceSliceConditionAccepted &&
		rs.Status.AuthParams != nil && len(rs.Status.AuthParams.SignedCRT) > 0
}

// WaitIdentityKubeconfig waits for the Identity namespace/name to point at
// its kubeconfig Secret, and for that Secret, and returns both.
func WaitIdentityKubeconfig(t *testing.T, ctx context.Context, c *kube.Cluster, namespace, name string) (*authv1beta1.Identity, *corev1.Secret) {
	t.Helper()
	identities := c.Liqo.Identities(namespace)
	id, err := kube.WaitFor(ctx, kube.ListWatch(identities.List, identities.Watch, kube.ByName(name)), "identity "+name,
		func(id *authv1beta1.Identity) (bool, error) {
			return id.Status.KubeconfigSecretRef != nil && id.Status.KubeconfigSecretRef.Name != "", nil
		})
	require.NoError(t, err)
	secrets := c.Kube.CoreV1().Secrets(namespace)
	s, err := kube.WaitFor(ctx, kube.ListWatch(secrets.List, secrets.Watch, kube.ByName(id.Status.KubeconfigSecretRef.Name)),
		"kubeconfig Secret "+id.Status.KubeconfigSecretRef.Name,
		func(s *corev1.Secret) (bool, error) { return len(s.Data[kube.KubeconfigField]) > 0, nil })
	require.NoError(t, err)
	return id, s
}

// WhoAmI asks the API server of a kubeconfig Secret who its certificate
// makes us (SelfSubjectReview).
func WhoAmI(t *testing.T, ctx context.Context, s *corev1.Secret) (user string, groups []string) {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(s.Data[kube.KubeconfigField])
	require.NoError(t, err)
	remote, err := kube.NewCluster(cfg, "")
	require.NoError(t, err)
	user, groups, err = remote.WhoAmI(ctx)
	require.NoError(t, err, "kubeconfig Secret %s/%s", s.Namespace, s.Name)
	return user, groups
}

// KubeconfigCertificate is the client certificate of a kubeconfig Secret.
func KubeconfigCertificate(t *testing.T, s *corev1.Secret) *x509.Certificate {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(s.Data[kube.KubeconfigField])
	require.NoError(t, err)
	cert, err := authcrypto.ParseCertificatePEM(cfg.CertData)
	require.NoError(t, err)
	return cert
}

// CSRSubject is the subject of the CSR of a slice.
func CSRSubject(t *testing.T, rs *authv1beta1.ResourceSlice) (cn string, o []string) {
	t.Helper()
	csr, err := authcrypto.ParseCSR(rs.Spec.CSR)
	require.NoError(t, err)
	return csr.Subject.CommonName, csr.Subject.Organization
}

// WaitEvent waits for an Event with reason on an object.
func WaitEvent(t *testing.T, ctx context.Context, c *kube.Cluster, kind, namespace, name, reason string) *corev1.Event {
	t.Helper()
	events := c.Kube.CoreV1().Events(namespace)
	sel := fields.Set{"involvedObject.kind": kind, "involvedObject.name": name, "reason": reason}.String()
	ev, err := kube.WaitFor(ctx, kube.ListWatch(events.List, events.Watch, func(o *metav1.ListOptions) { o.FieldSelector = sel }),
		"event "+reason, func(*corev1.Event) (bool, error) { return true, nil })
	require.NoError(t, err, "no %s Event on %s %s/%s", reason, kind, namespace, name)
	return ev
}
