package doctor

import (
	"context"
	"strings"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// checkTenantCondition: a provider admin's cordon or drain stops the
// consumer from getting new resources (or any); the check says which,
// and the verb that undoes it, run on the provider.
func checkTenantCondition(_ context.Context, _ *run, p *pair) []Check {
	if p.row.Generation != handshake.GenerationV1 {
		return nil
	}
	_, tenant, condition := p.row.PairStates()
	if tenant == handshake.StateAbsent {
		return nil
	}
	const id, title = "tenant-condition", "Tenant condition"
	// The Tenant is the provider's, about the consumer: on the remote
	// cluster when this one is the consumer.
	consumerID := p.consumer.id
	var c Check
	switch authv1beta1.TenantCondition(condition) {
	case authv1beta1.TenantConditionCordoned:
		c = failed(id, title, "the provider cordoned the Tenant: the consumer keeps what it has and gets no new resources",
			p.provider.on("liqo-auth-tui uncordon tenant "+consumerID))
	case authv1beta1.TenantConditionDrained:
		c = failed(id, title, "the provider drained the Tenant: the consumer's bindings and ResourceSlices there are gone",
			p.provider.on("liqo-auth-tui activate tenant "+consumerID))
	default:
		c = passed(id, title, "Active")
	}
	c.Scope = p.provider.scope
	return []Check{c}
}

// checkDefaultSliceClass: a provider that grants no slice of the default
// class (--default-resource-slice-class-enabled=false, on Liqo's next
// release or this project's controller) denies the Resources of every
// slice that asks for it; the check names them and the way out.
func checkDefaultSliceClass(_ context.Context, _ *run, p *pair) []Check {
	var denied []string
	for _, s := range p.row.Slices {
		if s.Reason == kube.SliceDefaultClassDisabledReason {
			denied = append(denied, s.Name)
		}
	}
	if len(denied) == 0 {
		return nil
	}
	c := failed("default-slice-class", "ResourceSlice class",
		"the provider grants no ResourceSlice of the default class: "+strings.Join(denied, ", ")+" got no resources",
		"ask for a class its plugins serve (`liqo-auth-tui create resourceslice NAME --class <class>`), or its admin grants the default class ("+flows.DefaultSliceClassEnabledHint+")")
	c.Scope = p.consumer.scope
	return []Check{c}
}
