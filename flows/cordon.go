package flows

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/serving"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// ErrNotConfirmed: the admin did not confirm a change (a deletion, a
// cordon, a drain); nothing was changed.
var ErrNotConfirmed = handshake.ErrNotConfirmed

// ConfirmOptions say how a change liqoctl asks about is confirmed.
type ConfirmOptions struct {
	// Yes changes without asking (liqoctl's --skip-confirm).
	Yes bool
	// Confirm asks the admin, with what the change does. Nil (no terminal)
	// refuses the change with ErrNotConfirmed, unless Yes.
	Confirm func(question string) bool
}

func (o ConfirmOptions) confirmed(verb, risk string) bool {
	return o.Yes || (o.Confirm != nil && o.Confirm(destructiveQuestion(verb, risk)))
}

func destructiveQuestion(verb, risk string) string {
	return verb + " is a potentially destructive command: " + risk
}

// tenantMove is a liqoctl verb that moves a Tenant's spec.tenantCondition
// (§5.5); the provider's controller acts on the new condition.
type tenantMove struct {
	verb, done string // "cordon", "cordoned"
	to         authv1beta1.TenantCondition
	// from are the conditions the verb changes; on another it changes
	// nothing and says what would.
	from []authv1beta1.TenantCondition
	// risk (with the consumer's ID) is asked before the change, where
	// liqoctl asks; "" = it does not.
	risk string
	// effect is what the controller then does.
	effect string
}

var (
	cordonTenant = tenantMove{verb: "cordon", done: "cordoned", to: authv1beta1.TenantConditionCordoned,
		from:   []authv1beta1.TenantCondition{authv1beta1.TenantConditionActive},
		risk:   "consumer %s gets no new resources from this cluster (what it has stays)",
		effect: "the controller denies resources to its new ResourceSlices and marks all its slices liqo.io/cordon-tenant"}
	uncordonTenant = tenantMove{verb: "uncordon", done: "uncordoned", to: authv1beta1.TenantConditionActive,
		from:   []authv1beta1.TenantCondition{authv1beta1.TenantConditionCordoned},
		effect: "it may negotiate new resources again"}
	drainTenant = tenantMove{verb: "drain", done: "drained", to: authv1beta1.TenantConditionDrained,
		from:   []authv1beta1.TenantCondition{authv1beta1.TenantConditionActive, authv1beta1.TenantConditionCordoned},
		risk:   "consumer %s loses its permissions on this cluster and every ResourceSlice it has here is deleted",
		effect: "the controller removes its bindings and the ResourceSlices and NamespaceMaps replicated from it"}
	activateTenant = tenantMove{verb: "activate", done: "activated", to: authv1beta1.TenantConditionActive,
		from:   []authv1beta1.TenantCondition{authv1beta1.TenantConditionCordoned, authv1beta1.TenantConditionDrained},
		effect: "the controller binds its permissions again and it may negotiate resources"}
)

// CordonTenant is liqoctl cordon tenant: an Active Tenant becomes
// Cordoned, after confirmation.
func CordonTenant(ctx context.Context, provider *kube.Cluster, consumerID string, o ConfirmOptions, sink handshake.Sink) error {
	return moveTenant(ctx, provider, consumerID, cordonTenant, o, sink)
}

// UncordonTenant is liqoctl uncordon tenant: a Cordoned Tenant becomes
// Active, without confirmation.
func UncordonTenant(ctx context.Context, provider *kube.Cluster, consumerID string, sink handshake.Sink) error {
	return moveTenant(ctx, provider, consumerID, uncordonTenant, ConfirmOptions{}, sink)
}

// DrainTenant is liqoctl drain tenant: the Tenant becomes Drained, after
// confirmation.
func DrainTenant(ctx context.Context, provider *kube.Cluster, consumerID string, o ConfirmOptions, sink handshake.Sink) error {
	return moveTenant(ctx, provider, consumerID, drainTenant, o, sink)
}

// ActivateTenant is liqoctl activate tenant: a Cordoned or Drained Tenant
// becomes Active, without confirmation.
func ActivateTenant(ctx context.Context, provider *kube.Cluster, consumerID string, sink handshake.Sink) error {
	return moveTenant(ctx, provider, consumerID, activateTenant, ConfirmOptions{}, sink)
}

// moveTenant reads the Tenant and, writing nothing until all is known to
// be right and confirmed, sets its condition. A Tenant already there is
// left as it is.
func moveTenant(ctx context.Context, provider *kube.Cluster, consumerID string, m tenantMove, o ConfirmOptions, sink handshake.Sink) error {
	sink = step.OrDiscard(sink)
	t, err := findTenant(ctx, provider, consumerID)
	if err != nil {
		return err
	}
	current := kube.TenantConditionOf(t)
	change := current != m.to
	if change && !slices.Contains(m.from, current) {
		return fmt.Errorf("Tenant %s is %s and %s changes only one that is %s: nothing changed (`liqo-auth-tui activate tenant %s` makes it Active)",
			t.Name, current, m.verb, orJoin(m.from), t.Name)
	}
	if change && m.risk != "" && !o.confirmed(m.verb, fmt.Sprintf(m.risk, t.Spec.ClusterID)) {
		return ErrNotConfirmed
	}
	err = RunStep(ctx, sink, Step{ID: m.verb + "-tenant", Scope: handshake.Local, Title: "Setting Tenant " + t.Name + " " + string(m.to),
		Failure: "Unable to " + m.verb + " Tenant " + t.Name, Command: "liqoctl " + m.verb + " tenant " + t.Name,
		Run: func(ctx context.Context) error {
			if !change {
				return nil
			}
			_, err := provider.SetTenantCondition(ctx, t, m.to)
			return changedMeanwhile(err, "Tenant "+t.Name)
		},
		Outcome: func() string {
			if !change {
				return fmt.Sprintf("Tenant %s is already %s: nothing changed", t.Name, m.to)
			}
			return fmt.Sprintf("Tenant %s %s: %s", t.Name, m.done, m.effect)
		}})
	if err == nil && change {
		noteIfUnserved(ctx, provider, sink)
	}
	return err
}

