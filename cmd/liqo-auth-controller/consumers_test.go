package main_test

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// syntheticConsumer prepares on the provider what the handshake of consumer
// id left there before its Tenant is applied (the tenant namespace and the
// provider's nonce in it, filled beforehand) and returns the consumer's
// Tenant as `apply tenant` creates it: a real Ed25519 key, a signature over
// the nonce and a CSR. The Tenant itself is not created.
func syntheticConsumer(ctx context.Context, admin *kube.Cluster, id string) (*authv1beta1.Tenant, error) {
	key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	if err != nil {
		return nil, err
	}
	nonce, err := authcrypto.NewNonce()
	if err != nil {
		return nil, err
	}
	sig, err := authcrypto.SignNonce(key, []byte(nonce))
	if err != nil {
		return nil, err
	}
	ns := kube.TenantNamespaceName(id)
	forged, err := kube.ForgeTenant(id, ns, key, sig, "")
	if err != nil {
		return nil, err
	}
	if _, err := admin.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: ns, Labels: kube.TenantNamespaceLabels(id)}}, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	if _, err := admin.Kube.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: kube.NonceSecretName, Namespace: ns,
			Labels: map[string]string{kube.RemoteClusterIDLabel: id, kube.NonceLabel: "true"}},
		Data: map[string][]byte{kube.NonceField: []byte(nonce)},
	}, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	return kube.TenantToCreate(forged), nil
}
