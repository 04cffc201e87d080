package wizardbackend

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

func failure(t *testing.T, err error) *tui.Failure {
	t.Helper()
	var f *tui.Failure
	require.True(t, errors.As(err, &f), "%T: %v", err, err)
	return f
}

// A controller Warning behind a failed step: the step's line is the
// reason, the Warning's remedy the hint, the step's scope the scope.
func TestExplainWarningBehindStep(t *testing.T) {
	warn := &flows.WarningError{Reason: "SignatureVerificationFailed", Message: "bad signature", Hint: "sign the nonce again"}
	err := &flows.StepError{Step: "wait-tenant-status", Scope: handshake.Remote, Line: "Failed waiting for tenant status: bad", Err: warn}
	f := failure(t, explainErr(err))
	assert.Equal(t, "Failed waiting for tenant status: bad", f.Reason)
	assert.Equal(t, "sign the nonce again", f.Hint)
	assert.Equal(t, handshake.Remote, f.Scope)
	assert.False(t, f.Timeout)
	assert.ErrorIs(t, f, warn)
}

func TestExplainUnreachableServer(t *testing.T) {
	refused := kube.Reach("https://127.0.0.1:1", fmt.Errorf("dial: %w", syscall.ECONNREFUSED))
	f := failure(t, explainErr(refused))
	assert.Contains(t, f.Reason, "https://127.0.0.1:1")
	assert.NotEmpty(t, f.Hint)
	assert.False(t, f.Timeout)

	timedOut := kube.Reach("https://10.255.255.1:6443", context.DeadlineExceeded)
	assert.True(t, failure(t, explainErr(timedOut)).Timeout)
}

// A wait that ran out of time without a cause gets the generic remedy.
func TestExplainTimeoutHint(t *testing.T) {
	f := failure(t, explainErr(fmt.Errorf("waiting for nonce: %w", kube.ErrWaitTimeout)))
	assert.True(t, f.Timeout)
	assert.Contains(t, f.Hint, "check that the controllers run")
}

func TestExplainScopedPrefixesTheSide(t *testing.T) {
	f := failure(t, explainScoped(handshake.Local, errors.New("no cluster ID")))
	assert.Equal(t, "(local) no cluster ID", f.Reason)
	assert.Equal(t, handshake.Local, f.Scope)
	assert.Nil(t, explainErr(nil))
}
