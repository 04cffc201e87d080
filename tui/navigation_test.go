package tui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A goto...Msg is a navigation: it builds its screen (screenIn), so the
// full-screen wizard and the line mode follow it alike. A goto message
// without that method would be handed to the current screen as its own
// message and lead nowhere.
func TestEveryGotoMessageNavigates(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	gotos := map[string]bool{}
	navigates := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			switch d := n.(type) {
			case *ast.TypeSpec:
				if strings.HasPrefix(d.Name.Name, "goto") && strings.HasSuffix(d.Name.Name, "Msg") {
					gotos[d.Name.Name] = true
				}
			case *ast.FuncDecl:
				if d.Recv != nil && d.Name.Name == "screenIn" {
					if id, ok := d.Recv.List[0].Type.(*ast.Ident); ok {
						navigates[id.Name] = true
					}
				}
			}
			return true
		})
	}
	require.NotEmpty(t, gotos)
	for name := range gotos {
		assert.True(t, navigates[name], "%s has no screenIn: it leads to no screen", name)
	}
}

// Line mode stops at the same messages the full-screen wizard navigates on,
// and at quit; a screen's own messages go back to it.
func TestLineModeStopsAtNavigation(t *testing.T) {
	for _, msg := range []tea.Msg{gotoDetectMsg{}, gotoSummaryMsg{}, gotoOverviewMsg{}, newPeeringMsg{}, editStartMsg{}, startDoneMsg{}, tea.QuitMsg{}} {
		assert.True(t, isNavigation(msg), "%T", msg)
	}
	for _, msg := range []tea.Msg{tea.KeyPressMsg{}, tea.WindowSizeMsg{}, struct{}{}} {
		assert.False(t, isNavigation(msg), "%T", msg)
	}
}
