package controller

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// Indexes of the local objects to replicate: by provider (liqo.io/remoteID)
// and by provider and name, the key of the replicator's queue.
const (
	byProvider     = "provider"
	byProviderName = "providerName"
)

// unlabelledPrefix marks the queue key (namespace/name) of a local object
// asking for replication without saying to which provider.
const unlabelledPrefix = "!"

// replicator is the consumer's replicator of one kind (Liqo's CRD
// replicator, §10): each local object labelled liqo.io/replication=true
// is copied, spec, labels and annotations, into the consumer's tenant
// namespace on the provider named by liqo.io/remoteID, and the status of
// the copy comes back. Its queue key is <providerID>/<name>, the identity
// of the copy: a copy with no local object left is deleted.
type replicator[T replicable, L runtime.Object] struct {
	k       replicaKind[T, L]
	c       *kube.Cluster
	events  *events
	local   cache.Indexer
	remotes *remotes
	self    *selfID
	loop    *loop
	refused refusals
}

// replicaIndexers index the local objects by provider and by copy.
var replicaIndexers = cache.Indexers{
	byProvider: func(obj any) ([]string, error) {
		if o := objectMeta(obj); o != nil && o.GetLabels()[kube.RemoteIDLabel] != "" {
			return []string{o.GetLabels()[kube.RemoteIDLabel]}, nil
		}
		return nil, nil
	},
	byProviderName: func(obj any) ([]string, error) {
		if o := objectMeta(obj); o != nil && o.GetLabels()[kube.RemoteIDLabel] != "" {
			return []string{o.GetLabels()[kube.RemoteIDLabel] + "/" + o.GetName()}, nil
		}
		return nil, nil
	},
}

// replicaKey is the queue key of a local object.
func replicaKey(obj any) string {
	o := objectMeta(obj)
	if o == nil {
		return ""
	}
	if p := o.GetLabels()[kube.RemoteIDLabel]; p != "" {
		return p + "/" + o.GetName()
	}
	return unlabelledPrefix + o.GetNamespace() + "/" + o.GetName()
}

