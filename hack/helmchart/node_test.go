//go:build cluster

package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/action"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/burst"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labimage"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The chart as an admin installs and runs it, on a cluster with a Node (one
// replica first, the chart's default of two after): the controller runs
// from the project's image, loaded into the Node's runtime
// without a registry, with the chart's defaults but the tag; its Pod becomes
// Ready through the kubelet's probes, with its ServiceAccount's in-cluster
// config. Scaled to two replicas, it survives the deletion of the leader's
// Pod in the middle of a burst of Tenants: the other replica takes over and
// every Tenant gets its certificate, from one CSR each. A Pod scrapes
// /metrics through the chart's metrics Service and at both replicas.
// Uninstalled, it leaves none of its objects.
func TestControllerRunsAsPodsOnANode(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	c, err := lab.StartCluster(ctx, "helm-node", lab.Options{Nodes: true})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.Stop()) })
	scraper := make(chan error, 1)
	go func() { scraper <- loadScraper(ctx, c.Node) }()
	require.NoError(t, labimage.LoadController(ctx, c.Node))
	admin, err := kube.NewCluster(c.Config, testNamespace)
	require.NoError(t, err)
	cfg := actionConfig(t, c)

	install := action.NewInstall(cfg)
	install.ReleaseName, install.Namespace, install.CreateNamespace = testRelease, testNamespace, true
	imageValues := fmt.Sprintf("image: {tag: %s, pullPolicy: Never}\nmetrics: {service: {enabled: true}}\n", labimage.Version)
	rel, err := install.RunWithContext(ctx, loadChart(t), values(t, imageValues+"replicaCount: 1\n"))
	require.NoError(t, err)
	pods := waitDeploymentReady(t, ctx, admin, 1)
	for _, p := range pods {
		assert.Equal(t, c.Node.Name, p.Spec.NodeName)
		require.Len(t, p.Status.ContainerStatuses, 1)
		cs := p.Status.ContainerStatuses[0]
		assert.True(t, cs.Ready, "%s ready through its readiness probe", p.Name)
		assert.Zero(t, cs.RestartCount, "%s never failed its liveness probe", p.Name)
	}

	upgrade := action.NewUpgrade(cfg)
	upgrade.Namespace = testNamespace
	rel, err = upgrade.RunWithContext(ctx, testRelease, loadChart(t), values(t, imageValues+"replicaCount: 2\n"))
	require.NoError(t, err)
	waitDeploymentReady(t, ctx, admin, 2)
	leader := leaseHolder(t, ctx, admin, "")

	const n, deleteAt = 40, 10
	ids := make([]string, n)
	tenants := make([]*authv1beta1.Tenant, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("ha-%03d", i)
	}
	burst.Parallel(t, 8, n, func(i int) (err error) {
		tenants[i], err = burst.SyntheticConsumer(ctx, admin, ids[i])
		return err
	})
	csrs := burst.RecordTenantCSRs(t, ctx, admin, "ha-")
	filled := burst.WatchFilledTenants(t, ctx, admin, "ha-")
	burst.Parallel(t, 8, n, func(i int) error {
		_, err := admin.Liqo.Tenants(tenants[i].Namespace).Create(ctx, tenants[i], metav1.CreateOptions{})
		return err
	})
	select {
	case <-filled.AtLeast(ctx, deleteAt):
	case <-ctx.Done():
		t.Fatalf("only %d Tenants got their status before the leader's Pod was deleted", filled.Count())
	}
	leaderPod := strings.SplitN(leader, "_", 2)[0]
	require.NoError(t, admin.Kube.CoreV1().Pods(testNamespace).Delete(ctx, leaderPod, metav1.DeleteOptions{}))
	t.Logf("deleted the leader's Pod %s with %d of %d Tenants filled", leaderPod, filled.Count(), n)
	successor := leaseHolder(t, ctx, admin, leader)
	assert.NotEqual(t, leaderPod, strings.SplitN(successor, "_", 2)[0], "the other replica takes over")
	select {
	case <-filled.AtLeast(ctx, n):
	case <-ctx.Done():
		t.Fatalf("only %d of %d Tenants got their status after the failover", filled.Count(), n)
	}
	for i, id := range ids {
		names := csrs.Of(id)
		if !assert.Len(t, names, 1, "CSRs created for %s", id) {
			continue
		}
		got, err := admin.Liqo.Tenants(tenants[i].Namespace).Get(ctx, tenants[i].Name, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, string(csrs.WaitCertificate(ctx, names[0])), string(got.Status.AuthParams.SignedCRT), "certificate of %s", id)
	}

	// /metrics from inside the cluster: a Pod scrapes the Service and both replicas.
	require.NoError(t, <-scraper)
	assertScraped(t, scrapeFromPod(t, ctx, admin, 2))

	objs := onServer(t, ctx, c, admin.Kube, rel)
	uninstall := action.NewUninstall(cfg)
	uninstall.Wait, uninstall.Timeout = true, 2*time.Minute
	_, err = uninstall.Run(testRelease)
	require.NoError(t, err)
	assertGone(t, ctx, c, admin.Kube, objs)
}

