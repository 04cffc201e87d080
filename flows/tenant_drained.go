package flows

import (
	"context"
	"fmt"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// DrainedTenantError: the provider drained the consumer's Tenant. A
// handshake keeps the condition the provider's administrator chose (where
// liqoctl's re-applied spec re-activates it), so it would end with an
// Identity and no rights behind it: it is refused before any write.
type DrainedTenantError struct {
	Namespace, Tenant, ConsumerID string
}

func (e *DrainedTenantError) Error() string {
	return fmt.Sprintf("Tenant %s/%s of consumer %s is Drained on the provider: the consumer has no rights there, and a handshake keeps the provider's condition; nothing written",
		e.Namespace, e.Tenant, e.ConsumerID) + hintSeparator + e.Hint()
}

// Hint is the command that re-activates it: the wizard shows it apart
// (Explain).
func (e *DrainedTenantError) Hint() string {
	return fmt.Sprintf("if the provider's administrator agrees, run `liqo-auth-tui activate tenant %s` on the provider (liqoctl activate tenant does the same), then run again", e.Tenant)
}

// refuseDrainedTenant is DrainedTenantError for the consumer's Tenant in
// namespace of the provider ("" = its tenant namespace, looked up), if
// there is one and it is Drained. A Tenant or namespace that cannot be
// read is left to the steps that write them.
func refuseDrainedTenant(ctx context.Context, provider *kube.Cluster, namespace, consumerID string) error {
	if namespace == "" {
		ns, err := provider.TenantNamespace(ctx, consumerID)
		if err != nil {
			return nil
		}
		namespace = ns.Name
	}
	t, err := provider.TenantFor(ctx, namespace, consumerID)
	if err != nil || t.DeletionTimestamp != nil || kube.TenantConditionOf(t) != authv1beta1.TenantConditionDrained {
		return nil
	}
	return &DrainedTenantError{Namespace: t.Namespace, Tenant: t.Name, ConsumerID: consumerID}
}
