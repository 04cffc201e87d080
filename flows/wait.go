package flows

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

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

// finalWarning is IsFinalWarning, and a certificate cache for another CSR
// (storedCSRMismatch), which no retry fixes before the old certificate is
// due.
func finalWarning(reason, message string) bool {
	return IsFinalWarning(reason) || storedCSRMismatch(reason, message)
}

// storedCSRMismatch: the provider holds the certificate of another CSR of
// this consumer (re-installed with new keys under its cluster ID).
func storedCSRMismatch(reason, message string) bool {
	return reason == controller.ReasonAuthParamsFailed && kube.StoredCSRMismatchMessage(message)
}

// waitWithEvents waits (watching) until cond holds for an object of lw,
// while also watching the Events of ref: Events are forwarded to sink as
// they arrive, and a final Warning fails the wait at once with its reason
// instead of letting it run into the timeout. A wait that times out after
// transient Warnings names the last one.
func waitWithEvents[T runtime.Object](ctx context.Context, c *kube.Cluster, sink handshake.Sink, scope handshake.Scope, ref kube.ObjectRef,
	lw cache.ListerWatcher, what string, cond func(T) (bool, error)) (T, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	events, err := c.Events(ctx, ref.Namespace, ref.EventSelector())
	if err != nil {
		var zero T
		return zero, fmt.Errorf("listing events of %s %s/%s: %w", ref.Kind, ref.Namespace, ref.Name, err)
	}
	var lastTransient atomic.Pointer[WarningError]
	go func() {
		var panicked error
		defer func() {
			if panicked != nil {
				cancel(panicked)
			}
		}()
		defer kube.RecoverAsError(&panicked, "watching the Events of "+ref.Kind+" "+ref.Name)
		// Events from now on count, and those already listed about the
		// object as it is now (its controller may refuse it between the
		// step that wrote it and this wait): an old Warning about a version
		// fixed since must not fail a re-run. Read here, beside the wait.
		current := currentVersion(ctx, lw, ref.Name)
		seen := eventHandler{sink: sink, scope: scope, ref: ref, fail: cancel, lastTransient: &lastTransient}
		for i := range events.Items {
			if about(&events.Items[i], current) && seen.handle(&events.Items[i]) {
				return
			}
		}
		watchEvents(ctx, c, ref, events.ResourceVersion, seen)
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

// currentVersion reads the object lw lists under name, for about; nil
// when it cannot be read (the wait then only counts Events from now on).
func currentVersion(ctx context.Context, lw cache.ListerWatcher, name string) metav1.Object {
	list, err := cache.ToListerWatcherWithContext(lw).ListWithContext(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil
	}
	for _, item := range items {
		if o, err := meta.Accessor(item); err == nil && o.GetName() == name {
			return o
		}
	}
	return nil
}

// about tells whether ev was recorded about obj as it is now: Kubernetes'
// recorders copy the object's UID and resourceVersion into the Event.
// A repeated Event the recorder merged into an older one keeps the older
// version, and is seen only when it comes.
func about(ev *corev1.Event, obj metav1.Object) bool {
	return obj != nil && ev.InvolvedObject.UID == obj.GetUID() && ev.InvolvedObject.ResourceVersion != "" &&
		ev.InvolvedObject.ResourceVersion == obj.GetResourceVersion()
}

func watchEvents(ctx context.Context, c *kube.Cluster, ref kube.ObjectRef, rv string, seen eventHandler) {
	w, err := c.WatchEvents(ctx, ref.Namespace, ref.EventSelector(), rv)
	if err != nil {
		return // the wait itself still runs and times out with its own message
	}
	defer w.Stop()
	for e := range w.ResultChan() {
		if e.Type != watch.Added && e.Type != watch.Modified {
			continue
		}
		if ev, ok := e.Object.(*corev1.Event); ok && seen.handle(ev) {
			return
		}
	}
}

// eventHandler forwards a wait's Events to its sink and fails the wait on a
// final Warning.
type eventHandler struct {
	sink          handshake.Sink
	scope         handshake.Scope
	ref           kube.ObjectRef
	fail          context.CancelCauseFunc
	lastTransient *atomic.Pointer[WarningError]
}

// handle shows ev and tells whether it ended the wait.
func (h eventHandler) handle(ev *corev1.Event) bool {
	warning := ev.Type == corev1.EventTypeWarning
	var w *WarningError
	if warning {
		w = &WarningError{Reason: ev.Reason, Message: ev.Message, Hint: hintFor(h.ref, ev.Reason, ev.Message)}
		if !finalWarning(ev.Reason, ev.Message) {
			// Recorded before the sink shows it: a wait cancelled by
			// someone who saw this Warning must name it.
			h.lastTransient.Store(w)
		}
	}
	if h.sink != nil {
		h.sink(handshake.Event{Kind: handshake.ClusterEvent, Scope: h.scope, Reason: ev.Reason, Warning: warning, Time: time.Now(),
			Message: fmt.Sprintf("%s %s: %s", h.ref.Kind, h.ref.Name, ev.Message)})
	}
	if w != nil && finalWarning(ev.Reason, ev.Message) {
		h.fail(w)
		return true
	}
	return false
}

// hintFor says what to do about a controller Warning on ref.
func hintFor(ref kube.ObjectRef, reason, message string) string {
	if storedCSRMismatch(reason, message) {
		cache := kube.RemoteCertSecretName
		if ref.Kind == authv1beta1.ResourceSliceKind {
			cache = kube.ResourceSliceCertSecretName(ref.Name)
		}
		return fmt.Sprintf("this consumer was re-installed with new keys under its cluster ID: the provider holds its old key's certificate in Secret %s/%s; "+
			"a liqo-auth-tui or Liqo v1.2+ provider signs the new CSR once that certificate is due (Liqo v1.0 and v1.1 never do): "+
			"to go on now, delete that Secret on the provider (`doctor --fix` there does), then run again", ref.Namespace, cache)
	}
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
