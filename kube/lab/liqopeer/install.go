package liqopeer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiext "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/yaml"
)

// fieldManager owns what the harness applies.
const fieldManager = "liqo-peer-harness"

// What Liqo's Helm chart names (templates/liqo-clusterid-configmap.yaml and
// _helpers.tpl, release "liqo", tag v1.2.0): this project's code must find
// Liqo's objects by these, so they are written here as Liqo writes them.
const (
	ClusterIDConfigMapName = "liqo-clusterid-configmap"
	clusterIDKey           = "CLUSTER_ID"
)

// chartLabels are the labels the chart puts on the component name of module.
func chartLabels(name, module string) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":       name,
		"app.kubernetes.io/instance":   "liqo-" + name,
		"app.kubernetes.io/component":  module,
		"app.kubernetes.io/part-of":    "liqo",
		"helm.sh/chart":                "liqo-" + LiqoVersion,
		"app.kubernetes.io/version":    LiqoVersion,
		"app.kubernetes.io/managed-by": "Helm",
	}
}

// Install makes the cluster look as Liqo's Helm chart leaves it, as far as
// the authentication module goes: all of Liqo's CRDs (its controllers'
// REST mapper needs every Liqo group; the ForeignCluster CRD is what this
// project's kube.Cluster.LiqoInstalled looks for), the Liqo namespace, the
// cluster-ID ConfigMap and the ClusterRoles the Tenant controller binds.
// The authentication-keys Secret is left to liqo-peer, which creates it as
// liqo-controller-manager does. Idempotent; a different existing cluster ID
// is an error.
func Install(ctx context.Context, cfg *rest.Config, namespace, clusterID string) error {
	if err := InstallCRDs(ctx, cfg); err != nil {
		return err
	}
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	dir, err := Dir()
	if err != nil {
		return err
	}
	roles, err := readManifests(filepath.Join(dir, "clusterroles"))
	if err != nil {
		return err
	}
	for name, body := range roles {
		if _, err := kc.RbacV1().ClusterRoles().Patch(ctx, name, types.ApplyPatchType, body, applyOptions()); err != nil {
			return fmt.Errorf("applying Liqo's ClusterRole %s: %w", name, err)
		}
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if _, err := kc.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", namespace, err)
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: ClusterIDConfigMapName, Namespace: namespace,
			Labels: chartLabels("clusterid-configmap", "clusterid-configmap")},
		Data: map[string]string{clusterIDKey: clusterID},
	}
	_, err = kc.CoreV1().ConfigMaps(namespace).Create(ctx, cm, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		old, getErr := kc.CoreV1().ConfigMaps(namespace).Get(ctx, cm.Name, metav1.GetOptions{})
		if getErr != nil {
			return getErr
		}
		if old.Data[clusterIDKey] != clusterID {
			return fmt.Errorf("namespace %s already holds cluster ID %q, not %q", namespace, old.Data[clusterIDKey], clusterID)
		}
		return nil
	}
	return err
}

// InstallCRDs applies Liqo's own CRDs (from the chart's liqo-crds
// subchart) and waits until the API server serves them all.
func InstallCRDs(ctx context.Context, cfg *rest.Config) error {
	dir, err := Dir()
	if err != nil {
		return err
	}
	crds, err := readManifests(filepath.Join(dir, "crds"))
	if err != nil {
		return err
	}
	client, err := apiext.NewForConfig(cfg)
	if err != nil {
		return err
	}
	api := client.ApiextensionsV1().CustomResourceDefinitions()
	for name, body := range crds {
		if _, err := api.Patch(ctx, name, types.ApplyPatchType, body, applyOptions()); err != nil {
			return fmt.Errorf("applying Liqo's CRD %s: %w", name, err)
		}
	}
	for name := range crds {
		lw := &cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				o.FieldSelector = "metadata.name=" + name
				return api.List(ctx, o)
			},
			WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				o.FieldSelector = "metadata.name=" + name
				return api.Watch(ctx, o)
			},
		}
		if _, err := watchtools.UntilWithSync(ctx, lw, &apiextv1.CustomResourceDefinition{}, nil, established); err != nil {
			return fmt.Errorf("waiting for Liqo's CRD %s to be established: %w", name, err)
		}
	}
	return nil
}

// established is the condition of a CRD the API server serves.
func established(ev watch.Event) (bool, error) {
	crd, ok := ev.Object.(*apiextv1.CustomResourceDefinition)
	if !ok {
		return false, nil
	}
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextv1.Established && c.Status == apiextv1.ConditionTrue {
			return true, nil
		}
	}
	return false, nil
}

// readManifests reads the one-object YAML files of dir as JSON, by object name.
func readManifests(dir string) (map[string][]byte, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no manifests in %s: rebuild with `%s`", dir, InstallHint)
	}
	out := make(map[string][]byte, len(files))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		body, err := yaml.YAMLToJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		var meta struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		if err := yaml.Unmarshal(body, &meta); err != nil || meta.Metadata.Name == "" {
			return nil, fmt.Errorf("%s: no metadata.name (%v)", f, err)
		}
		out[meta.Metadata.Name] = body
	}
	return out, nil
}

func applyOptions() metav1.PatchOptions {
	force := true
	return metav1.PatchOptions{FieldManager: fieldManager, Force: &force}
}
