package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// frontEnds are the folders of the two front-ends, relative to the module:
// they read what flows decided (a handshake.Route, a peering's Actions, a
// Stage's Next) and never decide it again themselves.
var frontEnds = []string{"cmd/liqo-auth-tui/cmd", "cmd/liqo-auth-tui/wizardbackend", "tui"}

// moduleRoot is the folder of go.mod, above this package's.
func moduleRoot(t *testing.T) string {
	dir, err := filepath.Abs(".")
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.mod above this package")
		dir = parent
	}
}

// goFiles parses the non-test Go files under dir (relative to root).
func goFiles(t *testing.T, fset *token.FileSet, root, dir string) map[string]*ast.File {
	files := map[string]*ast.File{}
	err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "testdata":
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files[rel] = f
		return nil
	})
	require.NoError(t, err)
	return files
}

// stepIDs are the IDs of flows' steps: every string given as ID in a
// Step{...} literal of flows.
func stepIDs(t *testing.T, fset *token.FileSet, root string) map[string]bool {
	ids := map[string]bool{}
	for _, f := range goFiles(t, fset, root, "flows") {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || nameOf(lit.Type) != "Step" {
				return true
			}
			for _, elt := range lit.Elts {
				if kv, ok := elt.(*ast.KeyValueExpr); ok && nameOf(kv.Key) == "ID" {
					if s, ok := stringLit(kv.Value); ok {
						ids[s] = true
					}
				}
			}
			return true
		})
	}
	return ids
}

// flavorValues are the values of the flavor and generation constants of
// kube and flows (FlavorV1 = "v1", GenerationLiqo0x = "0.x" ...): a front-end
// comparing with one of them as a plain string decides as well.
func flavorValues(t *testing.T, fset *token.FileSet, root string) map[string]bool {
	values := map[string]bool{}
	for _, dir := range []string{"kube", "flows"} {
		for _, f := range goFiles(t, fset, root, dir) {
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.CONST {
					continue
				}
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if i < len(vs.Values) && decided(name) {
							if v, ok := stringLit(vs.Values[i]); ok {
								values[v] = true
							}
						}
					}
				}
			}
		}
	}
	return values
}

// nameOf is the last name of an identifier or selector (x.y.Z: Z), through
// parentheses, conversions (string(x)) and pointers; "" for anything else.
func nameOf(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.ParenExpr:
		return nameOf(e.X)
	case *ast.StarExpr:
		return nameOf(e.X)
	case *ast.CallExpr:
		if len(e.Args) == 1 && nameOf(e.Fun) == "string" {
			return nameOf(e.Args[0])
		}
	}
	return ""
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// decided tells whether comparing e is deciding what flows decides from a
// Liqo flavor or generation: a field or a constant named Generation*,
// Flavor*, LiqoFlavor or LiqoLine (not FlavorLine: a sentence to show).
func decided(e ast.Expr) bool {
	name := nameOf(e)
	return strings.HasPrefix(name, "Generation") || strings.HasPrefix(name, "Flavor") && name != "FlavorLine" ||
		name == "LiqoFlavor" || name == "LiqoLine"
}

// step tells whether e holds a step ID (Step, StepID): compared with a
// string, it decides on one step; compared with another step's, it only
// matches events (the run screen).
func step(e ast.Expr) bool { name := nameOf(e); return name == "Step" || name == "StepID" }

// decisions lists, as "file:line:col: what", the comparisons in f that
// decide from a flavor, a generation or a step: == or != with a flavor or
// generation (or one's value, in flavors), with one of flows' step IDs
// (steps), or of a step with a string; a switch on a flavor or
// generation, or with any of those values (or, on a step, a string) among
// its cases.
func decisions(fset *token.FileSet, f *ast.File, steps, flavors map[string]bool) []string {
	var out []string
	at := func(n ast.Node, what string) {
		out = append(out, fset.Position(n.Pos()).String()+": "+what)
	}
	stepLit := func(e ast.Expr) bool {
		s, ok := stringLit(e)
		return ok && steps[s]
	}
	flavorLit := func(e ast.Expr) bool {
		s, ok := stringLit(e)
		return ok && flavors[s]
	}
	isString := func(e ast.Expr) bool { _, ok := stringLit(e); return ok }
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op != token.EQL && n.Op != token.NEQ {
				return true
			}
			switch {
			case decided(n.X) || decided(n.Y) || flavorLit(n.X) || flavorLit(n.Y):
				at(n, "compares with a flavor or generation")
			case stepLit(n.X) || stepLit(n.Y) || step(n.X) && isString(n.Y) || step(n.Y) && isString(n.X):
				at(n, "compares with a step ID")
			}
		case *ast.SwitchStmt:
			if n.Tag != nil && decided(n.Tag) {
				at(n, "switches on "+nameOf(n.Tag))
				return true
			}
			onStep := n.Tag != nil && step(n.Tag)
			for _, s := range n.Body.List {
				for _, e := range s.(*ast.CaseClause).List {
					if flavorLit(e) {
						at(e, "has a flavor or generation as a case")
					}
					if stepLit(e) || onStep && isString(e) {
						at(e, "has a step ID as a case")
					}
				}
			}
		}
		return true
	})
	return out
}

// No front-end file decides routing, or what a peering offers, from a
// flavor, a generation or a step ID: flows decides (handshake.Route,
// PeeringActions), the front-ends read it (issue 40).
func TestFrontEndsDecideNothingFlowsDecides(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	steps, flavors := stepIDs(t, fset, root), flavorValues(t, fset, root)
	require.Contains(t, steps, "wait-tenant-status", "flows' step IDs are not found: the Step literal changed shape")
	require.Contains(t, flavors, "0.x", "the flavor constants are not found: their names changed")
	for _, dir := range frontEnds {
		files := goFiles(t, fset, root, dir)
		require.NotEmpty(t, files, "%s has no Go file: the path is stale", dir)
		for name, f := range files {
			assert.Empty(t, decisions(fset, f, steps, flavors), "%s decides what flows decides", name)
		}
	}
}

// The check catches what it is about: each kind of decision in a snippet.
func TestFrontEndDecisionsAreCaught(t *testing.T) {
	const src = `package x
func f(row Row, ev Event, info Info) {
	_ = row.Generation == GenerationV1
	_ = info.LiqoFlavor != "0.x"
	_ = ev.Step == "wait-tenant-status"
	_ = "wait-tenant-status" == ev.Name
	switch row.Generation {
	}
	switch ev.Message {
	case "wait-tenant-status":
	}
	_ = row.Route == RouteV1 && info.FlavorLine != ""
	_ = ev.Step == other.Step
	_ = ev.StepID != "install"
	switch ev.Step {
	case "init":
	}
	_ = info.Kind == "0.x"
	switch info.Kind {
	case "v1":
	}
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	require.NoError(t, err)
	got := decisions(fset, f, map[string]bool{"wait-tenant-status": true}, map[string]bool{"v1": true, "0.x": true})
	var lines []int
	for _, d := range got {
		_, rest, _ := strings.Cut(d, ":")
		n, _, _ := strings.Cut(rest, ":")
		line, _ := strconv.Atoi(n)
		lines = append(lines, line)
	}
	// Line 12 (a Route; a sentence shown or not) is what the front-ends
	// do instead; line 13 two steps' IDs compared (the run screen matching
	// events), no decision.
	assert.Equal(t, []int{3, 4, 5, 6, 7, 10, 14, 16, 18, 20}, lines, "%v", got)
}
