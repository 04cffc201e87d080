//go:build cluster

package flows_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
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

// awaitRefusal returns once the provider has refused the consumer's Tenant
// with a Warning Event.
func awaitRefusal(t *testing.T, provider *kube.Cluster, consumerID string) {
	events := provider.Kube.CoreV1().Events(kube.TenantNamespaceName(consumerID))
	_, err := kube.WaitFor(labtest.Context(t), kube.ListWatch(events.List, events.Watch, func(o *metav1.ListOptions) {
		o.FieldSelector = fields.Set{"involvedObject.kind": authv1beta1.TenantKind, "involvedObject.name": consumerID}.String()
	}), "the Tenant's refusal", func(ev *corev1.Event) (bool, error) {
		return ev.Type == corev1.EventTypeWarning && ev.Reason == kube.ReasonSignatureVerificationFailed, nil
	})
	require.NoError(t, err)
}

// authenticateWithStaleNonce runs the handshake on the pair <name>-provider /
// <name>-consumer, replacing the provider's nonce once the consumer signed
// it; also is told every event. The provider has refused the Tenant before
// the wait for its status begins (as on a fast or a busy machine): the wait
// must still see the refusal. It returns the failed step's event.
func authenticateWithStaleNonce(t *testing.T, name string, also handshake.Sink) (handshake.Event, error) {
	provider, consumer := pair(t, name+"-provider", name+"-consumer")
	var failed handshake.Event
	_, err := flows.Authenticate(labtest.Context(t), flows.AuthenticateOptions{Consumer: consumer, Provider: provider, StepTimeout: 45 * time.Second},
		func(ev handshake.Event) {
			switch {
			case ev.Kind == handshake.StepDone && ev.Step == "generate-tenant":
				replaceNonce(t, provider, name+"-consumer")
			case ev.Kind == handshake.StepDone && ev.Step == "apply-tenant":
				awaitRefusal(t, provider, name+"-consumer")
			case ev.Kind == handshake.StepFailed:
				failed = ev
			}
			if also != nil {
				also(ev)
			}
		})
	return failed, err
}

// A controller Warning fails the waiting step at once with its reason,
// instead of letting it run into its timeout: here the provider's nonce
// changes after the consumer signed the old one.
func TestWarningEventFailsStepAtOnce(t *testing.T) {
	failed, err := authenticateWithStaleNonce(t, "warn", nil)
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
	// The stale nonce makes a Warning Event for the provider's wait to forward.
	failed, err := authenticateWithStaleNonce(t, "panic", func(ev handshake.Event) {
		// Only the Tenant's Events: the nonce Secrets' Normal Events may
		// reach an earlier wait, whenever the controller writes them.
		if ev.Kind == handshake.ClusterEvent && strings.HasPrefix(ev.Message, "Tenant panic-consumer:") {
			panic("sink broken")
		}
	})
	var p *kube.PanicError
	require.True(t, errors.As(err, &p), "got %v", err)
	assert.Equal(t, "sink broken", p.Value)
	assert.Contains(t, err.Error(), "internal error: watching the Events of Tenant")
	assert.Equal(t, "wait-tenant-status", failed.Step)
}
