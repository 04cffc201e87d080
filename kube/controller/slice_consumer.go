package controller

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// sliceConsumer completes the ResourceSlices made on this consumer and
// turns the provider's answer into an Identity (§10.1): it fills the
// cluster IDs and the CSR (signed with the cluster key) of a slice labelled
// for replication in a tenant namespace, adding no label, as Liqo's; once the provider accepted it
// (status copied back by the replicator), it makes the Identity
// resourceslice-<slice>, from which the Identity reconciler makes the
// kubeconfig; a denied slice loses its Identity.
type sliceConsumer struct {
	c          *kube.Cluster
	events     *events
	slices     cache.Indexer // local ResourceSlices
	identities cache.Indexer // ResourceSlice Identities (namespace/name)
	namespaces tenantNamespaces

	mu        sync.Mutex
	clusterID string // this cluster's, read once
}

func (r *sliceConsumer) sync(ctx context.Context, key string) (time.Duration, error) {
	obj, exists, err := r.slices.GetByKey(key)
	if err != nil || !exists {
		return 0, err // the Identity goes with the slice (owner reference)
	}
	rs := obj.(*authv1beta1.ResourceSlice).DeepCopy()
	// As Liqo's local ResourceSlice controller, only the slices asked to be
	// replicated somewhere (liqoctl's labels): one without them is the
	// admin's, left alone.
	if rs.DeletionTimestamp != nil || kube.IsReplicatedSlice(rs) || rs.Labels[kube.ReplicationLabel] != "true" || rs.Labels[kube.RemoteIDLabel] == "" {
		return 0, nil
	}
	ns, err := r.namespaces.lister.Get(rs.Namespace)
	if kube.IsNotFound(err) || err == nil && ns.Labels[kube.TenantNamespaceLabel] == "" {
		return 0, nil // not in a tenant namespace: not ours to complete
	}
	if err != nil {
		return 0, err
	}
	providerID := rs.Labels[kube.RemoteClusterIDLabel]
	if providerID == "" {
		providerID = ns.Labels[kube.RemoteClusterIDLabel]
	}
	if providerID == "" {
		r.events.warning(ctx, rs, ReasonMissingRemoteClusterID, fmt.Sprintf("Neither the ResourceSlice nor its namespace has label %s: which provider is it for?", kube.RemoteClusterIDLabel))
		return 0, nil
	}
	if rs, err = r.complete(ctx, rs, providerID); err != nil {
		return 0, err
	}
	switch kube.SliceConditionStatus(rs, authv1beta1.ResourceSliceConditionTypeAuthentication) {
	case authv1beta1.ResourceSliceConditionAccepted:
		if rs.Status.AuthParams != nil {
			return 0, r.ensureIdentity(ctx, rs, providerID)
		}
	case authv1beta1.ResourceSliceConditionDenied:
		return 0, r.deleteIdentity(ctx, rs)
	}
	return 0, nil
}

// complete fills what the consumer owes the slice (IDs, labels, CSR) and
// writes it when something was missing.
func (r *sliceConsumer) complete(ctx context.Context, rs *authv1beta1.ResourceSlice, providerID string) (*authv1beta1.ResourceSlice, error) {
	want := rs.DeepCopy()
	consumerID, err := r.ownID(ctx)
	if err != nil {
		return nil, err
	}
	if want.Spec.ConsumerClusterID == "" {
		want.Spec.ConsumerClusterID = consumerID
	}
	if want.Spec.ProviderClusterID == "" {
		want.Spec.ProviderClusterID = providerID
	}
	csrCreated := false
	if len(want.Spec.CSR) == 0 {
		key, _, err := r.c.PrivateKey(ctx)
		if err != nil {
			r.events.warning(ctx, rs, ReasonKubeconfigFailed, fmt.Sprintf("Unable to sign the ResourceSlice CSR: %v", err))
			return nil, err
		}
		if want.Spec.CSR, err = authcrypto.NewResourceSliceCSR(key, rs.Name, want.Spec.ConsumerClusterID); err != nil {
			return nil, err
		}
		csrCreated = true
	}
	if apiequality.Semantic.DeepEqual(rs.Spec, want.Spec) {
		return rs, nil
	}
	updated, err := r.c.Liqo.ResourceSlices(rs.Namespace).Update(ctx, want, metav1.UpdateOptions{})
	if err != nil {
		return nil, err
	}
	if csrCreated {
		r.events.normal(ctx, updated, ReasonResourceSliceCSRCreated, "ResourceSlice CSR created for user "+kube.ResourceSliceUser(rs.Name, want.Spec.ConsumerClusterID))
	}
	return updated, nil
}

func (r *sliceConsumer) ownID(ctx context.Context) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.clusterID == "" {
		id, err := r.c.ClusterID(ctx)
		if err != nil {
			return "", err
		}
		r.clusterID = id
	}
	return r.clusterID, nil
}

// ensureIdentity creates or updates the slice's Identity, writing only on a
// change.
func (r *sliceConsumer) ensureIdentity(ctx context.Context, rs *authv1beta1.ResourceSlice, providerID string) error {
	want := kube.ForgeResourceSliceIdentity(rs, providerID)
	identities := r.c.Liqo.Identities(rs.Namespace)
	obj, exists, err := r.identities.GetByKey(rs.Namespace + "/" + want.Name)
	if err != nil {
		return err
	}
	if !exists {
		_, err := identities.Create(ctx, want, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return err // the informer is behind: retried once it caught up
		}
		if err == nil {
			r.events.normal(ctx, rs, ReasonIdentityEnsured, "Identity "+want.Name+" created")
		}
		return err
	}
	existing := obj.(*authv1beta1.Identity)
	updated := existing.DeepCopy()
	updated.Labels = merge(updated.Labels, want.Labels)
	updated.OwnerReferences = withController(updated.OwnerReferences, want.OwnerReferences[0])
	updated.Spec = want.Spec
	if apiequality.Semantic.DeepEqual(existing.Spec, updated.Spec) && maps.Equal(existing.Labels, updated.Labels) &&
		apiequality.Semantic.DeepEqual(existing.OwnerReferences, updated.OwnerReferences) {
		return nil
	}
	if _, err := identities.Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return err
	}
	r.events.normal(ctx, rs, ReasonIdentityEnsured, "Identity "+want.Name+" updated")
	return nil
}

// deleteIdentity removes the Identity of a denied slice (its kubeconfig
// Secret goes with it).
func (r *sliceConsumer) deleteIdentity(ctx context.Context, rs *authv1beta1.ResourceSlice) error {
	name := kube.ResourceSliceIdentityName(rs.Name)
	if _, exists, err := r.identities.GetByKey(rs.Namespace + "/" + name); err != nil || !exists {
		return err
	}
	err := r.c.Liqo.Identities(rs.Namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if kube.IsNotFound(err) {
		return nil
	}
	if err == nil {
		klog.FromContext(ctx).Info("Identity of a denied ResourceSlice deleted", "slice", klog.KObj(rs))
		r.events.normal(ctx, rs, ReasonIdentityDeleted, "Identity "+name+" deleted: the provider denied the ResourceSlice")
	}
	return err
}
