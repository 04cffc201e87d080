package realliqo0x

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqoproc"
)

// What Liqo v0.10.1's Helm chart (release "liqo" in namespace "liqo") and
// its code name: this project must find Liqo 0.x's objects by these, so they
// are written here as Liqo writes them.
const (
	Namespace              = "liqo"
	ClusterIDConfigMapName = "liqo-clusterid-configmap"
	AuthServiceName        = "liqo-auth"
	AuthTokenSecretName    = "auth-token"
	// NodeName is the one Ready Node Install creates: the provider's
	// controller-manager panics on an incoming ResourceRequest without Nodes.
	NodeName = "liqo0x-node"

	overrideAddressAnnotation = "liqo.io/override-address"
	overridePortAnnotation    = "liqo.io/override-port"
	peeringPermissionLabel    = "auth.liqo.io/remote-peering-permissions"
)

// peeringPermissions are the ClusterRoles liqo-remote-peering-<kind> the auth
// server and the controller-manager bind to remote clusters.
var peeringPermissions = []string{"basic", "incoming", "outgoing"}

// chartLabels are the labels the chart puts on the component name of module
// (_helpers.tpl liqo.labels).
func chartLabels(name, module string) map[string]string {
	return liqoproc.ChartLabels(LiqoVersion, name, module)
}

// InstallOptions say what one Liqo 0.x cluster is.
type InstallOptions struct {
	// ClusterID and ClusterName go to the cluster-ID ConfigMap; the
	// processes of this cluster must be started with the same.
	ClusterID, ClusterName string
	// AuthAddress is host:port of the auth server (StartAuthService's
	// Address): the liqo-auth Service advertises it through the chart's
	// override annotations, as liqoctl reads them.
	AuthAddress string
}

// Install makes the cluster look as Liqo v0.10.1's Helm chart leaves it, as
// far as authentication goes (../shared/liqo-legacy-auth.md §10): Liqo's
// CRDs (applied and Established), namespace liqo, the cluster-ID ConfigMap,
// the liqo-auth Service with the override annotations, the labelled
// remote-peering ClusterRoles (the auth server reads them once at start:
// install before starting it) and one Ready Node. The auth-token Secret is
// left to the auth server, which creates it at start as in a real cluster.
// Idempotent; a different existing cluster ID is an error.
func Install(ctx context.Context, cfg *rest.Config, o InstallOptions) error {
	if o.ClusterID == "" || o.ClusterName == "" {
		return fmt.Errorf("realliqo0x.Install: ClusterID and ClusterName are required")
	}
	host, port, err := net.SplitHostPort(o.AuthAddress)
	if err != nil {
		return fmt.Errorf("realliqo0x.Install: AuthAddress %q: %w", o.AuthAddress, err)
	}
	dir, err := Dir()
	if err != nil {
		return err
	}
	if err := build.ApplyCRDs(ctx, cfg, filepath.Join(dir, "crds")); err != nil {
		return err
	}
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}
	if _, err := kc.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", Namespace, err)
	}
	if err := installClusterID(ctx, kc, o); err != nil {
		return err
	}
	for _, kind := range peeringPermissions {
		if err := installPeeringRole(ctx, kc, filepath.Join(dir, "files"), kind); err != nil {
			return err
		}
	}
	svc := &corev1.Service{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: AuthServiceName, Namespace: Namespace,
			Labels:      withRun(chartLabels("auth", "discovery")),
			Annotations: map[string]string{overrideAddressAnnotation: host, overridePortAnnotation: port}},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: withRun(selectorLabels("auth", "discovery")),
			Ports: []corev1.ServicePort{{Name: "https", Protocol: corev1.ProtocolTCP, Port: 443,
				TargetPort: intstr.FromInt32(8443)}},
		},
	}
	if err := apply(ctx, kc.CoreV1().RESTClient(), "services", Namespace, svc.Name, "", svc); err != nil {
		return err
	}
	return installNode(ctx, kc)
}

// withRun adds the auth server's own label (_helpers.tpl liqo.authServiceLabels).
func withRun(labels map[string]string) map[string]string {
	labels["run"] = "auth-service"
	return labels
}

// selectorLabels is _helpers.tpl liqo.selectorLabels.
func selectorLabels(name, module string) map[string]string {
	all := chartLabels(name, module)
	out := map[string]string{}
	for _, k := range []string{"app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/component", "app.kubernetes.io/part-of"} {
		out[k] = all[k]
	}
	return out
}

