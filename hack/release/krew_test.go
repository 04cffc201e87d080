package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/krew/pkg/index"
	"sigs.k8s.io/yaml"
)

// krewTools builds krew's own manifest validator and krew (its validation
// package is internal to its module): the go.mod's tool directives pin them.
var krewTools = sync.OnceValues(func() (string, error) {
	dir := filepath.Join(testRoot, "krew")
	out, err := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"sigs.k8s.io/krew/cmd/krew", "sigs.k8s.io/krew/cmd/validate-krew-manifest").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building krew: %v\n%s", err, out)
	}
	return dir, nil
})

func mustKrewTools(t *testing.T) string {
	t.Helper()
	dir, err := krewTools()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// validateManifest runs krew's validate-krew-manifest (structure, every
// platform selector matching a platform krew supports, none overlapping);
// installing is what TestKrewInstallsTheHostArchive does, from the archive.
func validateManifest(t *testing.T, manifest string) error {
	t.Helper()
	out, err := exec.Command(filepath.Join(mustKrewTools(t), "validate-krew-manifest"),
		"-manifest", manifest, "-skip-install").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

// The manifest of a full release (every CLI archive) passes krew's own
// validation, and lists each platform's archive, checksum and binary.
func TestKrewManifestOfAFullRelease(t *testing.T) {
	sums := map[string]string{}
	var want []target
	for i, tg := range targets() {
		sums[tg.archive(testVersion)] = strings.Repeat(fmt.Sprintf("%x", i), 64)
		if tg.binary == project {
			want = append(want, tg)
		}
	}
	manifest := filepath.Join(t.TempDir(), pluginManifest)
	if err := writeKrewManifest(manifest, testVersion, "https://example.com/dl/", sums); err != nil {
		t.Fatal(err)
	}
	if err := validateManifest(t, manifest); err != nil {
		t.Fatalf("krew rejects the manifest: %v", err)
	}

	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var p index.Plugin
	if err := yaml.UnmarshalStrict(b, &p); err != nil {
		t.Fatalf("manifest has fields krew does not know: %v\n%s", err, b)
	}
	if p.Name != "liqo-auth" || p.Spec.Version != testVersion || len(p.Spec.Platforms) != len(want) {
		t.Fatalf("plugin %s %s with %d platforms, want liqo-auth %s with %d:\n%s", p.Name, p.Spec.Version, len(p.Spec.Platforms), testVersion, len(want), b)
	}
	for i, tg := range want {
		pl := p.Spec.Platforms[i]
		sel := pl.Selector.MatchLabels
		if pl.URI != "https://example.com/dl/"+tg.archive(testVersion) || pl.Sha256 != sums[tg.archive(testVersion)] ||
			pl.Bin != tg.file() || sel["os"] != tg.goos || sel["arch"] != tg.goarch || pl.Files != nil {
			t.Errorf("platform %d: %+v, selector %v; want %s's archive", i, pl, sel, tg.platform())
		}
	}
	if strings.Contains(string(b), "null") {
		t.Errorf("manifest prints nulls:\n%s", b)
	}

	// The validator does validate: a version without its v is refused.
	bad := filepath.Join(t.TempDir(), pluginManifest)
	if err := os.WriteFile(bad, []byte(strings.Replace(string(b), "version: "+testVersion, "version: 9.8.7", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := validateManifest(t, bad); err == nil || !strings.Contains(err.Error(), "version") {
		t.Errorf("krew accepts a version without v: %v", err)
	}
}

// krew installs the host's archive with the release's manifest (checking
// its SHA-256 and the bin), links it as kubectl-liqo_auth, and kubectl runs
// it as `kubectl liqo-auth`.
func TestKrewInstallsTheHostArchive(t *testing.T) {
	c := mustHostRelease(t)
	manifest := filepath.Join(c.dist, pluginManifest)
	if err := validateManifest(t, manifest); err != nil {
		t.Fatalf("krew rejects the manifest: %v", err)
	}
	root := t.TempDir()
	env := append(os.Environ(), "KREW_ROOT="+root, "KREW_NO_UPGRADE_CHECK=1")
	install := exec.Command(filepath.Join(mustKrewTools(t), "krew"), "install",
		"--manifest="+manifest, "--archive="+filepath.Join(c.dist, hostCLI().archive(testVersion)))
	install.Env = env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("krew install: %v\n%s", err, out)
	}

	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl runs the plugin: %v (make test needs kubectl, as CI installs it)", err)
	}
	run := exec.Command(kubectl, "liqo-auth", "version", "-o", "json")
	run.Env = append(env, "PATH="+filepath.Join(root, "bin")+string(filepath.ListSeparator)+os.Getenv("PATH"))
	out, err := run.Output()
	if err != nil {
		t.Fatalf("kubectl liqo-auth version: %v", err)
	}
	var info struct{ Version string }
	if err := json.Unmarshal(out, &info); err != nil || info.Version != testVersion {
		t.Errorf("kubectl liqo-auth version: %q (%v), want %s", out, err, testVersion)
	}
}
