package doctor

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

const replicationCheckID, replicationCheckTitle = "replication", "replication to the provider"

// replicationGrace is how long a consumer's object may go without its
// copy on the provider, or stay Terminating, before doctor calls it stuck:
// a replicator copies within seconds.
const replicationGrace = time.Minute

// replicated is one object the consumer's replicator copies to the
// provider (§10: ResourceSlices and Renews), with its copy there.
type replicated struct {
	kind, resource string
	local, copied  metav1.Object
}

func (r replicated) name() string {
	return r.kind + " " + r.local.GetNamespace() + "/" + r.local.GetName()
}

// checkReplication: the consumer's replicator is refused by the provider
// (its Warning ReplicationForbidden says what the provider answered), an
// object it made has no copy on the provider after a while (both sides
// read), or an object is stuck Terminating on a replicator's finalizer.
func checkReplication(ctx context.Context, d *run, p *pair) []Check {
	if p.row.Generation != handshake.GenerationV1 || p.row.Role == handshake.RoleUnknown {
		return nil
	}
	consumer, provider := p.consumer, p.provider
	objects := replicatedObjects(consumer, provider)
	if len(objects) == 0 {
		return nil
	}
	c := replicationVerdict(ctx, d, consumer, provider, objects)
	c.Scope = consumer.scope
	if !consumer.read() {
		c.Scope = provider.scope
	}
	return []Check{c}
}

func replicationVerdict(ctx context.Context, d *run, consumer, provider *side, objects []replicated) Check {
	fail := func(cause, fix string, repair bool) Check {
		c := failed(replicationCheckID, replicationCheckTitle, cause, fix)
		if repair {
			c.Repair = restoreReplicationRepair(d, consumer, provider, objects)
		}
		return c
	}
	refused := refusals(ctx, consumer, provider, objects)
	for _, o := range objects {
		if o.local == nil {
			if stuck := stuckDeleting(o.copied, d.now); stuck != "" {
				return fail("the copy of "+o.kind+" "+o.copied.GetNamespace()+"/"+o.copied.GetName()+" on the provider "+stuck,
					unstickFix(ctx, o.copied, o.resource, provider), false)
			}
			continue
		}
		if stuck := stuckDeleting(o.local, d.now); stuck != "" {
			return fail(o.name()+" "+stuck+blockedBy(o, provider), leftCopyFix(ctx, o, consumer, provider), false)
		}
		if o.local.GetDeletionTimestamp() != nil {
			continue
		}
		if e := refused[o.local.GetUID()]; e != nil && (!provider.read() || o.copied == nil) {
			return fail("the provider refuses the copy of "+o.name()+": "+refusalText(e), replicationFix(d, consumer, provider), true)
		}
		if provider.read() && o.copied == nil && d.now.Sub(o.local.GetCreationTimestamp().Time) > replicationGrace {
			if cons := consumer.controllers(ctx); cons.notRunning() {
				return fail(o.name()+" has no copy on the provider "+age(o.local, d.now)+": "+consumer.noController()+" to replicate it",
					consumer.on(installController), false)
			}
			return fail(o.name()+" has no copy on the provider "+age(o.local, d.now)+": nothing copied it", replicationFix(d, consumer, provider), true)
		}
	}
	var names []string
	for _, o := range objects {
		if o.local != nil && o.copied != nil {
			names = append(names, o.kind+" "+o.local.GetName())
		}
	}
	detail := "copied to the provider: " + strings.Join(names, ", ")
	switch {
	case !provider.read():
		detail = fmt.Sprintf("%d objects to copy, no refusal reported", len(objects))
	case !consumer.read():
		detail = fmt.Sprintf("%d copies from the consumer, none stuck", len(objects))
	case len(names) == 0:
		detail = "nothing to copy yet"
	}
	return passed(replicationCheckID, replicationCheckTitle, detail)
}

// refusals are the last ReplicationForbidden Warning of each consumer
// object (this tool's replicator; Liqo's only logs), one list per
// namespace of the objects it may concern.
func refusals(ctx context.Context, consumer, provider *side, objects []replicated) map[types.UID]*corev1.Event {
	out := map[types.UID]*corev1.Event{}
	listed := map[string]bool{}
	for _, o := range objects {
		if o.local == nil || o.local.GetDeletionTimestamp() != nil || provider.read() && o.copied != nil || listed[o.local.GetNamespace()] {
			continue
		}
		listed[o.local.GetNamespace()] = true
		maps.Copy(out, consumer.latestEvents(ctx, o.local.GetNamespace(), fields.Set{"reason": controller.ReasonReplicationForbidden}))
	}
	return out
}

