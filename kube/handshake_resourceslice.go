package kube

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// ResourceSliceLabels are the labels of a consumer's ResourceSlice (§10.1):
// replicate it to the provider, which is also its remote cluster.
func ResourceSliceLabels(providerID string) map[string]string {
	return map[string]string{ReplicationLabel: "true", RemoteIDLabel: providerID, RemoteClusterIDLabel: providerID}
}

// ForgeResourceSlice builds a consumer's ResourceSlice as liqoctl create
// resourceslice does: in the tenant namespace of the provider, labelled for
// replication, annotated for a VirtualNode unless told not to. The consumer
// controller fills the cluster IDs and the CSR.
func ForgeResourceSlice(name, namespace, providerID string, class authv1beta1.ResourceSliceClass, resources corev1.ResourceList, virtualNode bool) *authv1beta1.ResourceSlice {
	rs := &authv1beta1.ResourceSlice{
		TypeMeta:   metav1.TypeMeta{APIVersion: authv1beta1.GroupVersion.String(), Kind: authv1beta1.ResourceSliceKind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: ResourceSliceLabels(providerID)},
		Spec:       authv1beta1.ResourceSliceSpec{ProviderClusterID: providerID, Class: class, Resources: resources},
	}
	if virtualNode {
		rs.Annotations = map[string]string{CreateVirtualNodeAnnotation: "true"}
	}
	return rs
}

// IsReplicatedSlice tells a provider's copy of a consumer's slice from a
// slice made on this cluster.
func IsReplicatedSlice(rs metav1.Object) bool { return rs.GetLabels()[ReplicatedLabel] == "true" }

// SliceCondition returns the condition of type t, nil when there is none.
func SliceCondition(rs *authv1beta1.ResourceSlice, t authv1beta1.ResourceSliceConditionType) *authv1beta1.ResourceSliceCondition {
	for i := range rs.Status.Conditions {
		if rs.Status.Conditions[i].Type == t {
			return &rs.Status.Conditions[i]
		}
	}
	return nil
}

// SliceConditionStatus is the status of the condition of type t, "" when
// there is none.
func SliceConditionStatus(rs *authv1beta1.ResourceSlice, t authv1beta1.ResourceSliceConditionType) authv1beta1.ResourceSliceConditionStatus {
	if c := SliceCondition(rs, t); c != nil {
		return c.Status
	}
	return ""
}

// The reasons and messages of the conditions Liqo's provider writes in a
// ResourceSlice's status (remoteresourceslice-controller), which liqoctl
// info peer prints; the why of a denial is in the provider's Events.
const (
	SliceAuthenticationAcceptedReason  = "ResourceSliceAuthenticationAccepted"
	SliceAuthenticationAcceptedMessage = "ResourceSlice authentication accepted"
	SliceAuthenticationDeniedReason    = "ResourceSliceAuthenticationDenied"
	SliceAuthenticationDeniedMessage   = "ResourceSlice authentication denied"
	SliceResourcesAcceptedReason       = "ResourceSliceResourcesAccepted"
	SliceResourcesAcceptedMessage      = "ResourceSlice resources accepted"
	SliceResourcesDeniedReason         = "ResourceSliceResourcesDenied"
	SliceResourcesDeniedMessage        = "ResourceSlice resources denied"
	// SliceDefaultClassDisabledReason denies Resources to a slice of the
	// default class where the provider grants none (Liqo's next release,
	// --default-resource-slice-class-enabled=false); the message is ours.
	SliceDefaultClassDisabledReason  = "DefaultResourceSliceClassDisabled"
	SliceDefaultClassDisabledMessage = "ResourceSlices of the default class are disabled on this provider"
)

// SetSliceCondition sets a condition in conds; its lastTransitionTime
// changes (to now) when its status, reason or message does, as Liqo's
// EnsureCondition bumps it, so that an unchanged decision writes nothing.
func SetSliceCondition(conds []authv1beta1.ResourceSliceCondition, t authv1beta1.ResourceSliceConditionType,
	status authv1beta1.ResourceSliceConditionStatus, reason, message string, now metav1.Time) []authv1beta1.ResourceSliceCondition {
	for i := range conds {
		if conds[i].Type != t {
			continue
		}
		if conds[i].Status != status || conds[i].Reason != reason || conds[i].Message != message {
			conds[i].LastTransitionTime = now
		}
		conds[i].Status, conds[i].Reason, conds[i].Message = status, reason, message
		return conds
	}
	return append(conds, authv1beta1.ResourceSliceCondition{Type: t, Status: status, Reason: reason, Message: message, LastTransitionTime: now})
}

// ForgeResourceSliceIdentity is the Identity a consumer makes for a slice
// the provider accepted (§10.1): resourceslice-<slice> in the slice's
// namespace, owned by the slice, without spec.namespace (a slice's user
// works cluster-wide on the provider).
func ForgeResourceSliceIdentity(rs *authv1beta1.ResourceSlice, providerID string) *authv1beta1.Identity {
	id := &authv1beta1.Identity{
		TypeMeta: metav1.TypeMeta{APIVersion: authv1beta1.GroupVersion.String(), Kind: authv1beta1.IdentityKind},
		ObjectMeta: metav1.ObjectMeta{Name: ResourceSliceIdentityName(rs.Name), Namespace: rs.Namespace,
			Labels: map[string]string{RemoteClusterIDLabel: providerID, ResourceSliceNameLabel: rs.Name},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(rs,
				authv1beta1.GroupVersion.WithKind(authv1beta1.ResourceSliceKind))},
		},
		Spec: authv1beta1.IdentitySpec{ClusterID: providerID, Type: authv1beta1.ResourceSliceIdentityType},
	}
	if rs.Status.AuthParams != nil {
		id.Spec.AuthParams = *rs.Status.AuthParams.DeepCopy()
	}
	return id
}

// LocalResourceSlices lists the slices this consumer made (not replicated
// copies), for one provider or all ("").
func (c *Cluster) LocalResourceSlices(ctx context.Context, providerID string) ([]authv1beta1.ResourceSlice, error) {
	sel := labels.Set{ReplicationLabel: "true"}
	if providerID != "" {
		sel[RemoteClusterIDLabel] = providerID
	}
	list, err := c.Liqo.ResourceSlices("").List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	out := list.Items[:0]
	for _, rs := range list.Items {
		if !IsReplicatedSlice(&rs) {
			out = append(out, rs)
		}
	}
	return out, nil
}

// FindResourceSlice finds a consumer's slice by name (names are unique per
// cluster, §10.1) for a provider ("" = any).
func (c *Cluster) FindResourceSlice(ctx context.Context, name, providerID string) (*authv1beta1.ResourceSlice, error) {
	list, err := c.LocalResourceSlices(ctx, providerID)
	if err != nil {
		return nil, err
	}
	var found []authv1beta1.ResourceSlice
	for _, rs := range list {
		if rs.Name == name {
			found = append(found, rs)
		}
	}
	switch len(found) {
	case 0:
		return nil, apierrors.NewNotFound(authv1beta1.Resource(authv1beta1.ResourceSliceResource), name)
	case 1:
		return &found[0], nil
	}
	return nil, fmt.Errorf("multiple ResourceSlices named %s found (namespaces %s and %s): give --remote-cluster-id", name, found[0].Namespace, found[1].Namespace)
}
