package flows

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// providerAccess is what the automated flow itself does on the provider
// (§9.1 steps 2–11) for a consumer whose tenant namespace is namespace:
// find the tenant namespace (or create it when there is none), ensure the
// nonce Secret and wait for it, apply the Tenant and wait for its status.
// Liqo's peering user (§9.4) may do all of it with its two roles (a Get of
// its tenant namespace, which `generate peering-user` creates, instead of a
// List of namespaces; lists instead of watches; no Events): the provider's
// controller does the rest.
func providerAccess(namespace string, exists bool) []kube.Access {
	var needs []kube.Access
	if exists {
		needs = append(needs, kube.Access{Verb: "get", Resource: "namespaces", Name: namespace, Namespace: namespace})
	} else {
		needs = append(needs, kube.Access{Verb: "create", Resource: "namespaces"})
	}
	for _, r := range []struct{ group, resource string }{{"", "secrets"}, {authv1beta1.GroupVersion.Group, authv1beta1.TenantResource}} {
		verbs := []string{"get", "create", "list"}
		if r.resource == authv1beta1.TenantResource {
			verbs = []string{"get", "create", "update", "list"} // a re-run updates the Tenant
		}
		for _, verb := range verbs {
			needs = append(needs, kube.Access{Verb: verb, Group: r.group, Resource: r.resource, Namespace: namespace})
		}
	}
	return needs
}

// checkProviderAccess tells, before anything is written on either cluster,
// whether the provider's kubeconfig may do what the flow does there; when
// it may not, the error names the first permission missing.
func checkProviderAccess(ctx context.Context, provider *kube.Cluster, consumerID string) error {
	namespace, exists := kube.TenantNamespaceName(consumerID), true
	ns, lookupErr := provider.TenantNamespace(ctx, consumerID)
	switch {
	case lookupErr == nil:
		namespace = ns.Name
	case kube.IsNotFound(lookupErr):
		exists, lookupErr = false, nil
	}
	if err := provider.CheckAccess(ctx, providerAccess(namespace, exists)); err != nil {
		return fmt.Errorf("%w, which the handshake needs: ask the provider's admin for a peering user's kubeconfig (`liqo-auth-tui generate peering-user --consumer-cluster-id %s`)", err, consumerID)
	}
	return lookupErr
}

// waitObserving is waitWithEvents where the kubeconfig may list the Events
// of ref's namespace, and a plain wait where it may not (Liqo's peering
// user may not): controller Warnings are then not seen, and the wait can
// only succeed or time out.
func waitObserving[T runtime.Object](ctx context.Context, c *kube.Cluster, sink handshake.Sink, scope handshake.Scope, ref kube.ObjectRef,
	lw cache.ListerWatcher, what string, cond func(T) (bool, error)) (T, error) {
	obj, err := waitWithEvents(ctx, c, sink, scope, ref, lw, what, cond)
	if !eventsForbidden(err) {
		return obj, err
	}
	obj, err = kube.WaitFor(ctx, lw, what, cond)
	if errors.Is(err, kube.ErrWaitTimeout) {
		err = fmt.Errorf("%w (this kubeconfig may not list Events in namespace %s: the controller's Warnings, if any, could not be shown)", err, ref.Namespace)
	}
	return obj, err
}

// eventsForbidden tells whether err is a refused list of Events.
func eventsForbidden(err error) bool {
	var status apierrors.APIStatus
	if !apierrors.IsForbidden(err) || !errors.As(err, &status) {
		return false
	}
	d := status.Status().Details
	return d != nil && d.Kind == "events"
}
