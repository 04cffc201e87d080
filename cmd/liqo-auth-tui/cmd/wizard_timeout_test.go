package cmd_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/wizardbackend"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// A wait that runs out in the wizard advises "raise --timeout": the
// wizard's steps must then be bounded by --timeout, not by a fixed minute.
func TestWizardStepsFollowTimeout(t *testing.T) {
	var got tui.Options
	w := cmd.NewWizard(func(_ context.Context, o tui.Options) error { got = o; return nil })
	var out bytes.Buffer
	o := &cmd.Options{Printer: &cmd.Printer{Out: &out, Err: &out}, Timeout: 5 * time.Minute}
	c := &cobra.Command{}
	c.SetContext(context.Background())
	require.NoError(t, w.Interactive(c, o))
	b, ok := got.Backend.(*wizardbackend.Backend)
	require.True(t, ok, "the wizard runs on wizardbackend")
	assert.Equal(t, 5*time.Minute, b.StepTimeout())
	assert.Equal(t, 5*time.Minute, got.Timeout)
}
