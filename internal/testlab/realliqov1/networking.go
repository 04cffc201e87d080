package realliqov1

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// NetworkingCRDs are the CRDs of Liqo's networking module that in-band
// peering reads: the IP of the API server proxy and the Configuration of a
// peer's CIDRs.
var NetworkingCRDs = []string{"ipam.liqo.io_ips.yaml", "networking.liqo.io_configurations.yaml"}

// InstallNetworkingCRDs applies only NetworkingCRDs of Liqo release (""
// = LiqoVersion), from its chart's liqo-crds subchart, and waits until the
// API server serves them: a lab cluster gets Liqo's networking API without
// the rest of Liqo.
func InstallNetworkingCRDs(ctx context.Context, cfg *rest.Config, release string) error {
	b, err := find(release)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "liqo-networking-crds-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for _, name := range NetworkingCRDs {
		raw, err := os.ReadFile(filepath.Join(b.dir, "crds", name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), raw, 0o600); err != nil {
			return err
		}
	}
	return b.ApplyCRDs(ctx, cfg, dir)
}

// ProxyServiceName is the Service of Liqo's API server proxy
// (templates/liqo-proxy-service.yaml: liqo.prefixedName of "proxy").
const ProxyServiceName = "liqo-proxy"

// proxyLabels are the chart's selector labels of the proxy (liqo.selectorLabels,
// release "liqo"), which liqo-controller-manager finds its Service by.
var proxyLabels = map[string]string{"app.kubernetes.io/name": "proxy", "app.kubernetes.io/instance": "liqo-proxy",
	"app.kubernetes.io/component": "networking", "app.kubernetes.io/part-of": "liqo"}

// ServeAPIServerProxy makes, in the Liqo namespace of provider, what
// Liqo leaves there for in-band peering: the liqo-proxy Service
// (app.kubernetes.io/name=proxy, port 8118), and the IP api-server-proxy
// that liqo-controller-manager creates with the Service's ClusterIP
// (spec.ip), remapped by Liqo's IPAM to remapped in the external CIDR
// externalCIDR (status). It returns the ClusterIP.
func ServeAPIServerProxy(ctx context.Context, provider *kube.Cluster, remapped, externalCIDR string) (string, error) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: ProxyServiceName, Namespace: provider.Namespace,
		Labels: proxyLabels},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Selector: proxyLabels,
			Ports: []corev1.ServicePort{{Name: "http", Port: 8118, TargetPort: intstr.FromInt32(8118), Protocol: corev1.ProtocolTCP}}}}
	svc, err := provider.Kube.CoreV1().Services(provider.Namespace).Create(ctx, svc, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	ip := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "ipam.liqo.io/v1alpha1", "kind": "IP",
		"metadata": map[string]any{"name": kube.APIServerProxyIPName, "namespace": provider.Namespace,
			"labels":      map[string]any{"ipam.liqo.io/ip-type": kube.APIServerProxyIPName},
			"annotations": map[string]any{"liqo.io/preinstalled": "true"}},
		"spec": map[string]any{"ip": svc.Spec.ClusterIP},
	}}
	if remapped != "" {
		ip.Object["status"] = map[string]any{"ip": remapped, "cidr": externalCIDR}
	}
	return svc.Spec.ClusterIP, createWithStatus(ctx, provider.Config, kube.LiqoIPs, ip)
}

// PeerCIDRs are a peer's CIDRs in a Configuration: declared by the peer, and as the local
// cluster remapped them.
type PeerCIDRs struct {
	Pod, External, RemappedPod, RemappedExternal string
}

// ConfigureNetwork makes, on local, the Configuration Liqo's networking
// module keeps for remoteID in its tenant namespace (created as Liqo
// does when missing), labelled liqo.io/remote-cluster-id: the remote
// CIDRs and, when remapped, their remapping with Liqo v1.2's
// NetworkCIDRsConfigured condition.
func ConfigureNetwork(ctx context.Context, local *kube.Cluster, remoteID string, cidrs PeerCIDRs, remapped bool) error {
	ns, _, err := local.EnsureTenantNamespace(ctx, remoteID)
	if err != nil {
		return err
	}
	conf := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "networking.liqo.io/v1beta1", "kind": "Configuration",
		"metadata": map[string]any{"name": remoteID, "namespace": ns.Name,
			"labels": map[string]any{kube.RemoteClusterIDLabel: remoteID}},
		"spec": map[string]any{"remote": map[string]any{"cidr": map[string]any{
			"pod": []any{cidrs.Pod}, "external": []any{cidrs.External}}}},
	}}
	if remapped {
		conf.Object["status"] = map[string]any{
			"remote": map[string]any{"cidr": map[string]any{"pod": []any{cidrs.RemappedPod}, "external": []any{cidrs.RemappedExternal}}},
			"conditions": []any{map[string]any{"type": kube.NetworkCIDRsConfigured, "status": "True", "observedGeneration": int64(1),
				"reason": "NetworkCIDRsConfigured", "message": "network CIDRs configured", "lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}},
		}
	}
	return createWithStatus(ctx, local.Config, kube.LiqoConfigurations, conf)
}

// createWithStatus creates obj, then writes its status (a subresource of
// Liqo's CRDs) when it has one.
func createWithStatus(ctx context.Context, cfg *rest.Config, gvr schema.GroupVersionResource, obj *unstructured.Unstructured) error {
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	res := dc.Resource(gvr).Namespace(obj.GetNamespace())
	status, hasStatus := obj.Object["status"]
	delete(obj.Object, "status")
	created, err := res.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating %s %s/%s: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
	}
	if !hasStatus {
		return nil
	}
	if conds, ok := status.(map[string]any)["conditions"].([]any); ok {
		for _, c := range conds {
			c.(map[string]any)["observedGeneration"] = created.GetGeneration()
		}
	}
	created.Object["status"] = status
	if _, err := res.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("writing the status of %s %s/%s: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
	}
	return nil
}
