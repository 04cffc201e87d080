package realliqo0x

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	watchtools "k8s.io/client-go/tools/watch"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqoproc"
)

// What Liqo 0.x labels its authentication's objects with (as Liqo writes
// them: this package does not import the code under test).
const (
	clusterIDLabel       = "discovery.liqo.io/cluster-id"
	remoteTenantCSRLabel = "discovery.liqo.io/remote-tenant-csr"
	tenantNamespaceLabel = "discovery.liqo.io/tenant-namespace"
	remoteTokenPrefix    = "remote-token-"
)

// toolTenantPrefix + provider ID is the tenant namespace this tool makes as
// a 0.x consumer (the v1 flow's layout).
const toolTenantPrefix = "liqo-tenant-"

// foreignClusters are Liqo 0.x's ForeignClusters.
var foreignClusters = schema.GroupVersionResource{Group: "discovery.liqo.io", Version: "v1alpha1", Resource: "foreignclusters"}

// CleanupTimeout bounds CleanupPair.
const CleanupTimeout = time.Minute

// StartAuthServer installs Liqo 0.x on c as cluster id/name and starts its
// auth server until the test ends: enough for a provider whose consumer is
// this tool.
func StartAuthServer(t testing.TB, ctx context.Context, c *lab.Cluster, id, name string) *AuthServer {
	t.Helper()
	addr := FreeAddress(t)
	if err := Install(ctx, c.Config, InstallOptions{ClusterID: id, ClusterName: name, AuthAddress: addr}); err != nil {
		t.Fatal(err)
	}
	return StartAuthService(t, c.KubeconfigPath, AuthOptions{
		ClusterID: id, ClusterName: name, Address: addr, APIServerAddress: c.Config.Host})
}

// StartCluster is StartAuthServer plus Liqo's controller-manager, and the
// crd-replicator when consumer: a whole Liqo 0.x cluster as far as
// authentication goes. Register a CleanupPair after it: cleanups run last
// in, first out, so Liqo still runs (its ForeignCluster finalizer) then.
func StartCluster(t testing.TB, ctx context.Context, c *lab.Cluster, id, name string, consumer bool) *AuthServer {
	t.Helper()
	srv := StartAuthServer(t, ctx, c, id, name)
	StartControllerManager(t, c.KubeconfigPath, ManagerOptions{ClusterID: id, ClusterName: name})
	if consumer {
		StartCRDReplicator(t, c.KubeconfigPath, ReplicatorOptions{ClusterID: id, ClusterName: name})
	}
	return srv
}

