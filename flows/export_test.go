package flows

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// WaitForConfigMap is waitWithEvents on a ConfigMap, for the tests of the
// Warning rules on any object a real server can carry Events for.
func WaitForConfigMap(ctx context.Context, c *kube.Cluster, sink handshake.Sink, ns, name string,
	cond func(*corev1.ConfigMap) (bool, error)) (*corev1.ConfigMap, error) {
	cms := c.Kube.CoreV1().ConfigMaps(ns)
	return waitWithEvents(ctx, c, sink, handshake.Local, kube.ObjectRef{Kind: "ConfigMap", Namespace: ns, Name: name},
		kube.ListWatch(cms.List, cms.Watch, kube.ByName(name)), "configmap "+name+" to be filled", cond)
}
