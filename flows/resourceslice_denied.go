package flows

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// SliceDeniedError is a ResourceSlice whose authentication or resources
// the provider denied: an answer, which the slice's status shows.
type SliceDeniedError struct {
	Slice, ProviderID string
	// Denied is what the provider denied: "authentication" (then there
	// is no kubeconfig) or "resources".
	Denied string
	// Message is the provider's why: its Warning about the slice when the
	// provider is reachable, else what the condition says beyond Liqo's
	// fixed words ("" when nothing).
	Message string
	// Reason is the denying condition's reason.
	Reason string
}

func (e *SliceDeniedError) Error() string {
	msg := "provider " + e.ProviderID + " denied the " + e.Denied + " of ResourceSlice " + e.Slice
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg + hintSeparator + e.Hint()
}

// Hint says what is left to do, as the wizard's answer screen does. Without
// the why, it names the usual causes: Liqo's conditions do not say.
func (e *SliceDeniedError) Hint() string {
	cause := ""
	if e.Reason == kube.SliceDefaultClassDisabledReason {
		return "this provider grants no ResourceSlice of the default class: ask for a class its plugins serve (`--class`), or ask its admin to grant it (" + DefaultSliceClassEnabledHint + ")"
	}
	if e.Message == "" {
		cause = "the provider's Events on its copy of the slice say why (a CSR that does not match this cluster's keys); "
		if e.Denied == "resources" {
			cause = "usually this cluster's Tenant on the provider is cordoned or drained (its admin sees it with `liqo-auth-tui get tenant` and may run `liqo-auth-tui activate tenant`); "
		}
	}
	return cause + "ask the provider's admin, or request less under another name; the ResourceSlice stays on the consumer until deleted (`" +
		handshake.DeleteSliceCommand(e.Slice, e.ProviderID) + "`)"
}

// deniedSliceError is the denial st shows (st.Denied()), with the why the
// provider's Warnings give when the wait reaches the provider.
func deniedSliceError(ctx context.Context, st SliceStatus, w *sliceWait) *SliceDeniedError {
	what := "resources"
	if st.Authentication == string(authv1beta1.ResourceSliceConditionDenied) {
		what = "authentication"
	}
	why := st.Message
	if liqoSliceWords[why] {
		why = ""
	}
	// The provider's Events: with its admin's kubeconfig, else maybe
	// through the consumer's credentials (Liqo's narrow rights do not
	// include them: forbidden, nothing is waited for).
	if w != nil && w.answer.Namespace != "" {
		for _, provider := range []*kube.Cluster{w.admin, w.remote} {
			if provider == nil {
				continue
			}
			if latest := latestSliceWarning(ctx, provider, w.answer.Namespace, st.Name, what); latest != "" {
				why = latest
				break
			}
		}
	}
	return &SliceDeniedError{Slice: st.Name, ProviderID: st.ProviderID, Denied: what, Message: why, Reason: st.Reason}
}

// DefaultSliceClassEnabledHint is how a provider's admin grants the default
// class again, on either implementation.
const DefaultSliceClassEnabledHint = "liqo-auth-controller --default-resource-slice-class-enabled=true, its chart's defaultResourceSliceClassEnabled; Liqo's chart authentication.defaultResourceSliceClassEnabled"

// liqoSliceWords are the fixed messages of Liqo's slice conditions, which
// say nothing more than the condition's status.
var liqoSliceWords = map[string]bool{
	kube.SliceAuthenticationDeniedMessage: true, kube.SliceResourcesDeniedMessage: true,
	kube.SliceAuthenticationAcceptedMessage: true, kube.SliceResourcesAcceptedMessage: true,
}

// denialWarnings are the Warnings that say why a provider denied a
// slice's authentication or resources: Liqo's and this project's.
var denialWarnings = map[string][]string{
	"authentication": {kube.ReasonInvalidCSR, "Invalid ResourceSlice"},
	"resources":      {"ResourcesDenied"},
}

// denialEventWait bounds the wait for the provider's Events on a denial
// (written asynchronously, just before or after the status the consumer
// sees).
const denialEventWait = 5 * time.Second

// latestSliceWarning is the message of the latest Warning that explains
// the denial of the provider's copy of a slice ("" when none, or
// unreadable). It first waits, watching, for the Event of the denied
// condition, which Liqo's provider and this project's write after the why.
func latestSliceWarning(ctx context.Context, provider *kube.Cluster, namespace, name, denied string) string {
	ref := kube.ObjectRef{Kind: authv1beta1.ResourceSliceKind, Namespace: namespace, Name: name}
	reason := kube.SliceResourcesDeniedReason
	if denied == "authentication" {
		reason = kube.SliceAuthenticationDeniedReason
	}
	waitCtx, cancel := context.WithTimeout(ctx, denialEventWait)
	defer cancel()
	_, _ = kube.WaitFor(waitCtx, provider.EventsListWatch(namespace, ref.EventSelector()+",reason="+reason),
		"the provider's Event "+reason, func(*corev1.Event) (bool, error) { return true, nil })
	if w := provider.LatestWarning(ctx, ref, denialWarnings[denied]...); w != nil {
		return w.Message
	}
	return ""
}
