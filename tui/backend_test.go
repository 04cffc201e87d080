package tui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A screen or an operation calls the backend only through its own small
// interface (backend.go): the session's whole Backend is handed out, never
// called, so that what each part of the wizard uses stays written beside it.
func TestNoCallThroughTheWholeBackend(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			method, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if field, ok := method.X.(*ast.SelectorExpr); ok && field.Sel.Name == "backend" {
				assert.Fail(t, "a call through the session's whole Backend",
					"%s: %s.backend.%s: take the narrow interface that has %s instead", fset.Position(method.Pos()), exprName(field.X), method.Sel.Name, method.Sel.Name)
			}
			return true
		})
	}
}

func exprName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return "…"
}
