package main

import (
	"bytes"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
)

// sbomMediaType is the SBOM blob's media type and its manifest's artifactType.
var sbomMediaType = cdx.MediaTypeJSON.String()

// binarySBOM describes the binary as CycloneDX JSON from the module
// information Go stamps into it: exactly what was linked (the main module,
// each dependency at its version and go.sum hash, the Go standard library),
// not what go.mod lists. Nothing in it varies between identical builds.
func binarySBOM(s spec, bin string) ([]byte, error) {
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", bin, err)
	}
	contents, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(contents)
	var goos, goarch string
	var props []cdx.Property
	for _, b := range info.Settings {
		props = append(props, cdx.Property{Name: "cdx:gomod:build:" + b.Key, Value: b.Value})
		switch b.Key {
		case "GOOS":
			goos = b.Value
		case "GOARCH":
			goarch = b.Value
		}
	}
	// The main module's version is the one stamped into the binary.
	app := cdx.Component{Type: cdx.ComponentTypeApplication, Name: binaryName, Version: s.version,
		PackageURL: purl(info.Main.Path, s.version, "goarch="+goarch+"&goos="+goos+"&type=module"),
		Hashes:     &[]cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: hex.EncodeToString(sum[:])}},
		Properties: &props}
	app.BOMRef = app.PackageURL

	// The toolchain's version names the standard library linked in, which
	// vulnerability scanners look up like any module.
	components := []cdx.Component{module("std", info.GoVersion, "")}
	for _, dep := range info.Deps {
		if dep.Replace != nil { // what was linked
			dep = dep.Replace
		}
		components = append(components, module(dep.Path, dep.Version, dep.Sum))
	}

	bom := cdx.NewBOM()
	bom.Metadata = &cdx.Metadata{
		Timestamp: s.created.Format(time.RFC3339),
		Tools:     &cdx.ToolsChoice{Components: &[]cdx.Component{{Type: cdx.ComponentTypeApplication, Name: "liqo-auth-tui hack/image"}}},
		Component: &app,
	}
	bom.Components = &components
	var buf bytes.Buffer
	if err := cdx.NewBOMEncoder(&buf, cdx.BOMFileFormatJSON).SetPretty(true).SetEscapeHTML(false).Encode(bom); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// module is a Go module as a library component, named by its package URL
// (pkg:golang/PATH@VERSION?type=module, as cyclonedx-gomod names them).
// Its go.sum hash (h1:, base64 of a SHA-256 over the module's files) is
// given as that SHA-256 in hex.
func module(path, version, goSum string) cdx.Component {
	c := cdx.Component{Type: cdx.ComponentTypeLibrary, Name: path, Version: version, PackageURL: purl(path, version, "type=module")}
	c.BOMRef = c.PackageURL
	if h, ok := strings.CutPrefix(goSum, "h1:"); ok {
		if b, err := base64.StdEncoding.DecodeString(h); err == nil {
			c.Hashes = &[]cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: hex.EncodeToString(b)}}
		}
	}
	return c
}

// purl is a module's package URL; qualifiers are sorted by key. Module
// paths hold only characters a purl keeps as they are; of a version's
// characters only "+" (+incompatible) must be escaped.
func purl(path, version, qualifiers string) string {
	return "pkg:golang/" + path + "@" + strings.ReplaceAll(version, "+", "%2B") + "?" + qualifiers
}
