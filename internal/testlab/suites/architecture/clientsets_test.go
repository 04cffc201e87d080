package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clientsetFields are kube.Cluster's clientsets: flows reaches a cluster
// through kube's methods, never through them (issue 40).
var clientsetFields = map[string]bool{"Kube": true, "Liqo": true, "Dynamic": true}

// clientsetCalls lists the lines of f that call a method on a clientset
// field (x.Kube.CoreV1(), c.Liqo.Tenants(ns), ...).
func clientsetCalls(fset *token.FileSet, f *ast.File) []int {
	var lines []int
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		method, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if field, ok := method.X.(*ast.SelectorExpr); ok && clientsetFields[field.Sel.Name] {
			lines = append(lines, fset.Position(call.Pos()).Line)
		}
		return true
	})
	return lines
}

// No file of flows calls a clientset: every read and write goes through a
// method of kube.Cluster, named for what it does.
func TestFlowsCallsNoClientset(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	files := goFiles(t, fset, root, "flows")
	require.NotEmpty(t, files)
	for name, f := range files {
		assert.Empty(t, clientsetCalls(fset, f), "%s calls a clientset: add a kube.Cluster method", name)
	}
}

// The check catches what it is about.
func TestClientsetCallsAreCaught(t *testing.T) {
	const src = `package x
func f(c *Cluster) {
	c.Kube.CoreV1()
	_, _ = c.Liqo.Tenants("ns").Get(ctx, "n", opts)
	c.Dynamic.Resource(gvr)
	c.Tenant(ctx, "ns", "n")
	_ = c.Kube
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	require.NoError(t, err)
	assert.Equal(t, []int{3, 4, 5}, clientsetCalls(fset, f))
}
