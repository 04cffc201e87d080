//go:build cluster

package nodelab_test

import (
	"os"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
)

// testLab is a provider and a consumer, each with a Node.
var testLab = labtest.LazyWithOptions(lab.Options{Nodes: true}, "provider", "consumer")

func TestMain(m *testing.M) { os.Exit(testLab.Run(m)) }
