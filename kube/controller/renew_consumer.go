package controller

import (
	"bytes"
	"context"
	"crypto"
	"crypto/x509"
	"errors"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// renewer is the consumer's side of the provider-driven renewal (§10.2,
// v1.2.0+): one permanent Renew per Identity, which the replicator copies to
// the provider; when the provider's answer (the Renew status) carries a
// newer certificate, it goes into the Identity, whose reconciler then
// rewrites the kubeconfig Secret.
type renewer struct {
	c          *kube.Cluster
	events     *events
	identities cache.Indexer
	renews     cache.Indexer // Renews labelled liqo.io/replication=true
	self       *selfID
	now        func() time.Time // nil = time.Now
}

func (r *renewer) sync(ctx context.Context, key string) (time.Duration, error) {
	obj, exists, err := r.identities.GetByKey(key)
	if err != nil || !exists {
		return 0, err // its Renew goes with it (owner reference)
	}
	id := obj.(*authv1beta1.Identity)
	// Before its kubeconfig exists the Renew could not reach the provider
	// (the Identity's status change brings it back).
	if id.DeletionTimestamp != nil || id.Status.KubeconfigSecretRef == nil {
		return 0, nil
	}
	want, err := r.wantRenew(ctx, id)
	if want == nil || err != nil {
		return 0, err
	}
	// A provider that does not renew by itself (Liqo v1.0–v1.1) is asked
	// (renew_v11_consumer.go).
	existing, previous := r.cachedRenew(want)
	ask, requeueAfter := decideAsk(id, r.clock())
	slice := want.Spec.ResourceSliceRef != nil
	if slice && !ask.asking() {
		return requeueAfter, r.deleteRenew(ctx, existing)
	}
	if ask.asking() {
		if err := r.askForRenewal(ctx, want, existing, ask); err != nil {
			return 0, err
		}
	}
	renew, err := r.ensureRenew(ctx, want)
	if err != nil {
		return 0, err
	}
	renewed := false
	if !slice { // a slice's Identity is renewed from the slice's status
		if renewed, err = r.apply(ctx, id, renew); err != nil {
			return 0, err
		}
	}
	if ask.asking() {
		r.reportAsk(ctx, id, renew, previous, ask, renewed)
	}
	return requeueAfter, nil
}

// cachedRenew is the Identity's Renew as the cache has it, and the round
// of this consumer's ask it carries ("" if none).
func (r *renewer) cachedRenew(want *authv1beta1.Renew) (*authv1beta1.Renew, string) {
	obj, exists, err := r.renews.GetByKey(want.Namespace + "/" + want.Name)
	if err != nil || !exists {
		return nil, ""
	}
	renew := obj.(*authv1beta1.Renew)
	return renew, renew.Annotations[kube.RenewAskedAnnotation]
}

// wantRenew is the Renew of an Identity (§10.2): same name and namespace,
// owned by it, labelled for replication to its provider, and asking for
// nothing but the renewal of that identity. nil: the Identity is not
// renewed this way. As in Liqo v1.2, a ControlPlane Identity has one for
// good; a ResourceSlice Identity follows its slice, whose status brings the
// renewed certificate back (the slice Identity creator applies it), and
// has one only while this consumer asks for its renewal itself, as Liqo
// v1.0–v1.1 consumers do (renew_v11_consumer.go).
func (r *renewer) wantRenew(ctx context.Context, id *authv1beta1.Identity) (*authv1beta1.Renew, error) {
	var sliceRef *corev1.LocalObjectReference
	switch id.Spec.Type {
	case authv1beta1.ControlPlaneIdentityType:
	case authv1beta1.ResourceSliceIdentityType:
		slice := sliceOfIdentity(id)
		if slice == "" {
			return nil, nil
		}
		sliceRef = &corev1.LocalObjectReference{Name: slice}
	default:
		return nil, nil
	}
	provider := id.Spec.ClusterID
	if provider == "" {
		return nil, nil
	}
	me, err := r.self.get(ctx)
	if err != nil {
		return nil, err
	}
	return &authv1beta1.Renew{
		ObjectMeta: metav1.ObjectMeta{
			Name: id.Name, Namespace: id.Namespace,
			Labels: map[string]string{kube.ReplicationLabel: "true", kube.RemoteIDLabel: provider, kube.RemoteClusterIDLabel: provider},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(id,
				authv1beta1.GroupVersion.WithKind(authv1beta1.IdentityKind))},
		},
		Spec: authv1beta1.RenewSpec{ConsumerClusterID: me, IdentityType: id.Spec.Type, ResourceSliceRef: sliceRef},
	}, nil
}

// sliceOfIdentity is the slice a ResourceSlice Identity is for: its label,
// else its owner (Liqo's identity creator sets both).
func sliceOfIdentity(id *authv1beta1.Identity) string {
	if s := id.Labels[kube.ResourceSliceNameLabel]; s != "" {
		return s
	}
	for _, ref := range id.OwnerReferences {
		if ref.Kind == authv1beta1.ResourceSliceKind {
			return ref.Name
		}
	}
	return ""
}

