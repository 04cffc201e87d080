package batch

import (
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// NewWizardBackend is the wizard's backend, for the tests of batch_test
// (the wizard itself refuses to start without a terminal).
func NewWizardBackend() tui.Backend { return &wizardBackend{stepTimeout: time.Minute} }