// replicatedObjects pairs the consumer's objects meant for the provider
// with their copies there (by name), and adds the copies left without a
// local object.
func replicatedObjects(consumer, provider *side) []replicated {
	var out []replicated
	copies := map[string]replicated{}
	if provider.read() {
		for _, s := range provider.objects.Slices {
			if kube.IsReplicatedSlice(s) && s.Labels[kube.OriginIDLabel] == consumer.id {
				copies[authv1beta1.ResourceSliceKind+"/"+s.Name] = replicated{kind: authv1beta1.ResourceSliceKind, resource: authv1beta1.ResourceSliceResource, copied: s}
			}
		}
		for _, r := range provider.objects.Renews {
			if kube.IsReplicatedSlice(r) && r.Labels[kube.OriginIDLabel] == consumer.id {
				copies[authv1beta1.RenewKind+"/"+r.Name] = replicated{kind: authv1beta1.RenewKind, resource: authv1beta1.RenewResource, copied: r}
			}
		}
	}
	add := func(kind, resource string, local metav1.Object) {
		key := kind + "/" + local.GetName()
		o := copies[key]
		delete(copies, key)
		o.kind, o.resource, o.local = kind, resource, local
		out = append(out, o)
	}
	if consumer.read() {
		for _, s := range consumer.objects.Slices {
			if forProvider(s, provider.id) {
				add(authv1beta1.ResourceSliceKind, authv1beta1.ResourceSliceResource, s)
			}
		}
		for _, r := range consumer.objects.Renews {
			if forProvider(r, provider.id) {
				add(authv1beta1.RenewKind, authv1beta1.RenewResource, r)
			}
		}
	}
	for _, o := range copies {
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b replicated) int { return strings.Compare(a.kind+a.nameOf(), b.kind+b.nameOf()) })
	return out
}

func (r replicated) nameOf() string {
	if r.local != nil {
		return r.local.GetName()
	}
	return r.copied.GetName()
}

// forProvider: a local object the replicator copies to providerID.
func forProvider(o metav1.Object, providerID string) bool {
	l := o.GetLabels()
	return l[kube.ReplicationLabel] == "true" && l[kube.RemoteIDLabel] == providerID && !kube.IsReplicatedSlice(o)
}

// stuckDeleting says how long an object has been Terminating and what
// holds it, once that is longer than replicationGrace ("" before).
func stuckDeleting(o metav1.Object, now time.Time) string {
	del := o.GetDeletionTimestamp()
	if del == nil || now.Sub(del.Time) <= replicationGrace || len(o.GetFinalizers()) == 0 {
		return ""
	}
	return fmt.Sprintf("has been Terminating since %s, held by finalizer %s", handshake.TimeText(del.Time), strings.Join(o.GetFinalizers(), ", "))
}

// blockedBy says what the replicator's finalizer on a local object waits
// for: its copy gone from the provider.
func blockedBy(o replicated, provider *side) string {
	if !slices.Contains(o.local.GetFinalizers(), kube.ReplicaFinalizer) {
		return ""
	}
	switch {
	case !provider.read():
		return ", which goes once its copy on the provider is deleted"
	case o.copied == nil:
		return ", though its copy on the provider is gone"
	case o.copied.GetDeletionTimestamp() != nil:
		return ", waiting for its copy on the provider, itself Terminating (finalizers " + strings.Join(o.copied.GetFinalizers(), ", ") + ")"
	}
	return ", waiting for its copy on the provider, still there"
}

// leftCopyFix: the consumer's replicator lets the local object go once
// its copy is gone; with the replicator running, the copy is what is left
// (deleted by the provider's administrator).
func leftCopyFix(ctx context.Context, o replicated, consumer, provider *side) string {
	if cons := consumer.controllers(ctx); cons.notRunning() {
		return consumer.on(installController)
	}
	if o.copied != nil && o.copied.GetDeletionTimestamp() != nil {
		return unstickFix(ctx, o.copied, o.resource, provider)
	}
	ns := provider.tenantNamespace(consumer.id)
	if o.copied != nil {
		ns = o.copied.GetNamespace()
	}
	return provider.on(fmt.Sprintf("kubectl delete %s.%s %s -n %s --ignore-not-found", o.resource, authv1beta1.GroupVersion.Group, o.local.GetName(), ns))
}

// unstickFix lets an object held by finalizers go: the controller that
// owns them when it is this tool's and does not run, else the finalizers
// taken off by hand (what the controller would have done is then left
// undone: the provider's administrator decides).
func unstickFix(ctx context.Context, o metav1.Object, resource string, side *side) string {
	if side.controllers(ctx).notRunning() {
		return side.on(installController)
	}
	return side.on(fmt.Sprintf(`kubectl patch %s.%s %s -n %s --type=merge -p '{"metadata":{"finalizers":null}}'`,
		resource, authv1beta1.GroupVersion.Group, o.GetName(), o.GetNamespace()))
}

func age(o metav1.Object, now time.Time) string {
	return "after " + now.Sub(o.GetCreationTimestamp().Time).Round(time.Second).String()
}
