package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/krew/pkg/constants"
	"sigs.k8s.io/krew/pkg/index"
	"sigs.k8s.io/yaml"
)

// The plugin's name: krew links it as kubectl-liqo_auth, which kubectl runs
// as `kubectl liqo-auth`. The manifest must be named <plugin>.yaml.
const (
	pluginName     = "liqo-auth"
	pluginManifest = pluginName + ".yaml"
	homepage       = "https://github.com/liqo-auth-tui/liqo-auth-tui"
)

const description = `Authenticates a Liqo consumer cluster with a provider cluster: the
provider makes a nonce, the consumer signs it and sends a Tenant, the
provider has the CSR signed and answers with an Identity, and the consumer
ends up with a kubeconfig Secret that reaches the provider with narrow
permissions. Run without arguments for the interactive wizard, or with
--batch in scripts; wire-compatible with Liqo v1.x and also usable on
clusters without Liqo.
`

// krewPlugin is the manifest for the CLI's archives in sums (archive name
// to SHA-256), downloaded from releaseURL/<archive>.
func krewPlugin(version, releaseURL string, sums map[string]string) (index.Plugin, error) {
	p := index.Plugin{
		TypeMeta:   metav1.TypeMeta{APIVersion: constants.CurrentAPIVersion, Kind: constants.PluginKind},
		ObjectMeta: metav1.ObjectMeta{Name: pluginName},
		Spec: index.PluginSpec{
			Version:          version,
			ShortDescription: "Authenticate Liqo clusters with each other (wizard or batch)",
			Description:      description,
			Homepage:         homepage,
		},
	}
	for _, t := range targets() {
		if t.binary != project {
			continue
		}
		name := t.archive(version)
		sum, ok := sums[name]
		if !ok {
			continue // a release of some platforms only (the tests' host build)
		}
		p.Spec.Platforms = append(p.Spec.Platforms, index.Platform{
			URI:    strings.TrimSuffix(releaseURL, "/") + "/" + name,
			Sha256: sum,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{
				"os": t.goos, "arch": t.goarch}},
			Bin: t.file(),
		})
	}
	if len(p.Spec.Platforms) == 0 {
		return p, fmt.Errorf("no %s archive to list in the krew manifest", project)
	}
	return p, nil
}

// marshalPlugin is p as YAML, without the nulls its types print
// (metadata.creationTimestamp, and files: krew then installs every file of
// the archive).
func marshalPlugin(p index.Plugin) ([]byte, error) {
	j, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var m any
	if err := json.Unmarshal(j, &m); err != nil {
		return nil, err
	}
	return yaml.Marshal(dropNulls(m))
}

func dropNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if e == nil {
				delete(v, k)
			} else {
				v[k] = dropNulls(e)
			}
		}
	case []any:
		for i, e := range v {
			v[i] = dropNulls(e)
		}
	}
	return v
}

func writeKrewManifest(path, version, releaseURL string, sums map[string]string) error {
	p, err := krewPlugin(version, releaseURL, sums)
	if err != nil {
		return err
	}
	b, err := marshalPlugin(p)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
