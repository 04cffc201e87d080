package architecture

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/liqo-auth-tui/liqo-auth-tui/"

// pkg is one package of the module as go list tells it: its path relative
// to the module, its imports as they are written.
type pkg struct {
	ImportPath string
	Imports    []string // non-test files only: what the product links
}

// modulePackages lists every package of the main module with its non-test
// imports, with the cluster tag (it only adds files).
func modulePackages(t *testing.T) []pkg {
	cmd := exec.Command("go", "list", "-tags", "cluster", "-json=ImportPath,Imports", module+"...")
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		t.Fatalf("go list: %v: %s", err, exit.Stderr)
	}
	require.NoError(t, err)
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		p.ImportPath = strings.TrimPrefix(p.ImportPath, module)
		pkgs = append(pkgs, p)
	}
	require.NotEmpty(t, pkgs)
	return pkgs
}

// under tells whether path is one of dirs or below one.
func under(path string, dirs ...string) bool {
	for _, d := range dirs {
		if path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}

// own tells whether imp is one of this module's packages under dirs
// (relative to the module); with no dir, whether it is this module's at all.
func own(imp string, dirs ...string) bool {
	rel, ok := strings.CutPrefix(imp, module)
	return ok && (len(dirs) == 0 || under(rel, dirs...))
}

// thirdParty tells whether imp is neither the standard library's nor this
// module's (its first element holds a dot).
func thirdParty(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return strings.Contains(first, ".") && !own(imp)
}

// rule is one statement of docs/architecture.md about what a package may
// import: applies picks the packages (by path relative to the module),
// forbidden an import they may not have.
type rule struct {
	name      string
	applies   func(path string) bool
	forbidden func(imp string) bool
}

var rules = []rule{{
	name:      "the front-ends (the commands, the wizard's adapter) import no kube/... and no client-go: they call flows, flows/peerings, flows/liqo0x and flows/doctor",
	applies:   func(p string) bool { return under(p, "cmd/liqo-auth-tui") },
	forbidden: func(imp string) bool { return own(imp, "kube") || under(imp, "k8s.io/client-go") },
}, {
	name:    "tui imports only flows/handshake from this module, and nothing of Kubernetes",
	applies: func(p string) bool { return under(p, "tui") },
	forbidden: func(imp string) bool {
		return (own(imp) && !own(imp, "flows/handshake")) || under(imp, "k8s.io", "sigs.k8s.io")
	},
}, {
	name:      "flows is below the front-ends: it imports no tui and no cmd",
	applies:   func(p string) bool { return under(p, "flows") },
	forbidden: func(imp string) bool { return own(imp, "tui", "cmd") },
}, {
	name:    "flows/handshake is the shared vocabulary: the standard library and apimachinery's util/duration only",
	applies: func(p string) bool { return p == "flows/handshake" },
	forbidden: func(imp string) bool {
		return (thirdParty(imp) || own(imp)) && imp != "k8s.io/apimachinery/pkg/util/duration"
	},
}, {
	name:    "flows/artifact decodes what travels without a Kubernetes client",
	applies: func(p string) bool { return p == "flows/artifact" },
	forbidden: func(imp string) bool {
		return under(imp, "k8s.io/client-go") || (own(imp, "flows", "kube") && !own(imp, "flows/handshake", "kube/apis", "kube/liqo0x/peerinfo"))
	},
}, {
	name:    "flows/liqo0x is below flows: of flows' packages it imports only flows/handshake, flows/artifact and flows/internal/...",
	applies: func(p string) bool { return under(p, "flows/liqo0x") },
	forbidden: func(imp string) bool {
		return own(imp, "flows") && !own(imp, "flows/handshake", "flows/artifact", "flows/internal")
	},
}, {
	name:      "flows/internal/... (the runner, the access reviews) is imported only by flows' own packages",
	applies:   func(p string) bool { return !under(p, "flows") },
	forbidden: func(imp string) bool { return own(imp, "flows/internal") },
}, {
	name:      "kube is below flows: it imports no flows, tui or cmd",
	applies:   func(p string) bool { return under(p, "kube") },
	forbidden: func(imp string) bool { return own(imp, "flows", "tui", "cmd") },
}, {
	name:      "crypto imports nothing of Kubernetes and nothing else of this module",
	applies:   func(p string) bool { return under(p, "crypto") },
	forbidden: func(imp string) bool { return own(imp) || under(imp, "k8s.io", "sigs.k8s.io") },
}, {
	name: "kube/controller is imported only by flows (the in-process engine), the controller's main and the test lab",
	applies: func(p string) bool {
		return !under(p, "flows", "cmd/liqo-auth-controller", "internal/testlab", "kube/controller")
	},
	forbidden: func(imp string) bool { return own(imp, "kube/controller") },
}, {
	name:      "test infrastructure (internal/testlab) is linked by no product package: only the demo's lab binary and hack/ tools",
	applies:   func(p string) bool { return !under(p, "internal/testlab", "cmd/liqo-auth-lab", "hack") },
	forbidden: func(imp string) bool { return own(imp, "internal/testlab") },
}, {
	// One way: flows builds on the read model of peerings, never the reverse.
	name:    "flows/peerings, the read model of peerings, imports no root flows: only flows/handshake, flows/artifact and flows/internal/...",
	applies: func(p string) bool { return under(p, "flows/peerings") },
	forbidden: func(imp string) bool {
		return own(imp, "flows") && !own(imp, "flows/handshake", "flows/artifact", "flows/internal")
	},
}, {
	// One way too: doctor builds on flows (its repairs resume a handshake
	// with flows.Authenticate), so flows and what is below it never import it.
	name:      "flows/doctor is called only by the front-ends: no other package of this module imports it",
	applies:   func(p string) bool { return !under(p, "cmd/liqo-auth-tui", "flows/doctor") },
	forbidden: func(imp string) bool { return own(imp, "flows/doctor") },
}}

func TestImportRules(t *testing.T) {
	pkgs := modulePackages(t)
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			checked := 0
			for _, p := range pkgs {
				if !r.applies(p.ImportPath) {
					continue
				}
				checked++
				for _, imp := range p.Imports {
					assert.False(t, r.forbidden(imp), "%s imports %s", p.ImportPath, imp)
				}
			}
			assert.NotZero(t, checked, "the rule applies to no package: its paths are stale")
		})
	}
}