// AuthURL is the auth URL `liqoctl generate peer-command` advertises for
// the cluster of cfg: the liqo-auth Service's override annotations (§2.2
// GetHomeAuthURL; Install sets them).
func AuthURL(t testing.TB, ctx context.Context, cfg *rest.Config) string {
	t.Helper()
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := kc.CoreV1().Services(Namespace).Get(ctx, AuthServiceName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	host, port := svc.Annotations[overrideAddressAnnotation], svc.Annotations[overridePortAnnotation]
	if host == "" {
		t.Fatalf("Service %s/%s has no %s annotation", Namespace, AuthServiceName, overrideAddressAnnotation)
	}
	if port == "443" || port == "" {
		return "https://" + host
	}
	return "https://" + host + ":" + port
}

// CleanupPair removes, by Liqo's labels and without the code under test,
// what an authentication of consumerID with providerID left on both sides,
// so that the provider may issue that consumer its one identity again:
// on the consumer the ForeignCluster (first, so that Liqo asks for nothing
// more; its finalizer needs Liqo running), the token and identity Secrets,
// Liqo's tenant namespaces and this tool's; on the provider the CSRs whose
// subject is consumerID, remote-token-<consumerID> and the tenant
// namespaces. Either side may lack Liqo 0.x. It waits (watches) until the
// namespaces are gone.
func CleanupPair(t testing.TB, provider, consumer *rest.Config, providerID, consumerID string) {
	t.Helper()
	// The test's context is already cancelled when cleanups run.
	ctx, cancel := context.WithTimeout(context.Background(), CleanupTimeout)
	defer cancel()
	consumerNamespaces, err := cleanupConsumer(ctx, consumer, providerID)
	if err != nil {
		t.Errorf("cleaning the consumer of provider %s: %v", providerID, err)
	}
	// The ForeignCluster gone, the two sides' namespaces go at once: each
	// side's namespace controller takes seconds to empty them.
	var wg sync.WaitGroup
	if consumerNamespaces != nil {
		wg.Go(func() {
			if err := consumerNamespaces(); err != nil {
				t.Errorf("cleaning the consumer of provider %s: %v", providerID, err)
			}
		})
	}
	if err := cleanupProvider(ctx, provider, consumerID); err != nil {
		t.Errorf("cleaning the provider of consumer %s: %v", consumerID, err)
	}
	wg.Wait()
}

// cleanupConsumer removes the consumer's ForeignCluster and Secrets, and
// returns what deletes its namespaces and waits until they are gone.
func cleanupConsumer(ctx context.Context, cfg *rest.Config, providerID string) (namespaces func() error, err error) {
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	byProvider := metav1.ListOptions{LabelSelector: labels.Set{clusterIDLabel: providerID}.String()}
	fcs := dc.Resource(foreignClusters)
	list, err := fcs.List(ctx, byProvider)
	switch {
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		// No Liqo 0.x CRDs: this tool was the consumer.
	case err != nil:
		return nil, err
	default:
		for _, fc := range list.Items {
			if err := ignoreNotFound(fcs.Delete(ctx, fc.GetName(), metav1.DeleteOptions{})); err != nil {
				return nil, err
			}
			if err := waitGone(ctx, fcs.List, fcs.Watch, fc.GetName(), &unstructured.Unstructured{}); err != nil {
				return nil, fmt.Errorf("ForeignCluster %s: %w", fc.GetName(), err)
			}
		}
	}
	secrets, err := kc.CoreV1().Secrets(metav1.NamespaceAll).List(ctx, byProvider)
	if err != nil {
		return nil, err
	}
	for _, s := range secrets.Items {
		if err := ignoreNotFound(kc.CoreV1().Secrets(s.Namespace).Delete(ctx, s.Name, metav1.DeleteOptions{})); err != nil {
			return nil, err
		}
	}
	return func() error { return deleteNamespaces(ctx, kc, byProvider, toolTenantPrefix+providerID) }, nil
}

func cleanupProvider(ctx context.Context, cfg *rest.Config, consumerID string) error {
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	csrs := kc.CertificatesV1().CertificateSigningRequests()
	list, err := csrs.List(ctx, metav1.ListOptions{LabelSelector: remoteTenantCSRLabel})
	if err != nil {
		return err
	}
	for _, csr := range list.Items {
		if csrSubject(csr) == consumerID {
			if err := ignoreNotFound(csrs.Delete(ctx, csr.Name, metav1.DeleteOptions{})); err != nil {
				return err
			}
		}
	}
	if err := ignoreNotFound(kc.CoreV1().Secrets(Namespace).Delete(ctx, remoteTokenPrefix+consumerID, metav1.DeleteOptions{})); err != nil {
		return err
	}
	return deleteNamespaces(ctx, kc, metav1.ListOptions{LabelSelector: labels.Set{clusterIDLabel: consumerID}.String()}, "")
}

// csrSubject is the CN of the CSR's request ("" when unreadable).
func csrSubject(csr certificatesv1.CertificateSigningRequest) string {
	if req, err := authcrypto.ParseCSR(csr.Spec.Request); err == nil {
		return req.Subject.CommonName
	}
	return ""
}

// deleteNamespaces deletes the namespaces opts selects and the one named
// extra (if any), and waits until they are gone.
func deleteNamespaces(ctx context.Context, kc kubernetes.Interface, opts metav1.ListOptions, extra string) error {
	nss := kc.CoreV1().Namespaces()
	list, err := nss.List(ctx, opts)
	if err != nil {
		return err
	}
	names := []string{}
	for _, ns := range list.Items {
		names = append(names, ns.Name)
	}
	if extra != "" {
		names = append(names, extra)
	}
	for _, name := range names {
		if err := ignoreNotFound(nss.Delete(ctx, name, metav1.DeleteOptions{})); err != nil {
			return err
		}
	}
	for _, name := range names {
		if err := waitGone(ctx, nss.List, nss.Watch, name, &corev1.Namespace{}); err != nil {
			return fmt.Errorf("namespace %s: %w", name, err)
		}
	}
	return nil
}

// waitGone watches the object called name until it does not exist.
func waitGone[L runtime.Object](ctx context.Context,
	list func(context.Context, metav1.ListOptions) (L, error),
	watchFn func(context.Context, metav1.ListOptions) (watch.Interface, error),
	name string, objType runtime.Object) error {
	byName := fields.OneTermEqualSelector("metadata.name", name).String()
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = byName
			return list(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = byName
			return watchFn(ctx, o)
		},
	}
	_, err := watchtools.UntilWithSync(ctx, lw, objType,
		func(store cache.Store) (bool, error) { return len(store.List()) == 0, nil },
		func(e watch.Event) (bool, error) { return e.Type == watch.Deleted, nil })
	return err
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// CreateAuthDeployment creates the liqo-auth Deployment as the chart names
// it, with the auth server's args, and deletes it when the test ends. Lab
// clusters run the auth server as a process, so nothing runs its Pods: it
// only says how the server is configured (e.g. --enable-authentication=false).
func CreateAuthDeployment(t testing.TB, ctx context.Context, cfg *rest.Config, args ...string) {
	t.Helper()
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sel := map[string]string{"run": "auth-service"}
	deploys := kc.AppsV1().Deployments(Namespace)
	_, err = deploys.Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: AuthServiceName, Namespace: Namespace},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: sel},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "auth-service", Image: "ghcr.io/liqotech/auth-service:" + LiqoVersion, Args: args}}},
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), CleanupTimeout)
		defer cancel()
		if err := ignoreNotFound(deploys.Delete(ctx, AuthServiceName, metav1.DeleteOptions{})); err != nil {
			t.Errorf("deleting Deployment %s: %v", AuthServiceName, err)
			return
		}
		if err := waitGone(ctx, deploys.List, deploys.Watch, AuthServiceName, &appsv1.Deployment{}); err != nil {
			t.Errorf("Deployment %s: %v", AuthServiceName, err)
		}
	})
}

