// Command compare-upstream is a developer check (not part of the test suite):
// it compares our generated CRDs (assets/deploy/crds), ClusterRoles (assets/deploy/rbac)
// and peering-user roles (assets/deploy/peering-user) with the upstream Liqo copies kept outside the project
// (../shared/upstream-liqo-crds by default).
//
// CRDs are compared semantically: both files are parsed, every string
// "description" field and the controller-gen version annotation are dropped,
// and the remaining trees must be equal. ClusterRoles are compared on their
// rule lists (upstream's files contain only `rules:`).
//
// Usage (from the repository root):
//
//	go run ./hack/compare-upstream [-upstream DIR] [-crds DIR] [-rbac DIR] [-peering-user DIR]
//
// It prints every difference and exits with status 1 if there is any.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

const versionAnnotation = "controller-gen.kubebuilder.io/version"

func main() {
	upstream := flag.String("upstream", "../shared/upstream-liqo-crds", "folder holding the upstream Liqo CRDs and rule files")
	crds := flag.String("crds", "assets/deploy/crds", "folder holding our CRDs")
	rbac := flag.String("rbac", "assets/deploy/rbac", "folder holding our ClusterRoles")
	peering := flag.String("peering-user", "assets/deploy/peering-user", "folder holding our peering-user Role and ClusterRole")
	flag.Parse()

	diffs, err := run(*upstream, *crds, *rbac, *peering)
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare-upstream:", err)
		os.Exit(2)
	}
	if diffs > 0 {
		fmt.Printf("%d difference(s) found\n", diffs)
		os.Exit(1)
	}
	fmt.Println("no difference")
}

func run(upstreamDir, crdDir, rbacDir, peeringDir string) (int, error) {
	diffs := 0

	upCRDs, err := filepath.Glob(filepath.Join(upstreamDir, "authentication.liqo.io_*.yaml"))
	if err != nil {
		return 0, err
	}
	ourCRDs, err := filepath.Glob(filepath.Join(crdDir, "*.yaml"))
	if err != nil {
		return 0, err
	}
	if len(upCRDs) == 0 {
		return 0, fmt.Errorf("no upstream CRD in %s", upstreamDir)
	}
	diffs += compareSets("CRD", upCRDs, ourCRDs)
	for _, up := range upCRDs {
		ours := filepath.Join(crdDir, filepath.Base(up))
		if _, err := os.Stat(ours); err != nil {
			continue // already reported by compareSets
		}
		u, err := load(up)
		if err != nil {
			return 0, err
		}
		o, err := load(ours)
		if err != nil {
			return 0, err
		}
		fmt.Printf("CRD %s: upstream controller-gen %v, ours %v\n", filepath.Base(up), annotation(u), annotation(o))
		n := diff(filepath.Base(up), normalizeCRD(u), normalizeCRD(o))
		if n == 0 {
			fmt.Printf("CRD %s: equal (descriptions and controller-gen version ignored)\n", filepath.Base(up))
		}
		diffs += n
	}

	ourRoles, err := filepath.Glob(filepath.Join(rbacDir, "*ClusterRole.yaml"))
	if err != nil {
		return 0, err
	}
	peeringRoles, err := filepath.Glob(filepath.Join(peeringDir, "*Role.yaml"))
	if err != nil {
		return 0, err
	}
	ourRoles = append(ourRoles, peeringRoles...)
	if len(ourRoles) == 0 {
		return 0, fmt.Errorf("no ClusterRole in %s", rbacDir)
	}
	for _, ours := range ourRoles {
		up := filepath.Join(upstreamDir, filepath.Base(ours))
		o, err := load(ours)
		if err != nil {
			return 0, err
		}
		u, err := load(up)
		if err != nil {
			fmt.Printf("RBAC %s: no upstream rule file: %v\n", filepath.Base(ours), err)
			diffs++
			continue
		}
		om, _ := o.(map[string]any)
		um, _ := u.(map[string]any)
		n := diff(filepath.Base(ours)+":rules", um["rules"], om["rules"])
		if n == 0 {
			fmt.Printf("RBAC %s: rules equal\n", filepath.Base(ours))
		}
		diffs += n
	}
	return diffs, nil
}

func compareSets(what string, upstream, ours []string) int {
	base := func(paths []string) map[string]bool {
		m := map[string]bool{}
		for _, p := range paths {
			m[filepath.Base(p)] = true
		}
		return m
	}
	u, o := base(upstream), base(ours)
	n := 0
	for name := range u {
		if !o[name] {
			fmt.Printf("%s %s: missing in ours\n", what, name)
			n++
		}
	}
	for name := range o {
		if !u[name] {
			fmt.Printf("%s %s: not upstream\n", what, name)
			n++
		}
	}
	return n
}

func load(path string) (any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	return v, nil
}

func annotation(v any) any {
	m, _ := v.(map[string]any)
	md, _ := m["metadata"].(map[string]any)
	an, _ := md["annotations"].(map[string]any)
	return an[versionAnnotation]
}

// normalizeCRD drops the controller-gen version annotation and every string
// "description" (a property *named* description would be an object schema
// and is kept).
func normalizeCRD(v any) any {
	if m, ok := v.(map[string]any); ok {
		if md, ok := m["metadata"].(map[string]any); ok {
			if an, ok := md["annotations"].(map[string]any); ok {
				delete(an, versionAnnotation)
				if len(an) == 0 {
					delete(md, "annotations")
				}
			}
		}
	}
	return dropDescriptions(v)
}

func dropDescriptions(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			if _, isString := val.(string); isString && k == "description" {
				continue
			}
			out[k] = dropDescriptions(val)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = dropDescriptions(val)
		}
		return out
	default:
		return v
	}
}

// diff prints the differences between upstream (u) and ours (o) and returns
// how many it found.
func diff(path string, u, o any) int {
	switch ut := u.(type) {
	case map[string]any:
		ot, ok := o.(map[string]any)
		if !ok {
			return report(path, u, o)
		}
		keys := map[string]bool{}
		for k := range ut {
			keys[k] = true
		}
		for k := range ot {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		n := 0
		for _, k := range sorted {
			uv, uok := ut[k]
			ov, ook := ot[k]
			switch {
			case !ook:
				fmt.Printf("  %s.%s: only upstream: %s\n", path, k, short(uv))
				n++
			case !uok:
				fmt.Printf("  %s.%s: only ours: %s\n", path, k, short(ov))
				n++
			default:
				n += diff(path+"."+k, uv, ov)
			}
		}
		return n
	case []any:
		ot, ok := o.([]any)
		if !ok || len(ot) != len(ut) {
			return report(path, u, o)
		}
		n := 0
		for i := range ut {
			n += diff(fmt.Sprintf("%s[%d]", path, i), ut[i], ot[i])
		}
		return n
	default:
		if !reflect.DeepEqual(u, o) {
			return report(path, u, o)
		}
		return 0
	}
}

func report(path string, u, o any) int {
	fmt.Printf("  %s:\n    upstream: %s\n    ours:     %s\n", path, short(u), short(o))
	return 1
}

func short(v any) string {
	b, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSpace(string(b))
	if strings.Contains(s, "\n") {
		s = strings.ReplaceAll(s, "\n", "\n              ")
	}
	return s
}
