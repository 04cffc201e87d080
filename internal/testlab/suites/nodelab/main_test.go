//go:build cluster

package nodelab_test

import (
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labimage"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// testLab is a provider and a consumer, each with a Node. Tests that run
// the controller's image load it with labimage.LoadController (built once
// per process).
var testLab = labtest.LazyWithOptions(lab.Options{Nodes: true}, "provider", "consumer")

func TestMain(m *testing.M) { labimage.Main(m, testLab) }