// deleteRenew deletes a Renew this consumer made, if there is one.
func (r *renewer) deleteRenew(ctx context.Context, renew *authv1beta1.Renew) error {
	if renew == nil {
		return nil
	}
	uid := renew.UID
	err := r.c.Liqo.Renews(renew.Namespace).Delete(ctx, renew.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if kube.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}

// ensureRenew creates the Renew or brings it to want (labels added, spec,
// controller and the ask annotation replaced), writing only on a change.
func (r *renewer) ensureRenew(ctx context.Context, want *authv1beta1.Renew) (*authv1beta1.Renew, error) {
	client := r.c.Liqo.Renews(want.Namespace)
	var existing *authv1beta1.Renew
	if obj, exists, err := r.renews.GetByKey(want.Namespace + "/" + want.Name); err != nil {
		return nil, err
	} else if exists {
		existing = obj.(*authv1beta1.Renew)
	} else {
		created, err := client.Create(ctx, want, metav1.CreateOptions{})
		if err == nil {
			klog.FromContext(ctx).V(1).Info("Renew created", "renew", klog.KObj(created))
			return created, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return nil, err
		}
		// There without the replication label (so not in the cache): adopt it.
		if existing, err = client.Get(ctx, want.Name, metav1.GetOptions{}); err != nil {
			return nil, err
		}
	}
	updated := existing.DeepCopy()
	updated.Labels = merge(updated.Labels, want.Labels)
	updated.OwnerReferences = withController(updated.OwnerReferences, want.OwnerReferences[0])
	updated.Spec = want.Spec
	updated.Annotations = withValue(updated.Annotations, kube.RenewAskedAnnotation, want.Annotations[kube.RenewAskedAnnotation])
	if maps.Equal(existing.Labels, updated.Labels) && maps.Equal(existing.Annotations, updated.Annotations) &&
		apiequality.Semantic.DeepEqual(existing.Spec, updated.Spec) &&
		apiequality.Semantic.DeepEqual(existing.OwnerReferences, updated.OwnerReferences) {
		return existing, nil
	}
	return client.Update(ctx, updated, metav1.UpdateOptions{})
}

// apply copies the provider's renewed authParams into the Identity when
// they carry another certificate for the same key that lasts longer (a
// status a step behind is ignored), and says whether it did.
func (r *renewer) apply(ctx context.Context, id *authv1beta1.Identity, renew *authv1beta1.Renew) (bool, error) {
	params := renew.Status.AuthParams
	if params == nil || len(params.SignedCRT) == 0 || bytes.Equal(params.SignedCRT, id.Spec.AuthParams.SignedCRT) {
		return false, nil
	}
	renewed, err := renewedCertificate(id.Spec.AuthParams.SignedCRT, params.SignedCRT)
	if err != nil {
		r.events.warning(ctx, id, ReasonCertificateRenewalCheckFailed, fmt.Sprintf("Not applied: the provider's renewed certificate (Renew %s) %v", renew.Name, err))
		return false, nil
	}
	if renewed == nil {
		return false, nil // a status a step behind
	}
	updated := id.DeepCopy()
	updated.Spec.AuthParams = *params.DeepCopy()
	if updated.Annotations == nil {
		updated.Annotations = map[string]string{}
	}
	updated.Annotations[kube.LastRenewalAnnotation] = r.clock().UTC().Format(time.RFC3339)
	if _, err := r.c.Liqo.Identities(id.Namespace).Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return false, err
	}
	observeRenewal(id.Spec.ClusterID)
	until := renewed.NotAfter.UTC().Format(time.RFC3339)
	klog.FromContext(ctx).Info("Identity renewed", "identity", klog.KObj(id), "provider", id.Spec.ClusterID, "notAfter", until)
	r.events.normal(ctx, id, ReasonIdentityRenewed, fmt.Sprintf("Certificate renewed by provider %s, valid until %s", id.Spec.ClusterID, until))
	return true, nil
}

// renewedCertificate parses the certificate the provider renewed and tells
// whether it replaces the current one: it must be readable, for the same
// key, and last longer. nil, nil: it does not (an older one).
func renewedCertificate(currentPEM, renewedPEM []byte) (*x509.Certificate, error) {
	renewed, err := authcrypto.ParseCertificatePEM(renewedPEM)
	if err != nil {
		return nil, fmt.Errorf("is unreadable: %w", err)
	}
	current, err := authcrypto.ParseCertificatePEM(currentPEM)
	if err != nil {
		return renewed, nil // nothing usable to compare with: the provider's wins
	}
	if k, ok := current.PublicKey.(interface{ Equal(crypto.PublicKey) bool }); !ok || !k.Equal(renewed.PublicKey) {
		return nil, errors.New("is for another key than this cluster's")
	}
	if !renewed.NotAfter.After(current.NotAfter) {
		return nil, nil
	}
	return renewed, nil
}

func (r *renewer) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

// enqueueOwner enqueues the Identity that controls a Renew.
func enqueueOwner(l *loop, kind string) cache.ResourceEventHandler {
	return handlerFunc(func(obj any) {
		if o := objectMeta(obj); o != nil {
			if ref := metav1.GetControllerOf(o); ref != nil && ref.Kind == kind && ref.APIVersion == authv1beta1.GroupVersion.String() {
				l.queue.Add(o.GetNamespace() + "/" + ref.Name)
			}
		}
	})
}
