package controller

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// checkPlacement enforces the rules of Liqo's Tenant admission webhook
// (§6.1), which clusters without Liqo do not have: the Tenant sits in the
// tenant namespace of its cluster ID, its label matches its spec, it is the
// only Tenant of that namespace and its name is unique in the cluster. Of
// two clashing Tenants the younger one is refused, as the webhook would
// have refused to create it.
func (r *tenantReconciler) checkPlacement(ctx context.Context, t *authv1beta1.Tenant) error {
	// The cache answers the usual case; a refusal is confirmed live so
	// that a namespace labelled a moment ago is not held against anybody.
	ns, err := r.namespaces.lister.Get(t.Namespace)
	if err != nil || kube.CheckTenantPlacement(t, ns.Labels) != nil {
		live, err := r.c.Kube.CoreV1().Namespaces().Get(ctx, t.Namespace, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := kube.CheckTenantPlacement(t, live.Labels); err != nil {
			return err
		}
	}
	if other := r.olderTenant(t, tenantsIn(r.tenants, t.Namespace)); other != nil {
		return invalidTenant("a Tenant already exists in the tenant namespace %s (%s): delete one of them", t.Namespace, other.Name)
	}
	if other := r.olderTenant(t, tenantsNamed(r.tenants, t.Name)); other != nil {
		return invalidTenant("tenant should have a unique name across the cluster: a Tenant with the same name already exists in the cluster (in namespace %s)", other.Namespace)
	}
	return nil
}

// olderTenant returns the first of clashing (Tenants found to clash with
// t) older than t.
func (r *tenantReconciler) olderTenant(t *authv1beta1.Tenant, clashing []*authv1beta1.Tenant) *authv1beta1.Tenant {
	for _, other := range clashing {
		if other.UID != t.UID && olderThan(other, t) {
			return other
		}
	}
	return nil
}

func invalidTenant(format string, args ...any) error {
	return &kube.HandshakeError{Reason: ReasonInvalidTenant, Err: fmt.Errorf(format, args...)}
}

// olderThan orders Tenants by creation, then by UID to break ties.
func olderThan(a, b *authv1beta1.Tenant) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.UID < b.UID
}