func installClusterID(ctx context.Context, kc kubernetes.Interface, o InstallOptions) error {
	cms := kc.CoreV1().ConfigMaps(Namespace)
	old, err := cms.Get(ctx, ClusterIDConfigMapName, metav1.GetOptions{})
	switch {
	case err == nil:
		if old.Data["CLUSTER_ID"] != o.ClusterID {
			return fmt.Errorf("namespace %s already holds cluster ID %q, not %q", Namespace, old.Data["CLUSTER_ID"], o.ClusterID)
		}
	case !apierrors.IsNotFound(err):
		return err
	}
	cm := &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: ClusterIDConfigMapName, Namespace: Namespace,
			Labels: chartLabels("clusterid-configmap", "clusterid-configmap")},
		Data: map[string]string{"CLUSTER_ID": o.ClusterID, "CLUSTER_NAME": o.ClusterName},
	}
	return apply(ctx, kc.CoreV1().RESTClient(), "configmaps", Namespace, cm.Name, "", cm)
}

// installPeeringRole applies ClusterRole liqo-remote-peering-<kind> as
// templates/liqo-remote-peering-rbac.yaml renders it: the chart's labels,
// the permission label, and the rules of the chart's file.
func installPeeringRole(ctx context.Context, kc kubernetes.Interface, filesDir, kind string) error {
	name := "liqo-remote-peering-" + kind
	raw, err := os.ReadFile(filepath.Join(filesDir, name+"-ClusterRole.yaml"))
	if err != nil {
		return fmt.Errorf("reading Liqo's rules of ClusterRole %s (rebuild with `%s`): %w", name, InstallHint, err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.Unmarshal(raw, &role); err != nil {
		return fmt.Errorf("rules of ClusterRole %s: %w", name, err)
	}
	role.TypeMeta = metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"}
	role.Name = name
	role.Labels = chartLabels("remote-peering-"+kind, "discovery")
	role.Labels[peeringPermissionLabel] = kind
	return apply(ctx, kc.RbacV1().RESTClient(), "clusterroles", "", name, "", &role)
}

// installNode applies one Ready Node with some capacity: Liqo's resource
// offers read the Nodes' allocatable resources.
func installNode(ctx context.Context, kc kubernetes.Interface) error {
	resources := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("4"),
		corev1.ResourceMemory: resource.MustParse("8Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	node := &corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: NodeName, Labels: map[string]string{"kubernetes.io/hostname": NodeName}},
	}
	if err := apply(ctx, kc.CoreV1().RESTClient(), "nodes", "", NodeName, "", node); err != nil {
		return err
	}
	node.Status = corev1.NodeStatus{
		Capacity:    resources,
		Allocatable: resources,
		Addresses:   []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}},
		Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
			Reason: "KubeletReady", Message: "a node object of the Liqo 0.x test harness"}},
	}
	return apply(ctx, kc.CoreV1().RESTClient(), "nodes", "", NodeName, "status", node)
}

// apply server-side applies obj (with its TypeMeta set) to resource/name.
func apply(ctx context.Context, rc rest.Interface, resourceName, namespace, name, subresource string, obj runtime.Object) error {
	body, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	opts := build.ApplyOptions()
	req := rc.Patch(types.ApplyPatchType).Resource(resourceName).Name(name).
		VersionedParams(&opts, metav1.ParameterCodec).
		Body(body)
	if namespace != "" {
		req = req.Namespace(namespace)
	}
	if subresource != "" {
		req = req.SubResource(subresource)
	}
	if err := req.Do(ctx).Error(); err != nil {
		return fmt.Errorf("applying %s %s %s: %w", resourceName, name, subresource, err)
	}
	return nil
}

// AuthToken returns the token the auth server of the cluster of cfg created
// (Secret auth-token, key token), as liqoctl generate peer-command reads it.
func AuthToken(ctx context.Context, cfg *rest.Config) (string, error) {
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return "", err
	}
	s, err := kc.CoreV1().Secrets(Namespace).Get(ctx, AuthTokenSecretName, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("reading Liqo's auth token: %w", err)
	}
	if len(s.Data["token"]) == 0 {
		return "", fmt.Errorf("secret %s/%s has no token", Namespace, AuthTokenSecretName)
	}
	return string(s.Data["token"]), nil
}
