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

// nonceSigner signs the nonces placed in the consumer's signed-nonce
// Secrets with the cluster key (§4.3, Liqo's secret_noncesigner).
type nonceSigner struct {
	c          *kube.Cluster
	events     *events
	secrets    corelisters.SecretLister // Secrets labelled liqo.io/signed-nonce
	namespaces tenantNamespaces
}

func (r *nonceSigner) sync(ctx context.Context, key string) (time.Duration, error) {
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
	clusterID, ok, err := r.namespaces.placed(ctx, r.events, s, ReasonMissingRemoteClusterID)
	if !ok {
		return 0, err
	}
	nonce, err := kube.NonceOf(s)
	if err != nil {
		return 0, err // the client writes it with the Secret: retry, like Liqo
	}
	signer, _, err := r.c.PrivateKey(ctx)
	if err != nil {
		return 0, err
	}
	// A signature that already verifies is kept: ECDSA signatures differ on
	// every run, and rewriting one would wake this loop forever.
	if old := s.Data[kube.SignedNonceField]; len(old) > 0 && authcrypto.VerifyNonce(signer.Public(), []byte(nonce), old) == nil {
		return 0, nil
	}
	sig, err := authcrypto.SignNonce(signer, []byte(nonce))
	if err != nil {
		return 0, err
	}
	s = s.DeepCopy()
	s.Data[kube.SignedNonceField] = sig
	if _, err := r.c.Kube.CoreV1().Secrets(s.Namespace).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		return 0, err
	}
	klog.FromContext(ctx).Info("Nonce signed", "secret", key, "cluster", clusterID)
	r.events.normal(ctx, s, ReasonNonceSigned, "Nonce signed")
	return 0, nil
}
