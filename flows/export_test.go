package flows

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// DropOrphanKubeconfig is what unauthenticate does once the consumer's
// Identity id is gone: its kubeconfig Secret, made again meanwhile, goes.
func DropOrphanKubeconfig(ctx context.Context, consumer *kube.Cluster, providerID string, id *authv1beta1.Identity) error {
	return (&replicaGuard{consumer: consumer, providerID: providerID}).dropOrphanKubeconfig(ctx, id)
}

// WaitForConfigMap is waitWithEvents on a ConfigMap, for the tests of the
// Warning rules on any object a real server can carry Events for.
func WaitForConfigMap(ctx context.Context, c *kube.Cluster, sink handshake.Sink, ns, name string,
	cond func(*corev1.ConfigMap) (bool, error)) (*corev1.ConfigMap, error) {
	cms := c.Kube.CoreV1().ConfigMaps(ns)
	return waitWithEvents(ctx, c, sink, handshake.Local, kube.ObjectRef{Kind: "ConfigMap", Namespace: ns, Name: name},
		kube.ListWatch(cms.List, cms.Watch, kube.ByName(name)), "configmap "+name+" to be filled", cond)
}