// localHandler enqueues the copy of a local object; on an update, the
// copy it had before too (its provider may have changed).
func (r *replicator[T, L]) localHandler() cache.ResourceEventHandler {
	add := func(obj any) {
		if k := replicaKey(obj); k != "" {
			r.loop.queue.Add(k)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: add,
		UpdateFunc: func(old, cur any) {
			enqueueIfChanged(old, cur, func(cur any) { add(old); add(cur) })
		},
		DeleteFunc: func(obj any) {
			add(obj)
			if o := objectMeta(obj); o != nil && o.GetLabels()[kube.RemoteIDLabel] != "" {
				r.remotes.recheck(o.GetLabels()[kube.RemoteIDLabel]) // its kubeconfig Secret may wait for it
			}
		},
	}
}

// localLeft tells whether a local object (even one being deleted) is meant
// for the provider.
func (r *replicator[T, L]) localLeft(providerID string) bool {
	keys, _ := r.local.IndexKeys(byProvider, providerID)
	return len(keys) > 0
}

// enqueueProvider enqueues every local object meant for a provider (its
// kubeconfig Secret came, changed or went).
func (r *replicator[T, L]) enqueueProvider(providerID string) {
	objs, _ := r.local.ByIndex(byProvider, providerID)
	for _, obj := range objs {
		r.loop.queue.Add(replicaKey(obj))
	}
}

func (r *replicator[T, L]) resourceName() string { return r.k.resource }

func (r *replicator[T, L]) remoteInformer(c *kube.LiqoClient, namespace, selector string) cache.SharedIndexInformer {
	client := r.k.client(c, namespace)
	return cache.NewSharedIndexInformer(kube.ListWatch(client.List, client.Watch, kube.BySelector(selector)), r.k.newObj(), 0, cache.Indexers{})
}

// remoteChanged enqueues the copy: its status may have to come back, or
// it may have no local object any more.
func (r *replicator[T, L]) remoteChanged(providerID string, obj any) {
	if o := objectMeta(obj); o != nil {
		r.loop.queue.Add(providerID + "/" + o.GetName())
	}
}

func (r *replicator[T, L]) sync(ctx context.Context, key string) (time.Duration, error) {
	if nsName, ok := strings.CutPrefix(key, unlabelledPrefix); ok {
		return 0, r.warnUnlabelled(ctx, nsName)
	}
	providerID, name, _ := strings.Cut(key, "/")
	objs, err := r.local.ByIndex(byProviderName, key)
	if err != nil {
		return 0, err
	}
	live, leaving := splitLeaving[T](objs)
	if len(live) == 0 {
		r.refused.forget(key)
		return 0, r.retire(ctx, providerID, name, leaving)
	}
	// Another local object of that name keeps the copy: those going have
	// no copy of their own to wait for.
	if err := r.k.release(ctx, r.c, leaving); err != nil {
		return 0, err
	}
	local := r.pick(ctx, live)
	rem, err := r.remotes.get(ctx, providerID)
	if errors.Is(err, errNotServed) || err == nil && rem.informers[r.k.resource] == nil {
		// Not retried: only a new kubeconfig for the provider changes it.
		r.events.warning(ctx, local, ReasonReplicationFailed, fmt.Sprintf("Not replicated: provider %s serves no %s (%s): is it a Liqo v1 cluster?",
			providerID, r.k.resource, authv1beta1.GroupVersion))
		return 0, nil
	}
	if err != nil {
		reason := ReasonReplicationFailed
		if errors.Is(err, errNoKubeconfig) {
			reason = ReasonKubeconfigNotFound
		}
		r.events.warning(ctx, local, reason, fmt.Sprintf("Unable to replicate to provider %s: %v", providerID, err))
		return 0, err
	}
	me, err := r.self.get(ctx)
	if err != nil {
		return 0, err
	}
	// Held before it is copied: deleted, it goes only once its copy did.
	local, held, err := r.k.hold(ctx, r.c, local)
	if err != nil || !held {
		return 0, err // !held: deleted meanwhile, its deletion comes next
	}
	remoteCopy, err := r.ensureCopy(ctx, rem, local, me)
	if err != nil {
		return r.reportRemote(ctx, rem, local, key, err)
	}
	if r.refused.forget(key) {
		klog.FromContext(ctx).Info("Provider accepts the copy again", "kind", r.k.kind, "object", klog.KObj(local), "provider", providerID)
	}
	return 0, r.statusBack(ctx, local, remoteCopy)
}

// splitLeaving sorts local objects into those that want a copy and those
// being deleted.
func splitLeaving[T replicable](objs []any) (live, leaving []T) {
	for _, obj := range objs {
		if o, ok := obj.(T); ok {
			if o.GetDeletionTimestamp() != nil {
				leaving = append(leaving, o)
			} else {
				live = append(live, o)
			}
		}
	}
	return live, leaving
}

// pick returns the local object to replicate among those meant for the
// same copy (same name and provider, several namespaces; at least one):
// the oldest. The others are told they are not replicated.
func (r *replicator[T, L]) pick(ctx context.Context, live []T) T {
	locals := slices.Clone(live)
	slices.SortFunc(locals, func(a, b T) int {
		if c := a.GetCreationTimestamp().Compare(b.GetCreationTimestamp().Time); c != 0 {
			return c
		}
		return cmp.Compare(a.GetNamespace(), b.GetNamespace())
	})
	for _, other := range locals[1:] {
		r.events.warning(ctx, other, ReasonReplicationFailed, fmt.Sprintf(
			"Not replicated: %s %s/%s has the same name and provider and is replicated instead: rename one of them",
			r.k.kind, locals[0].GetNamespace(), locals[0].GetName()))
	}
	return locals[0]
}

// foreignCopyError: the provider holds an object of that name this
// consumer did not make; it is left alone.
type foreignCopyError struct{ kind, namespace, name, provider string }

func (e *foreignCopyError) Error() string {
	return fmt.Sprintf("a %s named %s already exists in namespace %s on provider %s and was not replicated from this cluster: rename the local one",
		e.kind, e.name, e.namespace, e.provider)
}

// ensureCopy creates or updates the copy on the provider: same name, the
// local spec, the local labels turned into the copy's (§10), the local
// annotations over the copy's (the provider's own, such as
// liqo.io/cordon-tenant, stay). It writes only on a change.
func (r *replicator[T, L]) ensureCopy(ctx context.Context, rem *remote, local T, me string) (T, error) {
	var none T
	client := r.k.client(rem.liqo, rem.namespace)
	wantLabels := kube.ReplicaLabels(local.GetLabels(), me)
	existing, found, err := r.k.remoteGet(ctx, rem, local.GetName())
	if err != nil {
		return none, err
	}
	if !found {
		obj := r.k.newObj()
		obj.SetName(local.GetName())
		obj.SetNamespace(rem.namespace)
		obj.SetLabels(wantLabels)
		obj.SetAnnotations(maps.Clone(local.GetAnnotations()))
		r.k.setSpec(obj, local)
		created, err := client.Create(ctx, obj, metav1.CreateOptions{})
		if err == nil {
			klog.FromContext(ctx).Info("Replicated to provider", "kind", r.k.kind, "object", klog.KObj(local), "provider", rem.providerID, "namespace", rem.namespace)
			return created, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return none, err
		}
		if existing, err = client.Get(ctx, local.GetName(), metav1.GetOptions{}); err != nil {
			return none, err
		}
	}
	if existing.GetLabels()[kube.OriginIDLabel] != me {
		return none, &foreignCopyError{kind: r.k.kind, namespace: rem.namespace, name: local.GetName(), provider: rem.providerID}
	}
	updated := existing.DeepCopyObject().(T)
	updated.SetLabels(wantLabels)
	annotations := maps.Clone(existing.GetAnnotations())
	if len(local.GetAnnotations()) > 0 && annotations == nil {
		annotations = map[string]string{}
	}
	maps.Copy(annotations, local.GetAnnotations())
	updated.SetAnnotations(annotations)
	r.k.setSpec(updated, local)
	if maps.Equal(existing.GetLabels(), wantLabels) && maps.Equal(existing.GetAnnotations(), annotations) && r.k.specEqual(existing, updated) {
		return existing, nil
	}
	res, err := client.Update(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		return none, err
	}
	klog.FromContext(ctx).V(1).Info("Replica updated on provider", "kind", r.k.kind, "object", klog.KObj(local), "provider", rem.providerID)
	return res, nil
}

// statusBack copies the status of the copy into the local object.
func (r *replicator[T, L]) statusBack(ctx context.Context, local, remoteCopy T) error {
	if r.k.statusEqual(local, remoteCopy) {
		return nil
	}
	updated := local.DeepCopyObject().(T)
	r.k.setStat(updated, remoteCopy)
	_, err := r.k.client(r.c.Liqo, local.GetNamespace()).UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	if kube.IsNotFound(err) {
		return nil // deleted meanwhile: its deletion comes next
	}
	return err
}

// retire deletes the copy that no local object wants (any more) and, once
// it is gone, lets the local objects being deleted go.
func (r *replicator[T, L]) retire(ctx context.Context, providerID, name string, leaving []T) error {
	gone, err := r.deleteCopy(ctx, providerID, name, leaving)
	if err != nil || !gone {
		return err // not gone: its deletion, seen by the provider's informer, brings the key back
	}
	return r.k.release(ctx, r.c, leaving)
}

// deleteCopy deletes the copy of that name this consumer made on the
// provider, and tells whether it is gone. A copy nothing can reach (no
// kubeconfig: the provider is forgotten), or that the provider refuses to
// delete (its Tenant drained or deleted; as Liqo does), counts as gone: the
// local objects waiting for it are told so.
func (r *replicator[T, L]) deleteCopy(ctx context.Context, providerID, name string, leaving []T) (bool, error) {
	rem, err := r.remotes.get(ctx, providerID)
	switch {
	case errors.Is(err, errNoKubeconfig):
		r.warnLeft(ctx, leaving, providerID, "", fmt.Sprintf("no control-plane kubeconfig for provider %s is left to reach it", providerID))
		return true, nil
	case errors.Is(err, errNotServed) || err == nil && rem.informers[r.k.resource] == nil:
		return true, nil // no such copy there
	case err != nil:
		return false, err
	}
	me, err := r.self.get(ctx)
	if err != nil {
		return false, err
	}
	gone, err := r.k.deleteCopy(ctx, rem, name, me)
	if apierrors.IsForbidden(err) {
		r.warnLeft(ctx, leaving, providerID, rem.namespace, fmt.Sprintf("provider %s refuses its deletion (its Tenant drained or deleted there?): %v", providerID, err))
		return true, nil
	}
	return gone, err
}

// warnLeft tells the local objects let go without their copy deleted.
func (r *replicator[T, L]) warnLeft(ctx context.Context, leaving []T, providerID, namespace, why string) {
	where := "in the consumer's tenant namespace there"
	if namespace != "" {
		where = "in namespace " + namespace + " there"
	}
	for _, o := range leaving {
		if !slices.Contains(o.GetFinalizers(), kube.ReplicaFinalizer) {
			continue
		}
		msg := fmt.Sprintf("Deleted without deleting its copy on provider %s: %s. The provider's administrator can delete it: kubectl delete %s %s %s",
			providerID, why, r.k.resource+"."+authv1beta1.GroupVersion.Group, o.GetName(), where)
		r.events.warning(ctx, o, ReasonReplicaLeft, msg)
		klog.FromContext(ctx).Info("Replica left on provider", "kind", r.k.kind, "object", klog.KObj(o), "provider", providerID, "reason", why)
	}
}

// reportRemote puts on the local object what the provider refused. A
// Forbidden (the provider drained or deleted this consumer's Tenant, or
// took its rights away) is told once and looked at again after a long
// back-off, or at once when the object or the kubeconfig changes; the
// rest is returned (retried with back-off).
func (r *replicator[T, L]) reportRemote(ctx context.Context, rem *remote, local T, key string, err error) (time.Duration, error) {
	var foreign *foreignCopyError
	switch {
	case errors.As(err, &foreign):
		r.events.warning(ctx, local, ReasonReplicationFailed, err.Error())
	case apierrors.IsForbidden(err):
		n := r.refused.note(key)
		recheck := refusalBackoff(n)
		if n > 0 {
			klog.FromContext(ctx).V(1).Info("Provider still refuses the copy", "kind", r.k.kind, "object", klog.KObj(local), "provider", rem.providerID, "recheckIn", recheck)
			return recheck, nil
		}
		user := rem.user
		if user == "" {
			user = "this cluster"
		}
		r.events.warning(ctx, local, ReasonReplicationForbidden, fmt.Sprintf(
			"Provider %s refuses the copy of %s %s: %v. The user %s needs get, list, watch, create, update and delete on %s and update on %s/status in namespace %s there: "+
				"the provider grants them through ClusterRole %s, bound in that namespace when it accepts the Tenant (re-run the authentication, or ask the provider's administrator). "+
				"Tried again when this object or the kubeconfig changes, else in %s",
			rem.providerID, r.k.kind, local.GetName(), err, user, r.k.resource, r.k.resource, rem.namespace, kube.RemoteControlPlaneClusterRole, recheck))
		klog.FromContext(ctx).Info("Provider refuses the copy: not retried until the object or the kubeconfig changes, or after a back-off",
			"kind", r.k.kind, "object", klog.KObj(local), "provider", rem.providerID, "err", err.Error(), "recheckIn", recheck)
		return recheck, nil
	case kube.IsNotFound(err):
		r.events.warning(ctx, local, ReasonReplicationFailed, fmt.Sprintf(
			"Provider %s has no namespace %s for this cluster (its Tenant is gone?): %v. Re-run the authentication with the provider", rem.providerID, rem.namespace, err))
	}
	return 0, err
}

// warnUnlabelled tells a local object labelled for replication that it
// does not say where to.
func (r *replicator[T, L]) warnUnlabelled(ctx context.Context, nsName string) error {
	obj, exists, err := r.local.GetByKey(nsName)
	if err != nil || !exists {
		return err
	}
	o := obj.(T)
	if o.GetLabels()[kube.RemoteIDLabel] != "" {
		return nil
	}
	r.events.warning(ctx, o, ReasonReplicationFailed, fmt.Sprintf("Labelled %s=true but not %s: add the label %s=<providerID> to say which provider to copy it to",
		kube.ReplicationLabel, kube.RemoteIDLabel, kube.RemoteIDLabel))
	return nil
}