// TokenLength is the length of a Liqo 0.x auth token: 128 lowercase hex
// characters (64 random bytes, as the auth server makes it).
const TokenLength = 128

// WrongToken is a well-formed token that no auth server issued.
func WrongToken(t testing.TB) string {
	t.Helper()
	raw := make([]byte, TokenLength/2)
	if _, err := rand.Read(raw); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(raw)
}

// TenantNamespaces are the names of the tenant namespaces the provider of
// cfg made for consumerID (Liqo's labels), those being deleted left out.
func TenantNamespaces(t testing.TB, ctx context.Context, cfg *rest.Config, consumerID string) []string {
	t.Helper()
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	nss, err := kc.CoreV1().Namespaces().List(ctx, metav1.ListOptions{
		LabelSelector: labels.Set{clusterIDLabel: consumerID, tenantNamespaceLabel: "true"}.String()})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, ns := range nss.Items {
		if ns.DeletionTimestamp == nil {
			names = append(names, ns.Name)
		}
	}
	return names
}

// IdentityConfig is the rest config of a kubeconfig that a 0.x consumer got
// from the provider of providerCfg. Liqo's auth server hands out no API
// server CA when it has none (lab clusters): the provider's CA then.
func IdentityConfig(t testing.TB, kubeconfig []byte, providerCfg *rest.Config) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.CAData) == 0 && cfg.CAFile == "" {
		cfg.CAData = providerCfg.CAData
	}
	return cfg
}

// WhoAmI asks the API server of cfg who cfg authenticates as.
func WhoAmI(t testing.TB, ctx context.Context, cfg *rest.Config) (user string, groups []string) {
	t.Helper()
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := kc.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r.Status.UserInfo.Username, r.Status.UserInfo.Groups
}

// CanCreateResourceRequests asks, as cfg, what `kubectl auth can-i create
// resourcerequests.discovery.liqo.io -n namespace` asks: what a 0.x identity
// is for (liqo-remote-peering-basic), and still may do after liqoctl unpeer.
func CanCreateResourceRequests(t testing.TB, ctx context.Context, cfg *rest.Config, namespace string) bool {
	t.Helper()
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	review, err := kc.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: namespace, Verb: "create", Group: "discovery.liqo.io", Resource: "resourcerequests"}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return review.Status.Allowed
}

// v1ForeignClusterCRD is what tells Liqo v1 apart: its ForeignClusters in
// core.liqo.io (the schema does not matter to detection).
const v1ForeignClusterCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foreignclusters.core.liqo.io
spec:
  group: core.liqo.io
  scope: Cluster
  names: {plural: foreignclusters, singular: foreigncluster, kind: ForeignCluster, listKind: ForeignClusterList}
  versions:
  - name: v1beta1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`

// ServeLiqoV1 makes the cluster of cfg look like Liqo v1 to detection (its
// core.liqo.io ForeignCluster CRD) for good, and returns once discovery
// serves it.
func ServeLiqoV1(t testing.TB, ctx context.Context, cfg *rest.Config) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "foreignclusters.yaml"), []byte(v1ForeignClusterCRD), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := (liqoproc.Build{Label: "Liqo v1", FieldManager: "realliqo0x-test"}).ApplyCRDs(ctx, cfg, dir); err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Discovery has no watch: an established CRD may reach it a moment later.
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		_, err := dc.ServerResourcesForGroupVersion("core.liqo.io/v1beta1")
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("discovery never served core.liqo.io/v1beta1 foreignclusters: %v", err)
	}
}

// StartOpenAuthServer starts, on the cluster of c where Liqo 0.x is
// installed as id/name, one more auth server with authentication disabled
// (any token accepted), until the test ends.
func StartOpenAuthServer(t testing.TB, c *lab.Cluster, id, name string) *AuthServer {
	t.Helper()
	return StartAuthService(t, c.KubeconfigPath, AuthOptions{
		ClusterID: id, ClusterName: name, Address: FreeAddress(t), APIServerAddress: c.Config.Host, DisableAuthentication: true})
}
