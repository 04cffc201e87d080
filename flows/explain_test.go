package flows_test

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	kliqo0x "github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// A controller Warning behind a failed step: the step's line is the
// reason, the Warning's remedy the hint, the step's scope the scope.
func TestExplainWarningBehindStep(t *testing.T) {
	warn := &flows.WarningError{Reason: "SignatureVerificationFailed", Message: "bad signature", Hint: "sign the nonce again"}
	err := &flows.StepError{Step: "wait-tenant-status", Scope: handshake.Remote, Line: "Failed waiting for tenant status: bad", Err: warn}
	e := flows.Explain(err)
	assert.Equal(t, "Failed waiting for tenant status: bad", e.Reason)
	assert.Equal(t, "sign the nonce again", e.Hint)
	assert.Equal(t, handshake.Remote, e.Scope)
	assert.False(t, e.Timeout)
}

func TestExplainUnreachableServer(t *testing.T) {
	refused := kube.Reach("https://127.0.0.1:1", fmt.Errorf("dial: %w", syscall.ECONNREFUSED))
	e := flows.Explain(refused)
	assert.Contains(t, e.Reason, "https://127.0.0.1:1")
	assert.NotEmpty(t, e.Hint)
	assert.False(t, e.Timeout)

	timedOut := kube.Reach("https://10.255.255.1:6443", context.DeadlineExceeded)
	assert.True(t, flows.Explain(timedOut).Timeout)
	assert.True(t, flows.IsTimeout(timedOut))
}

// A wait that ran out of time without a cause gets the generic remedy.
func TestExplainTimeoutHint(t *testing.T) {
	e := flows.Explain(fmt.Errorf("waiting for nonce: %w", kube.ErrWaitTimeout))
	assert.True(t, e.Timeout)
	assert.Contains(t, e.Hint, "check that the controllers run")
	assert.Nil(t, flows.Explain(nil))
}

// Each refusal of a 0.x provider is explained with what to do; only
// already-issued offers a reissue.
func TestExplainLiqo0xRefusals(t *testing.T) {
	step := func(err error) error {
		return &flows.StepError{Step: "s", Scope: handshake.Local, Line: "Authentication failed: " + err.Error(), Err: err}
	}
	cases := []struct {
		err           error
		alreadyIssued bool
		hint          string
	}{
		{step(&liqo0x.RefusedError{Refusal: kliqo0x.WrongToken, Err: errors.New("refused the token")}), false, "copy the peer info again"},
		{step(&kliqo0x.AuthError{Status: 403, Refusal: kliqo0x.AlreadyIssued}), true, "reissue"},
		{fmt.Errorf("wait: %w", &kliqo0x.AuthFailure{Refusal: kliqo0x.Unreachable}), false, "auth URL"},
		{step(&kliqo0x.AuthFailure{Refusal: kliqo0x.Incompatible}), false, handshake.Liqo03And04Incompatible},
		{step(&kliqo0x.AuthFailure{Refusal: kliqo0x.OtherRefusal}), false, ""},
	}
	for _, c := range cases {
		e := flows.Explain(c.err)
		assert.Equal(t, c.alreadyIssued, e.AlreadyIssued, c.err.Error())
		if c.hint != "" {
			assert.Contains(t, e.Hint, c.hint)
		}
	}
	e := flows.Explain(step(context.DeadlineExceeded))
	assert.False(t, e.AlreadyIssued)
	assert.True(t, e.Timeout)
}

// kube words the v0.3/v0.4+ advice in its errors without importing
// flows/handshake: the same sentence the hints use.
func TestOneAdviceForV03AndV04(t *testing.T) {
	assert.Equal(t, handshake.Liqo03And04Incompatible, kliqo0x.IncompatibleAdvice)
	assert.Contains(t, (&kliqo0x.AuthFailure{ProviderID: "p", Refusal: kliqo0x.Incompatible}).Error(), handshake.Liqo03And04Incompatible)
	assert.Contains(t, (&kliqo0x.AuthError{URL: "https://a", Refusal: kliqo0x.Incompatible}).Error(), handshake.Liqo03And04Incompatible)
}
