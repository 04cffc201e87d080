package main

import (
	"bufio"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	cdx "github.com/CycloneDX/cyclonedx-go"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Each image in the index holds a static binary of its own architecture
// (unpacked, never run for arm64), and the layout holds one SBOM per image,
// attached to it as a referrer, that describes exactly that binary: its
// SHA-256, the main module, and the dependencies at go.mod's versions.
func TestPlatforms(t *testing.T) {
	requireBuilt(t)
	machines := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}
	referrers := sbomReferrers(t, built.ociDir)
	clientGo := requiredVersion(t, "../../go.mod", "k8s.io/client-go")
	for arch, img := range platformImages(t, built.ociDir) {
		t.Run("linux/"+arch, func(t *testing.T) {
			cf, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			if cf.OS != "linux" || cf.Architecture != arch {
				t.Errorf("config platform %s/%s", cf.OS, cf.Architecture)
			}
			bin := filepath.Join(t.TempDir(), binaryName)
			unpack(t, img, filepath.Dir(bin))
			assertStatic(t, bin)
			f, err := elf.Open(bin)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Machine != machines[arch] {
				t.Errorf("binary machine %v, want %v", f.Machine, machines[arch])
			}

			digest, err := img.Digest()
			if err != nil {
				t.Fatal(err)
			}
			bom := referrers[digest]
			if bom == nil {
				t.Fatalf("no SBOM referrer with subject %s", digest)
			}
			app := bom.Metadata.Component
			contents, err := os.ReadFile(bin)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(contents)
			if app.Hashes == nil || len(*app.Hashes) != 1 || (*app.Hashes)[0].Value != hex.EncodeToString(sum[:]) {
				t.Errorf("SBOM hashes %v, want the binary's SHA-256 %x", app.Hashes, sum)
			}
			wantApp := "pkg:golang/github.com/liqo-auth-tui/liqo-auth-tui@" + testVersion + "?goarch=" + arch + "&goos=linux&type=module"
			if app.Name != binaryName || app.PackageURL != wantApp {
				t.Errorf("SBOM describes %s %s, want %s %s", app.Name, app.PackageURL, binaryName, wantApp)
			}
			libs := map[string]cdx.Component{}
			for _, c := range *bom.Components {
				libs[c.Name] = c
			}
			if c := libs["k8s.io/client-go"]; c.Version != clientGo || c.PackageURL != "pkg:golang/k8s.io/client-go@"+clientGo+"?type=module" ||
				c.Hashes == nil || len((*c.Hashes)[0].Value) != 64 {
				t.Errorf("SBOM's client-go %+v, want version %s (go.mod) and its go.sum hash", c, clientGo)
			}
			if v := libs["std"].Version; v != runtime.Version() {
				t.Errorf("SBOM's standard library %q, want %s", v, runtime.Version())
			}
		})
	}
	if len(referrers) != 2 {
		t.Errorf("%d SBOM referrers, want one per image", len(referrers))
	}
}

// sbomReferrers decodes each SBOM the layout lists, by its subject's digest.
func sbomReferrers(t *testing.T, dir string) map[v1.Hash]*cdx.BOM {
	t.Helper()
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	root, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := root.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	boms := map[v1.Hash]*cdx.BOM{}
	for _, d := range m.Manifests {
		if d.ArtifactType != sbomMediaType {
			continue
		}
		img, err := root.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		am, err := img.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		if am.ArtifactType != sbomMediaType || am.Config.MediaType != types.OCIEmptyJSON || am.Subject == nil ||
			len(am.Layers) != 1 || string(am.Layers[0].MediaType) != sbomMediaType {
			t.Fatalf("SBOM manifest %s: %+v", d.Digest, am)
		}
		rc, err := p.Blob(am.Layers[0].Digest)
		if err != nil {
			t.Fatal(err)
		}
		bom := new(cdx.BOM)
		err = cdx.NewBOMDecoder(rc, cdx.BOMFileFormatJSON).Decode(bom)
		rc.Close()
		if err != nil {
			t.Fatalf("SBOM %s: %v", am.Layers[0].Digest, err)
		}
		if bom.Metadata == nil || bom.Metadata.Component == nil || bom.Components == nil {
			t.Fatalf("SBOM %s has no component or no components", am.Layers[0].Digest)
		}
		boms[am.Subject.Digest] = bom
	}
	return boms
}

// requiredVersion is the version go.mod requires of a module.
func requiredVersion(t *testing.T, goMod, module string) string {
	t.Helper()
	f, err := os.Open(goMod)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "require ")); len(fields) >= 2 && fields[0] == module {
			return fields[1]
		}
	}
	t.Fatalf("%s requires no %s", goMod, module)
	return ""
}
