package controller

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// replicaOps is what FinalizeReplicas does with each replicated kind.
type replicaOps interface {
	countCopies(ctx context.Context, rem *remote, me string) (int, error)
	finalize(ctx context.Context, c *kube.Cluster, rem *remote, providerID, me string) (live int, left []string, err error)
}

var replicatedKinds = []replicaOps{sliceKind, renewKind}

// countCopies counts the copies this consumer made on the provider, of
// every replicated kind (a kind the provider does not serve has none).
func countCopies(ctx context.Context, rem *remote, me string) (int, error) {
	total := 0
	for _, k := range replicatedKinds {
		n, err := k.countCopies(ctx, rem, me)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

func (k replicaKind[T, L]) countCopies(ctx context.Context, rem *remote, me string) (int, error) {
	list, err := k.client(rem.liqo, rem.namespace).List(ctx, metav1.ListOptions{LabelSelector: kube.ReplicaSelector(me)})
	if kube.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return meta.LenList(list), nil
}

// FinalizeReplicas does once, in place of a replicator that does not run
// (unauthenticate, §9.3), the replicator's part for what was replicated to
// providerID: the copies of the local objects being deleted, and those
// left with no local object, are deleted on the provider through the
// control-plane kubeconfig and awaited (ctx bounds the wait); the local
// objects are then let go, and last the kubeconfig Secret when it is being
// deleted and nothing replicated through it remains. With providerGone the
// provider is not reached (its copies went with it): the finalizers are
// only taken off. It returns the copies it had to leave on the provider
// (refused: the provider drained or deleted the Tenant), as Liqo does.
func FinalizeReplicas(ctx context.Context, c *kube.Cluster, providerID string, providerGone bool) (left []string, err error) {
	me, err := c.ClusterID(ctx)
	if err != nil {
		return nil, err
	}
	s, err := c.KubeconfigSecretFor(ctx, providerID)
	if kube.IsNotFound(err) {
		s, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rem *remote
	if s != nil && !providerGone {
		if rem, _, err = remoteFrom(s, providerID); err != nil {
			return nil, err
		}
	}
	live := 0
	for _, k := range replicatedKinds {
		n, l, err := k.finalize(ctx, c, rem, providerID, me)
		if err != nil {
			return left, err
		}
		live += n
		left = append(left, l...)
	}
	if s == nil || s.DeletionTimestamp == nil || live > 0 {
		return left, nil
	}
	patch, change := kube.FinalizerPatch(s, kube.ReplicatorSecretFinalizer, false)
	if !change {
		return left, nil
	}
	_, err = c.Kube.CoreV1().Secrets(s.Namespace).Patch(ctx, s.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if kube.IsNotFound(err) {
		err = nil
	}
	return left, err
}

// finalize deletes, when rem is given, the copies of the local objects of
// this kind being deleted and those with no local object, and waits for
// them to go; then lets the local objects go. It returns how many local
// objects still want a copy.
func (k replicaKind[T, L]) finalize(ctx context.Context, c *kube.Cluster, rem *remote, providerID, me string) (int, []string, error) {
	list, err := k.client(c.Liqo, "").List(ctx, metav1.ListOptions{LabelSelector: kube.ReplicationSelector(providerID)})
	if err != nil {
		return 0, nil, err
	}
	objs, err := meta.ExtractList(list)
	if err != nil {
		return 0, nil, err
	}
	var live, leaving []T
	for _, o := range objs {
		if t, ok := o.(T); ok && t.GetDeletionTimestamp() != nil {
			leaving = append(leaving, t)
		} else if ok {
			live = append(live, t)
		}
	}
	var left []string
	if rem != nil {
		names, err := k.retiredCopies(ctx, rem, me, live, leaving)
		if err != nil {
			return 0, nil, err
		}
		for _, name := range names {
			refused, err := k.deleteCopyAndWait(ctx, rem, name, me)
			if err != nil {
				return 0, left, err
			}
			if refused != nil {
				left = append(left, fmt.Sprintf("%s %s/%s (%v)", k.kind, rem.namespace, name, refused))
			}
		}
	}
	return len(live), left, k.release(ctx, c, leaving)
}

// retiredCopies names the copies no live local object wants: those of the
// objects being deleted, and those with no local object at all.
func (k replicaKind[T, L]) retiredCopies(ctx context.Context, rem *remote, me string, live, leaving []T) ([]string, error) {
	wanted := map[string]bool{}
	for _, o := range live {
		wanted[o.GetName()] = true
	}
	var names []string
	for _, o := range leaving {
		if !wanted[o.GetName()] && slices.Contains(o.GetFinalizers(), kube.ReplicaFinalizer) {
			names = append(names, o.GetName())
		}
	}
	copies, err := k.client(rem.liqo, rem.namespace).List(ctx, metav1.ListOptions{LabelSelector: kube.ReplicaSelector(me)})
	if kube.IsNotFound(err) || apierrors.IsForbidden(err) {
		return names, nil // not served, or refused: each name is tried, and told
	}
	if err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(copies)
	if err != nil {
		return nil, err
	}
	for _, o := range items {
		if m, err := meta.Accessor(o); err == nil && !wanted[m.GetName()] && !slices.Contains(names, m.GetName()) {
			names = append(names, m.GetName())
		}
	}
	return names, nil
}

// deleteCopyAndWait deletes one copy and waits until it is gone; a
// Forbidden is returned as refused (the copy is left).
func (k replicaKind[T, L]) deleteCopyAndWait(ctx context.Context, rem *remote, name, me string) (refused, err error) {
	client := k.client(rem.liqo, rem.namespace)
	for {
		gone, err := k.deleteCopy(ctx, rem, name, me)
		if apierrors.IsForbidden(err) {
			return err, nil
		}
		if err != nil || gone {
			return nil, err
		}
		lw := kube.ListWatch(client.List, client.Watch, kube.ByName(name))
		if err := kube.WaitForDeletion(ctx, lw, k.newObj(), fmt.Sprintf("the copy of %s %s on provider %s (namespace %s) is still there", k.kind, name, rem.providerID, rem.namespace)); err != nil {
			return nil, err
		}
	}
}
