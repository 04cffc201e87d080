package liqoproc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiext "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/yaml"
)

// ReadManifests reads the one-object YAML files of dir as JSON, by object
// name; a folder without any says to rebuild.
func (b Build) ReadManifests(dir string) (map[string][]byte, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no manifests in %s: rebuild with `%s`", dir, b.Hint)
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

// ApplyOptions are the server-side apply options of the build's field manager.
func (b Build) ApplyOptions() metav1.PatchOptions {
	force := true
	return metav1.PatchOptions{FieldManager: b.FieldManager, Force: &force}
}

// ApplyCRDs server-side applies the CRDs of dir and waits until the API
// server serves them all (Established).
func (b Build) ApplyCRDs(ctx context.Context, cfg *rest.Config, dir string) error {
	crds, err := b.ReadManifests(dir)
	if err != nil {
		return err
	}
	client, err := apiext.NewForConfig(cfg)
	if err != nil {
		return err
	}
	api := client.ApiextensionsV1().CustomResourceDefinitions()
	for name, body := range crds {
		if _, err := api.Patch(ctx, name, types.ApplyPatchType, body, b.ApplyOptions()); err != nil {
			return fmt.Errorf("applying %s's CRD %s: %w", b.Label, name, err)
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
			return fmt.Errorf("waiting for %s's CRD %s to be established: %w", b.Label, name, err)
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
