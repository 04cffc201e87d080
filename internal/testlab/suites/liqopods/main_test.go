//go:build cluster

package liqopods_test

import (
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labimage"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// testLab: "ours" is initialised by this project and served by its
// in-process controllers; "liqo" runs Liqo as Pods on its Node.
var testLab = labtest.LazyWithOptions(lab.Options{Nodes: true}, "ours", "liqo")

func TestMain(m *testing.M) { labimage.Main(m, testLab) }
