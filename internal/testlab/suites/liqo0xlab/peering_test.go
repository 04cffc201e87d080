//go:build cluster

package liqo0xlab_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

var foreignClusters = schema.GroupVersionResource{Group: "discovery.liqo.io", Version: "v1alpha1", Resource: "foreignclusters"}

// Two lab clusters running Liqo v0.10.1's own controllers authenticate as
// `liqoctl peer out-of-band` makes them (§4, §8(2)): the consumer's
// ForeignCluster, created after the token Secret, reaches
// AuthenticationStatus Established with the provider's tenant namespace.
func TestRealLiqoPairAuthenticates(t *testing.T) {
	cs := testLab.Clusters(t)
	provider, consumer := cs[0], cs[1]
	ctx := liqo0xContext(t)
	start := time.Now()
	realliqo0x.StartCluster(t, ctx, provider, providerID, providerName, false)
	realliqo0x.StartCluster(t, ctx, consumer, consumerID, consumerName, true)
	// Registered after startLiqo: runs while Liqo still runs (its finalizer).
	pair := &liqo0xPair{provider: mustCluster(t, provider), consumer: mustCluster(t, consumer)}
	t.Cleanup(func() { pair.cleanup(t) })
	t.Logf("timing: both clusters installed and Liqo %s running in %s", realliqo0x.LiqoVersion, time.Since(start).Round(time.Millisecond))

	token, err := realliqo0x.AuthToken(ctx, provider.Config)
	require.NoError(t, err)
	providerAuth := realliqo0x.AuthURL(t, ctx, provider.Config)

	// As liqoctl peer out-of-band: the token Secret first, then the ForeignCluster.
	kc, err := kubernetes.NewForConfig(consumer.Config)
	require.NoError(t, err)
	_, err = kc.CoreV1().Secrets(realliqo0x.Namespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "remote-token-" + providerID, Namespace: realliqo0x.Namespace,
			Labels: map[string]string{"discovery.liqo.io/cluster-id": providerID, "discovery.liqo.io/auth-token": ""}},
		StringData: map[string]string{"token": token},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	dc, err := dynamic.NewForConfig(consumer.Config)
	require.NoError(t, err)
	fcs := dc.Resource(foreignClusters)
	fc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "discovery.liqo.io/v1alpha1",
		"kind":       "ForeignCluster",
		"metadata": map[string]any{"name": providerName,
			"labels": map[string]any{"discovery.liqo.io/cluster-id": providerID}},
		"spec": map[string]any{
			"peeringType":            "OutOfBand",
			"clusterIdentity":        map[string]any{"clusterID": providerID, "clusterName": providerName},
			"foreignAuthUrl":         providerAuth,
			"foreignProxyUrl":        "",
			"outgoingPeeringEnabled": "No",
			"incomingPeeringEnabled": "Auto",
			"insecureSkipTLSVerify":  true,
		},
	}}
	created := time.Now()
	_, err = fcs.Create(ctx, fc, metav1.CreateOptions{})
	require.NoError(t, err)

	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = "metadata.name=" + providerName
			return fcs.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = "metadata.name=" + providerName
			return fcs.Watch(ctx, o)
		},
	}
	ev, err := watchtools.UntilWithSync(ctx, lw, &unstructured.Unstructured{}, nil, func(ev watch.Event) (bool, error) {
		status, reason, message := authenticationStatus(ev.Object.(*unstructured.Unstructured))
		if status != "" {
			t.Logf("ForeignCluster %s: AuthenticationStatus %s %s %s", providerName, status, reason, message)
		}
		return status == "Established", nil
	})
	require.NoError(t, err, "the consumer's ForeignCluster never reached AuthenticationStatus Established")
	t.Logf("timing: ForeignCluster created → AuthenticationStatus Established in %s", time.Since(created).Round(time.Millisecond))
	remoteNS, _, _ := unstructured.NestedString(ev.Object.(*unstructured.Unstructured).Object, "status", "tenantNamespace", "remote")
	require.Regexp(t, `^liqo-tenant-`+consumerName+`-[0-9a-f]{6}$`, remoteNS, "the provider's tenant namespace for the consumer")
}

// authenticationStatus is the ForeignCluster's AuthenticationStatus condition.
func authenticationStatus(fc *unstructured.Unstructured) (status, reason, message string) {
	conds, _, _ := unstructured.NestedSlice(fc.Object, "status", "peeringConditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != "AuthenticationStatus" {
			continue
		}
		status, _ = m["status"].(string)
		reason, _ = m["reason"].(string)
		message, _ = m["message"].(string)
	}
	return status, reason, message
}

func mustCluster(t testing.TB, c *lab.Cluster) *kube.Cluster {
	t.Helper()
	kc, err := kube.NewCluster(c.Config, "")
	require.NoError(t, err)
	return kc
}
