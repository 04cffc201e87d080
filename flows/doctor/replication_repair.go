package doctor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// replicateAgainAnnotation is set by doctor --fix on the consumer's
// objects whose copy the provider refused: a replicator (ours, Liqo's)
// tries again when an object changes, and ours otherwise waits up to an
// hour after a refusal.
const replicateAgainAnnotation = "liqo-auth-tui.io/replicate-again"

// replicationFix: doctor --fix with both clusters restores the consumer's
// rights on the provider and has the replicator try again.
func replicationFix(_ *run, consumer, provider *side) string {
	return doctorFixOf(consumer, provider)
}

// restoreReplicationRepair gives the consumer back its rights on the
// provider, as the provider's Tenant controller gave them (the bindings of
// §6.5; with this tool's provider, its ClusterRoles re-applied as init
// does), then touches the consumer's objects left without a copy so that
// its replicator tries again now. nil without the provider or its Tenant
// (re-authenticating is the fix then).
func restoreReplicationRepair(d *run, consumer, provider *side, objects []replicated) *Repair {
	if !provider.read() {
		return nil
	}
	tenant := tenantOfConsumer(provider.objects, consumer.id)
	if tenant == nil || tenant.Status.TenantNamespace == "" {
		return nil
	}
	ns := tenant.Status.TenantNamespace
	ours := provider.objects.Release.Flavor == kube.FlavorToolInit
	var plan []string
	if ours {
		plan = append(plan, "provider: re-apply what `liqo-auth-tui init` installs (its ClusterRoles among them; what is unchanged stays)")
	}
	plan = append(plan, fmt.Sprintf("provider: create the missing bindings of consumer %s (the remote-controlplane ClusterRoles in namespace %s, the clusterwide ones to group %s)",
		consumer.id, ns, consumer.id))
	var retry []replicated
	if consumer.read() {
		for _, o := range objects {
			if o.local != nil && o.local.GetDeletionTimestamp() == nil && o.copied == nil {
				retry = append(retry, o)
			}
		}
	}
	if len(retry) > 0 {
		names := make([]string, len(retry))
		for i, o := range retry {
			names[i] = o.name()
		}
		plan = append(plan, "consumer: annotate "+strings.Join(names, ", ")+" with "+replicateAgainAnnotation+" so that its replicator tries again now")
	}
	return &Repair{Plan: plan, apply: func(ctx context.Context) error {
		p := provider.cluster
		if ours {
			if _, err := p.Init(ctx, kube.InitOptions{}); err != nil {
				return step.Scoped(provider.scope, err)
			}
		}
		roles, err := p.TenantRoles(ctx)
		if err != nil {
			return step.Scoped(provider.scope, err)
		}
		if _, err := p.BindTenantNamespace(ctx, tenant, ns, roles.ControlPlane); err != nil {
			return step.Scoped(provider.scope, err)
		}
		if _, err := p.BindTenantClusterWide(ctx, consumer.id, roles.ClusterWide); err != nil {
			return step.Scoped(provider.scope, err)
		}
		for _, o := range retry {
			if err := replicateAgain(ctx, consumer.cluster, o, d.now); err != nil {
				return step.Scoped(consumer.scope, err)
			}
		}
		return nil
	}}
}

// replicateAgain changes an annotation of a consumer's object.
func replicateAgain(ctx context.Context, c *kube.Cluster, o replicated, now time.Time) error {
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, replicateAgainAnnotation, now.UTC().Format(time.RFC3339Nano))
	ns, name := o.local.GetNamespace(), o.local.GetName()
	err := c.MergePatchReplicated(ctx, o.kind, ns, name, patch)
	if kube.IsNotFound(err) {
		return nil
	}
	return err
}

// tenantOfConsumer is the provider's Tenant of a consumer.
func tenantOfConsumer(o *peerings.Objects, consumerID string) *authv1beta1.Tenant {
	for _, t := range o.Tenants {
		if t.Spec.ClusterID == consumerID {
			return t
		}
	}
	return nil
}