// waitDeploymentReady waits until the controller's Deployment has replicas
// ready Pods, updated, and returns them; on a timeout it logs why.
func waitDeploymentReady(t *testing.T, ctx context.Context, admin *kube.Cluster, replicas int32) []corev1.Pod {
	lw := cache.NewListWatchFromClient(admin.Kube.AppsV1().RESTClient(), "deployments", testNamespace,
		fields.OneTermEqualSelector("metadata.name", "liqo-auth-controller"))
	_, err := watchtools.UntilWithSync(ctx, lw, &appsv1.Deployment{}, nil, func(e watch.Event) (bool, error) {
		d, ok := e.Object.(*appsv1.Deployment)
		return ok && d.Status.ObservedGeneration == d.Generation && d.Status.ReadyReplicas == replicas &&
			d.Status.UpdatedReplicas == replicas && d.Status.Replicas == replicas, nil
	})
	pods, listErr := admin.Kube.CoreV1().Pods(testNamespace).List(context.Background(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=liqo-auth-controller"})
	require.NoError(t, listErr)
	if err != nil {
		for _, p := range pods.Items {
			t.Logf("pod %s: %s %+v %+v", p.Name, p.Status.Phase, p.Status.Conditions, p.Status.ContainerStatuses)
		}
	}
	require.NoError(t, err, "the controller's Deployment has %d ready replicas", replicas)
	var running []corev1.Pod
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			running = append(running, p)
		}
	}
	return running
}

// leaseHolder waits until the controller's Lease has a holder other than
// not, and returns it.
func leaseHolder(t *testing.T, ctx context.Context, admin *kube.Cluster, not string) string {
	leases := admin.Kube.CoordinationV1().Leases(testNamespace)
	l, err := kube.WaitFor(ctx, kube.ListWatch(leases.List, leases.Watch, kube.ByName(kube.ControllerLeaseName)), "controller lease",
		func(l *coordinationv1.Lease) (bool, error) {
			h := l.Spec.HolderIdentity
			return h != nil && *h != "" && *h != not, nil
		})
	require.NoError(t, err)
	return *l.Spec.HolderIdentity
}

// assertGone checks that none of objs ("Kind name" → object) is on the
// server any more, nor a Pod of the controller.
func assertGone(t *testing.T, ctx context.Context, c *lab.Cluster, clients kubernetes.Interface, objs map[string]*unstructured.Unstructured) {
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(clients.Discovery()))
	dyn := dynamicFor(t, c)
	for key, u := range objs {
		gvk := u.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		require.NoError(t, err)
		_, err = dyn.Resource(m.Resource).Namespace(u.GetNamespace()).Get(ctx, u.GetName(), metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "%s after helm uninstall: %v", key, err)
	}
	pods := clients.CoreV1().Pods(testNamespace)
	assert.NoError(t, kube.WaitForDeletion(ctx, kube.ListWatch(pods.List, pods.Watch, kube.BySelector("app.kubernetes.io/name=liqo-auth-controller")),
		&corev1.Pod{}, "the controller's Pods to go"))
}
