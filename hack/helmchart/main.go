// Command helmchart keeps the controller's Helm chart (assets/deploy) and
// the plain manifests of its kustomization one source:
//
//	go run . generate        # renders templates/controller/ into controller/ (hack/generate.sh)
//	go run . package -version V -dest DIR   # the chart archive, stamped with V (make chart)
//
// Its tests lint and render the chart and install it into a real
// kube-apiserver. A module of its own: Helm's SDK stays out of the main
// module and the released binaries.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
)

// chartDir is the chart, relative to this module.
const chartDir = "../../assets/deploy"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "helmchart:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: helmchart generate | package -version V -dest DIR")
	}
	switch args[0] {
	case "generate":
		return generate(chartDir)
	case "package":
		fs := flag.NewFlagSet("package", flag.ContinueOnError)
		version := fs.String("version", "", "release version (git describe), stamped as the chart version and appVersion")
		dest := fs.String("dest", "../../dist", "folder receiving the archive")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		file, err := packageChart(chartDir, *version, *dest)
		if err == nil {
			fmt.Println(file)
		}
		return err
	}
	return fmt.Errorf("unknown command %q: generate or package", args[0])
}

// generate writes the plain manifests rendered from the chart into
// controller/, removing those the chart no longer renders.
func generate(dir string) error {
	chrt, err := loader.Load(dir)
	if err != nil {
		return err
	}
	plain, err := renderPlain(chrt)
	if err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, plainDir, "*.yaml"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if _, ok := plain[filepath.Base(f)]; !ok {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	for _, name := range sortedKeys(plain) {
		if err := os.WriteFile(filepath.Join(dir, plainDir, name), plain[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// semver is what Helm accepts as a chart version.
var semver = regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// packageChart saves the chart archive with version as its version and
// appVersion (so that the image tag defaults to the release's). A version
// that is no SemVer (an untagged commit) becomes 0.0.0-<version>.
func packageChart(dir, version, dest string) (string, error) {
	v := strings.TrimPrefix(version, "v")
	if !semver.MatchString(v) {
		v = "0.0.0-" + version // an untagged build (git describe gave a commit): a pre-release
	}
	if !semver.MatchString(v) {
		return "", fmt.Errorf("-version %q: a chart needs a SemVer version such as v1.2.3", version)
	}
	chrt, err := loader.Load(dir)
	if err != nil {
		return "", err
	}
	chrt.Metadata.Version = v
	chrt.Metadata.AppVersion = version
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return "", err
	}
	return chartutil.Save(chrt, dest)
}
