package flows

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// objectRef names the object whose Events a wait listens to.
type objectRef struct {
	Kind, Namespace, Name string
}

// WarningError is a controller's Warning Event that failed a wait.
type WarningError struct {
	Reason, Message, Hint string
}

// hintSeparator ends an error's message before what to do about it.
const hintSeparator = " — "

func (e *WarningError) Error() string {
	msg := e.Reason + ": " + e.Message
	if e.Hint != "" {
		msg += hintSeparator + e.Hint
	}
	return msg
}

// finalWarnings are the Warning reasons that no retry will fix until the
// object changes (§11): a wait fails at once on them. Liqo's controllers
// retry the others (UpdateFailed on an optimistic-lock conflict,
// NonceNotFound while the nonce is being created, AuthParamsFailed while
// the CSR is signed, ...): they are shown as progress and the wait goes on.
var finalWarnings = map[string]bool{
	controller.ReasonSignatureVerificationFailed: true,
	controller.ReasonInvalidCSR:                  true,
	controller.ReasonInvalidPublicKey:            true,
	controller.ReasonInvalidTenant:               true,
	controller.ReasonWrongNamespace:              true,
	controller.ReasonMissingLabels:               true,
	controller.ReasonMissingClusterID:            true,
	controller.ReasonMissingRemoteClusterID:      true,
}

// IsFinalWarning tells whether a Warning Event with reason fails a wait.
func IsFinalWarning(reason string) bool { return finalWarnings[reason] }

// waitWithEvents waits (watching) until cond holds for an object of lw,
// while also watching the Events of ref: Events are forwarded to sink as
// they arrive, and a final Warning fails the wait at once with its reason
// instead of letting it run into the timeout. A wait that times out after
// transient Warnings names the last one.
func waitWithEvents[T runtime.Object](ctx context.Context, c *kube.Cluster, sink handshake.Sink, scope handshake.Scope, ref objectRef,
	lw cache.ListerWatcher, what string, cond func(T) (bool, error)) (T, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	events, err := c.Events(ctx, ref.Namespace, eventSelector(ref))
	if err != nil {
		var zero T
		return zero, fmt.Errorf("listing events of %s %s/%s: %w", ref.Kind, ref.Namespace, ref.Name, err)
	}
	// Only Events from now on count: an old Warning from an attempt that
	// was fixed since must not fail a re-run.
	var lastTransient atomic.Pointer[WarningError]
	go func() {
		var panicked error
		defer func() {
			if panicked != nil {
				cancel(panicked)
			}
		}()
		defer kube.RecoverAsError(&panicked, "watching the Events of "+ref.Kind+" "+ref.Name)
		watchEvents(ctx, c, sink, scope, ref, events.ResourceVersion, cancel, &lastTransient)
	}()
	obj, err := kube.WaitFor(ctx, lw, what, cond)
	if cause := context.Cause(ctx); cause != nil && cause != context.Canceled {
		var w *WarningError
		var p *kube.PanicError
		if errors.As(cause, &w) {
			return obj, w
		} else if errors.As(cause, &p) {
			return obj, p
		}
	}
	if w := lastTransient.Load(); w != nil && errors.Is(err, kube.ErrWaitTimeout) {
		err = fmt.Errorf("%w (last Warning %s)", err, w)
	}
	return obj, err
}

func eventSelector(ref objectRef) string {
	return fields.Set{"involvedObject.kind": ref.Kind, "involvedObject.name": ref.Name}.String()
}

func watchEvents(ctx context.Context, c *kube.Cluster, sink handshake.Sink, scope handshake.Scope, ref objectRef, rv string,
	fail context.CancelCauseFunc, lastTransient *atomic.Pointer[WarningError]) {
	w, err := c.WatchEvents(ctx, ref.Namespace, eventSelector(ref), rv)
	if err != nil {
		return // the wait itself still runs and times out with its own message
	}
	defer w.Stop()
	for e := range w.ResultChan() {
		if e.Type != watch.Added && e.Type != watch.Modified {
			continue
		}
		ev, ok := e.Object.(*corev1.Event)
		if !ok {
			continue
		}
		warning := ev.Type == corev1.EventTypeWarning
		var w *WarningError
		if warning {
			w = &WarningError{Reason: ev.Reason, Message: ev.Message, Hint: hintFor(ev.Reason)}
			if !IsFinalWarning(ev.Reason) {
				// Recorded before the sink shows it: a wait cancelled by
				// someone who saw this Warning must name it.
				lastTransient.Store(w)
			}
		}
		if sink != nil {
			sink(handshake.Event{Kind: handshake.ClusterEvent, Scope: scope, Reason: ev.Reason, Warning: warning, Time: time.Now(),
				Message: fmt.Sprintf("%s %s: %s", ref.Kind, ref.Name, ev.Message)})
		}
		if w != nil && IsFinalWarning(ev.Reason) {
			fail(w)
			return
		}
	}
}

// hintFor says what to do about a controller Warning.
func hintFor(reason string) string {
	switch reason {
	case kube.ReasonSignatureVerificationFailed:
		return "the Tenant was signed over another nonce or with another key: generate it again on the consumer with the provider's current nonce"
	case kube.ReasonInvalidCSR:
		return "the Tenant's CSR does not match its cluster ID or key: generate the Tenant again on the consumer"
	case kube.ReasonNonceNotFound:
		return "the provider has no nonce for this consumer: run `create nonce` on the provider first"
	case kube.ReasonInvalidTenant:
		return "apply the Tenant in the provider's tenant namespace for that consumer"
	case controller.ReasonAuthParamsFailed:
		return "the provider could not issue the certificate: check its kube-controller-manager CSR signer and the message above"
	}
	return ""
}
