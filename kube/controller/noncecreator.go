package controller

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// nonceCreator fills the provider's empty nonce Secrets (§3.3, Liqo's
// secret_noncecreator). A nonce is written once and never replaced: the
// Tenant signed over it is re-verified on every reconcile.
type nonceCreator struct {
	c          *kube.Cluster
	events     *events
	secrets    corelisters.SecretLister // Secrets labelled liqo.io/nonce
	namespaces tenantNamespaces
}

func (r *nonceCreator) sync(ctx context.Context, key string) (time.Duration, error) {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return 0, nil
	}
	s, err := r.secrets.Secrets(namespace).Get(name)
	if kube.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if _, ok := s.Data[kube.NonceField]; ok {
		return 0, nil // even an empty value: Liqo leaves it alone
	}
	if len(s.Labels) == 0 {
		r.events.warning(ctx, s, ReasonMissingLabels, "Missing labels")
		return 0, nil
	}
	clusterID, ok, err := r.namespaces.placed(ctx, r.events, s, ReasonMissingClusterID)
	if !ok {
		return 0, err
	}
	nonce, err := authcrypto.NewNonce()
	if err != nil {
		return 0, err
	}
	s = s.DeepCopy()
	if s.Data == nil {
		s.Data = map[string][]byte{}
	}
	// The ASCII base64 string is the nonce everybody signs (§3.2).
	s.Data[kube.NonceField] = []byte(nonce)
	// A stale cache makes this a conflict, retried: never two nonces.
	if _, err := r.c.Kube.CoreV1().Secrets(s.Namespace).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		return 0, err
	}
	klog.FromContext(ctx).Info("Nonce generated", "secret", key, "cluster", clusterID)
	r.events.normal(ctx, s, ReasonNonceGenerated, "Nonce generated")
	return 0, nil
}
