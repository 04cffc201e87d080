package kube

import (
	"context"
	stdcrypto "crypto"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
)

// ErrNoKeys means the cluster has no authentication-keys Secret.
var ErrNoKeys = errors.New("no cluster key pair found")

func isErr(err, target error) bool { return errors.Is(err, target) }

func (c *Cluster) keysSecret(ctx context.Context) (*corev1.Secret, error) {
	s, err := c.Kube.CoreV1().Secrets(c.Namespace).Get(ctx, AuthKeysSecretName, metav1.GetOptions{})
	if err != nil {
		if IsNotFound(err) {
			return nil, fmt.Errorf("%w: secret %s/%s does not exist: run `liqo-auth-tui init` on this cluster or install Liqo",
				ErrNoKeys, c.Namespace, AuthKeysSecretName)
		}
		return nil, fmt.Errorf("reading secret %s/%s: %w", c.Namespace, AuthKeysSecretName, err)
	}
	return s, nil
}

// PublicKey reads the cluster's public key (§1.2) and returns it parsed
// together with its PEM text.
func (c *Cluster) PublicKey(ctx context.Context) (stdcrypto.PublicKey, []byte, error) {
	s, err := c.keysSecret(ctx)
	if err != nil {
		return nil, nil, err
	}
	raw := s.Data[PublicKeyField]
	if len(raw) == 0 {
		return nil, nil, fmt.Errorf("public key not found in secret %s/%s", c.Namespace, AuthKeysSecretName)
	}
	pub, err := authcrypto.ParsePublicKeyPEM(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("public key in secret %s/%s: %w", c.Namespace, AuthKeysSecretName, err)
	}
	return pub, raw, nil
}

// PrivateKey reads the cluster's private key (§1.2) and returns it parsed
// together with its PEM text. The key never leaves the process: callers use
// it to sign and to build the kubeconfig Secret inside the same cluster.
func (c *Cluster) PrivateKey(ctx context.Context) (stdcrypto.Signer, []byte, error) {
	s, err := c.keysSecret(ctx)
	if err != nil {
		return nil, nil, err
	}
	raw := s.Data[PrivateKeyField]
	if len(raw) == 0 {
		return nil, nil, fmt.Errorf("private key not found in secret %s/%s", c.Namespace, AuthKeysSecretName)
	}
	key, err := authcrypto.ParsePrivateKeyPEM(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("private key in secret %s/%s: %w", c.Namespace, AuthKeysSecretName, err)
	}
	return key, raw, nil
}

// NewKeysSecret builds the authentication-keys Secret for a new key pair.
func NewKeysSecret(namespace string, key stdcrypto.Signer) (*corev1.Secret, error) {
	priv, err := authcrypto.EncodePrivateKeyPEM(key)
	if err != nil {
		return nil, err
	}
	pub, err := authcrypto.EncodePublicKeyPEM(key.Public())
	if err != nil {
		return nil, err
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: AuthKeysSecretName, Namespace: namespace},
		Data:       map[string][]byte{PrivateKeyField: priv, PublicKeyField: pub},
	}, nil
}