func orJoin(conditions []authv1beta1.TenantCondition) string {
	if len(conditions) == 2 {
		return string(conditions[0]) + " or " + string(conditions[1])
	}
	return string(conditions[0])
}

// changedMeanwhile says what to do when the object changed after it was
// read (the write carries the resourceVersion read).
func changedMeanwhile(err error, what string) error {
	if apierrors.IsConflict(err) {
		return fmt.Errorf("%s changed while this command ran, so nothing changed: run it again", what)
	}
	return err
}

// noteIfUnserved says when nothing serves the provider: the condition or
// the cordon is recorded, and acted on once a controller runs.
func noteIfUnserved(ctx context.Context, provider *kube.Cluster, sink handshake.Sink) {
	if engine, err := serving.Detect(ctx, provider); err == nil && engine == "" {
		sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Local,
			Message: "No controller serves this cluster (neither Liqo nor liqo-auth-controller runs): nothing acts on the change until one does (`liqo-auth-tui install controller`)"})
	}
}

// sliceMove is liqoctl's cordon or uncordon of one ResourceSlice.
type sliceMove struct {
	verb, done string
	cordon     bool
	// risk (with the slice and the consumer) is asked before the change.
	risk string
}

var (
	cordonSlice = sliceMove{verb: "cordon", done: "cordoned", cordon: true,
		risk: "Liqo's offloading admits no new pods through ResourceSlice %s of consumer %s (those running stay)"}
	uncordonSlice = sliceMove{verb: "uncordon", done: "uncordoned",
		risk: "Liqo's offloading admits new pods through ResourceSlice %s of consumer %s again"}
)

// CordonResourceSlice is liqoctl cordon resourceslice on a provider: the
// copy of a consumer's slice gets liqo.io/cordon, after confirmation.
func CordonResourceSlice(ctx context.Context, provider *kube.Cluster, name, consumerID string, o ConfirmOptions, sink handshake.Sink) error {
	return moveSlice(ctx, provider, name, consumerID, cordonSlice, o, sink)
}

// UncordonResourceSlice is liqoctl uncordon resourceslice on a provider:
// liqo.io/cordon goes, after confirmation (liqoctl asks here too).
func UncordonResourceSlice(ctx context.Context, provider *kube.Cluster, name, consumerID string, o ConfirmOptions, sink handshake.Sink) error {
	return moveSlice(ctx, provider, name, consumerID, uncordonSlice, o, sink)
}

func moveSlice(ctx context.Context, provider *kube.Cluster, name, consumerID string, m sliceMove, o ConfirmOptions, sink handshake.Sink) error {
	sink = step.OrDiscard(sink)
	rs, err := findProvidedSlice(ctx, provider, name, consumerID, m.verb)
	if err != nil {
		return err
	}
	change := kube.SliceCordoned(rs) != m.cordon
	if change && !o.confirmed(m.verb, fmt.Sprintf(m.risk, name, consumerID)) {
		return ErrNotConfirmed
	}
	what := "ResourceSlice " + rs.Namespace + "/" + rs.Name
	err = RunStep(ctx, sink, Step{ID: m.verb + "-resourceslice", Scope: handshake.Local, Title: "Setting the cordon of " + what,
		Failure: "Unable to " + m.verb + " " + what, Command: "liqoctl " + m.verb + " resourceslice " + name + " --remote-cluster-id " + consumerID,
		Run: func(ctx context.Context) error {
			if !change {
				return nil
			}
			_, err := provider.SetSliceCordon(ctx, rs, m.cordon)
			return changedMeanwhile(err, what)
		},
		Outcome: func() string {
			if !change {
				return fmt.Sprintf("%s is already %s: nothing changed", what, m.done)
			}
			return fmt.Sprintf("%s %s (annotation liqo.io/cordon)", what, m.done)
		}})
	if err == nil && change {
		noteIfNoOffloading(ctx, provider, sink)
	}
	return err
}

// noteIfNoOffloading says when the provider does not run Liqo: only Liqo's
// offloading reads liqo.io/cordon (the authentication module, Liqo's and
// this project's, does not), so the mark waits for it.
func noteIfNoOffloading(ctx context.Context, provider *kube.Cluster, sink handshake.Sink) {
	if liqo, err := provider.LiqoInstalled(ctx); err == nil && !liqo {
		sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Local,
			Message: "This cluster does not run Liqo: only Liqo's offloading reads liqo.io/cordon, so nothing acts on it until Liqo runs here"})
	}
}
