//go:build cluster

package flows_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab/labtest"
)

// replaceNonce changes the provider's nonce for consumerID after the
// consumer signed it: the Tenant's signature no longer verifies.
func replaceNonce(t *testing.T, provider *kube.Cluster, consumerID string) {
	ctx := labtest.Context(t)
	ns := kube.TenantNamespaceName(consumerID)
	s, err := provider.Kube.CoreV1().Secrets(ns).Get(ctx, kube.NonceSecretName, metav1.GetOptions{})
	require.NoError(t, err)
	fresh, err := authcrypto.NewNonce()
	require.NoError(t, err)
	s.Data[kube.NonceField] = []byte(fresh)
	_, err = provider.Kube.CoreV1().Secrets(ns).Update(ctx, s, metav1.UpdateOptions{})
	require.NoError(t, err)
}

// A controller Warning fails the waiting step at once with its reason,
// instead of letting it run into its timeout: here the provider's nonce
// changes after the consumer signed the old one.
func TestWarningEventFailsStepAtOnce(t *testing.T) {
	provider, consumer := pair(t, "warn-provider", "warn-consumer")
	ctx := labtest.Context(t)
	var failed handshake.Event
	_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider, StepTimeout: 45 * time.Second},
		func(ev handshake.Event) {
			switch {
			case ev.Kind == handshake.StepDone && ev.Step == "generate-tenant":
				replaceNonce(t, provider, "warn-consumer")
			case ev.Kind == handshake.StepFailed:
				failed = ev
			}
		})
	var w *flows.WarningError
	require.True(t, errors.As(err, &w), "got %v", err)
	assert.Equal(t, kube.ReasonSignatureVerificationFailed, w.Reason)
	assert.Contains(t, err.Error(), "generate it again on the consumer")
	assert.Equal(t, "wait-tenant-status", failed.Step)
	assert.Less(t, failed.Elapsed, 10*time.Second, "the Warning must end the wait long before its 45s timeout")
}

// A panic on the goroutine that watches a step's Events (here: the sink it
// forwards them to) fails that step with an internal error at once, instead
// of ending the process (the wizard's terminal would stay in raw mode).
func TestPanicWhileWatchingEventsFailsTheStep(t *testing.T) {
	provider, consumer := pair(t, "panic-provider", "panic-consumer")
	ctx := labtest.Context(t)
	var failed handshake.Event
	_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider, StepTimeout: 45 * time.Second},
		func(ev handshake.Event) {
			switch {
			case ev.Kind == handshake.StepDone && ev.Step == "generate-tenant":
				replaceNonce(t, provider, "panic-consumer") // a Warning Event for the provider's wait to forward
			case ev.Kind == handshake.ClusterEvent && strings.HasPrefix(ev.Message, "Tenant panic-consumer:"):
				// Only the Tenant's Events: the nonce Secrets' Normal Events
				// may reach an earlier wait, whenever the controller writes them.
				panic("sink broken")
			case ev.Kind == handshake.StepFailed:
				failed = ev
			}
		})
	var p *kube.PanicError
	require.True(t, errors.As(err, &p), "got %v", err)
	assert.Equal(t, "sink broken", p.Value)
	assert.Contains(t, err.Error(), "internal error: watching the Events of Tenant")
	assert.Equal(t, "wait-tenant-status", failed.Step)
}