// The rules catch what they are about: each one, given an import it forbids,
// says so (a rule whose forbidden never matches would pass on any tree).
func TestImportRulesRefuseTheirCase(t *testing.T) {
	cases := map[string][2]string{
		rules[0].name:  {"cmd/liqo-auth-tui/cmd", "k8s.io/client-go/kubernetes"},
		rules[1].name:  {"tui", "flows"},
		rules[2].name:  {"flows", "tui"},
		rules[3].name:  {"flows/handshake", "k8s.io/api/core/v1"},
		rules[4].name:  {"flows/artifact", "kube"},
		rules[5].name:  {"flows/liqo0x", "flows"},
		rules[6].name:  {"cmd/liqo-auth-tui/cmd", "flows/internal/step"},
		rules[7].name:  {"kube/liqo0x", "flows/handshake"},
		rules[8].name:  {"crypto", "kube"},
		rules[9].name:  {"cmd/liqo-auth-tui/wizardbackend", "kube/controller"},
		rules[10].name: {"flows", "internal/testlab/lab"},
		rules[11].name: {"flows/peerings", "flows"},
		rules[12].name: {"flows", "flows/doctor"},
	}
	require.Len(t, cases, len(rules))
	for _, r := range rules {
		c := cases[r.name]
		imp := c[1]
		if !strings.Contains(imp, ".") {
			imp = module + imp // a package of this module
		}
		assert.True(t, r.applies(c[0]), "%s: applies to %s", r.name, c[0])
		assert.True(t, r.forbidden(imp), "%s: forbids %s", r.name, imp)
		assert.False(t, r.forbidden("strings"), "%s: allows the standard library", r.name)
	}
}
