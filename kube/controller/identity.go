package controller

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// identityReconciler turns every Identity, in any namespace, into the
// kubeconfig Secret that reaches the provider (§8, Liqo's `identity`
// controller). The kubeconfig holds this cluster's private key, an EKS
// Identity's Secret its AWS credentials too: the data is never logged nor
// put in an Event.
type identityReconciler struct {
	c          *kube.Cluster
	events     *events
	identities cache.Indexer
	secrets    corelisters.SecretLister // Secrets labelled liqo.io/identity-type
}

func (r *identityReconciler) sync(ctx context.Context, key string) (time.Duration, error) {
	obj, exists, err := r.identities.GetByKey(key)
	if err != nil || !exists {
		if err == nil {
			observeIdentityCertificate("", key, time.Time{})
		}
		return 0, err // a deleted Identity takes its Secret along (owner reference)
	}
	id := obj.(*authv1beta1.Identity).DeepCopy()
	if id.DeletionTimestamp != nil {
		return 0, nil
	}
	signer, keyPEM, err := r.c.PrivateKey(ctx)
	if err != nil {
		if errors.Is(err, kube.ErrNoKeys) || !transient(err) {
			r.events.warning(ctx, id, ReasonKubeconfigFailed, fmt.Sprintf("Unable to build the kubeconfig: %v", err))
		}
		return 0, err
	}
	// Keys replaced under the same cluster ID (a re-install): a kubeconfig of
	// the new key and the old certificate authenticates nowhere, while the
	// Secret's old pair still works until the provider signs the new CSR.
	if cert, err := authcrypto.ParseCertificatePEM(id.Spec.AuthParams.SignedCRT); err == nil && !authcrypto.SamePublicKey(cert.PublicKey, signer.Public()) {
		r.events.warning(ctx, id, ReasonKubeconfigFailed, "Kept the kubeconfig Secret as it is: the Identity's certificate is for another key than this cluster's "+
			"(its keys were replaced under the same cluster ID); authenticate again to get a certificate for the current key")
		return 0, nil
	}
	kubeconfig, err := kube.Kubeconfig(id, keyPEM)
	if err != nil {
		return 0, fmt.Errorf("building the kubeconfig of Identity %s: %w", key, err)
	}
	if cert, err := authcrypto.ParseCertificatePEM(id.Spec.AuthParams.SignedCRT); err == nil {
		observeIdentityCertificate(id.Spec.ClusterID, key, cert.NotAfter)
	}
	secret, action, err := r.ensureSecret(ctx, kube.KubeconfigSecret(id, kubeconfig))
	if err != nil {
		return 0, err
	}
	if action != kube.Unchanged {
		klog.FromContext(ctx).Info("Kubeconfig secret "+string(action), "secret", klog.KObj(secret), "identity", key)
		r.events.normal(ctx, secret, ReasonKubeconfigEnsured, "Kubeconfig secret "+string(action))
	}
	if ref := id.Status.KubeconfigSecretRef; ref != nil && ref.Name == secret.Name {
		return 0, nil
	}
	id.Status.KubeconfigSecretRef = &corev1.LocalObjectReference{Name: secret.Name}
	_, err = r.c.Liqo.Identities(id.Namespace).UpdateStatus(ctx, id, metav1.UpdateOptions{})
	return 0, err
}

// ensureSecret creates the kubeconfig Secret or brings the existing one to
// the wanted data, labels, annotation and owner, writing only on a change.
func (r *identityReconciler) ensureSecret(ctx context.Context, want *corev1.Secret) (*corev1.Secret, kube.Action, error) {
	secrets := r.c.Kube.CoreV1().Secrets(want.Namespace)
	existing, err := r.secrets.Secrets(want.Namespace).Get(want.Name)
	if kube.IsNotFound(err) {
		created, err := secrets.Create(ctx, want, metav1.CreateOptions{})
		if err == nil {
			return created, kube.Created, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return nil, "", err
		}
		// There without our label (so not in the cache): adopt it.
		if existing, err = secrets.Get(ctx, want.Name, metav1.GetOptions{}); err != nil {
			return nil, "", err
		}
	} else if err != nil {
		return nil, "", err
	}
	updated := existing.DeepCopy()
	updated.Labels = merge(updated.Labels, want.Labels)
	updated.Annotations = merge(updated.Annotations, want.Annotations)
	if _, ok := want.Annotations[kube.RemoteTenantNamespace]; !ok {
		delete(updated.Annotations, kube.RemoteTenantNamespace)
	}
	updated.OwnerReferences = withController(updated.OwnerReferences, want.OwnerReferences[0])
	updated.Data = want.Data
	if secretEqual(existing, updated) {
		return existing, kube.Unchanged, nil
	}
	res, err := secrets.Update(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		return nil, "", err
	}
	return res, kube.Updated, nil
}

func merge(dst, src map[string]string) map[string]string {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = map[string]string{}
	}
	maps.Copy(dst, src)
	return dst
}

// withValue sets key to value in m, or deletes it when value is "".
func withValue(m map[string]string, key, value string) map[string]string {
	if value == "" {
		delete(m, key)
		return m
	}
	if m == nil {
		m = map[string]string{}
	}
	m[key] = value
	return m
}

// withController replaces any controller reference with owner.
func withController(refs []metav1.OwnerReference, owner metav1.OwnerReference) []metav1.OwnerReference {
	out := []metav1.OwnerReference{owner}
	for _, r := range refs {
		if (r.Controller == nil || !*r.Controller) && r.UID != owner.UID {
			out = append(out, r)
		}
	}
	return out
}

func secretEqual(a, b *corev1.Secret) bool {
	if !maps.Equal(a.Labels, b.Labels) || !maps.Equal(a.Annotations, b.Annotations) ||
		!maps.EqualFunc(a.Data, b.Data, bytes.Equal) || len(a.OwnerReferences) != len(b.OwnerReferences) {
		return false
	}
	for i := range a.OwnerReferences {
		x, y := a.OwnerReferences[i], b.OwnerReferences[i]
		if x.UID != y.UID || x.Kind != y.Kind || x.APIVersion != y.APIVersion || x.Name != y.Name ||
			(x.Controller == nil) != (y.Controller == nil) || x.Controller != nil && *x.Controller != *y.Controller {
			return false
		}
	}
	return true
}

// transient tells a failure to talk to the API server, worth retrying
// quietly, from a problem with the content (a missing or broken key pair).
func transient(err error) bool {
	var status apierrors.APIStatus
	var netErr net.Error
	return errors.As(err, &status) || errors.As(err, &netErr) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
