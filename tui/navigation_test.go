package tui

import (
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// isNavigation (line mode, while a screen's commands run) must know every
// message that session.screenFor turns into a screen: a message missing
// there would be handled as a screen's own message in accessible mode. The
// two switches are read from the source, so adding a case to one alone
// fails here.
func TestNavigationListsAgree(t *testing.T) {
	screenFor := caseTypes(t, "screenFor")
	navigation := caseTypes(t, "isNavigation")
	require.NotEmpty(t, screenFor)
	// tea.QuitMsg ends the line mode's loop; it leads to no screen.
	assert.Equal(t, screenFor, without(navigation, "tea.QuitMsg"))
}

// caseTypes lists the types of the type switch cases in the function (or
// method) named fn in this package's non-test files.
func caseTypes(t *testing.T, fn string) []string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var types []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			d, ok := decl.(*ast.FuncDecl)
			if !ok || d.Name.Name != fn {
				continue
			}
			ast.Inspect(d.Body, func(n ast.Node) bool {
				clause, ok := n.(*ast.CaseClause)
				if !ok {
					return true
				}
				for _, e := range clause.List {
					var b strings.Builder
					require.NoError(t, printer.Fprint(&b, fset, e))
					types = append(types, b.String())
				}
				return true
			})
		}
	}
	sort.Strings(types)
	return types
}

func without(list []string, drop string) []string {
	var out []string
	for _, s := range list {
		if s != drop {
			out = append(out, s)
		}
	}
	return out
}
