package kube

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// NonceSelector finds the provider's nonce Secret for a consumer (§3.4).
func NonceSelector(consumerID string) string {
	return labels.Set{RemoteClusterIDLabel: consumerID, NonceLabel: "true"}.String()
}

// SignedNonceSelector finds the consumer's signed-nonce Secret for a provider (§4.2).
func SignedNonceSelector(providerID string) string {
	return labels.Set{RemoteClusterIDLabel: providerID, SignedNonceLabel: "true"}.String()
}

// EnsureNonceSecret creates the provider's empty liqo-nonce Secret, or makes
// sure an existing one carries the two labels. It never touches the nonce:
// re-running must not invalidate a Tenant already signed over it.
func (c *Cluster) EnsureNonceSecret(ctx context.Context, tenantNamespace, consumerID string) (Change, error) {
	ch := Change{Object: "Secret " + tenantNamespace + "/" + NonceSecretName}
	secrets := c.Kube.CoreV1().Secrets(tenantNamespace)
	want := map[string]string{RemoteClusterIDLabel: consumerID, NonceLabel: "true"}
	s, err := secrets.Get(ctx, NonceSecretName, metav1.GetOptions{})
	if IsNotFound(err) {
		s = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: NonceSecretName, Namespace: tenantNamespace, Labels: want}}
		if _, err = secrets.Create(ctx, s, metav1.CreateOptions{}); err == nil {
			ch.Action = Created
			return ch, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return ch, fmt.Errorf("unable to create nonce secret: %w", err)
		}
		s, err = secrets.Get(ctx, NonceSecretName, metav1.GetOptions{})
	}
	if err != nil {
		return ch, fmt.Errorf("unable to create nonce secret: %w", err)
	}
	if labels.SelectorFromSet(want).Matches(labels.Set(s.Labels)) {
		ch.Action = Unchanged
		return ch, nil
	}
	if s.Labels == nil {
		s.Labels = map[string]string{}
	}
	for k, v := range want {
		s.Labels[k] = v
	}
	if _, err := secrets.Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		return ch, fmt.Errorf("unable to create nonce secret: %w", err)
	}
	ch.Action = Updated
	return ch, nil
}

// findOne returns the only Secret matching selector in namespace ("" = all).
func (c *Cluster) findOneSecret(ctx context.Context, namespace, selector, what, remoteID string) (*corev1.Secret, error) {
	list, err := c.Kube.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	switch len(list.Items) {
	case 0:
		return nil, apierrors.NewNotFound(corev1.Resource("secrets"), remoteID)
	case 1:
		return &list.Items[0], nil
	}
	return nil, fmt.Errorf("multiple %s secrets found for remote cluster %s", what, remoteID)
}

// NonceSecret finds the nonce Secret for a consumer in the tenant namespace
// (namespace "" searches all namespaces, as the Tenant controller does).
func (c *Cluster) NonceSecret(ctx context.Context, namespace, consumerID string) (*corev1.Secret, error) {
	return c.findOneSecret(ctx, namespace, NonceSelector(consumerID), "nonce", consumerID)
}

// SignedNonceSecret finds the signed-nonce Secret for a provider.
func (c *Cluster) SignedNonceSecret(ctx context.Context, namespace, providerID string) (*corev1.Secret, error) {
	return c.findOneSecret(ctx, namespace, SignedNonceSelector(providerID), "signed nonce", providerID)
}

// NonceOf reads the nonce string of a nonce or signed-nonce Secret.
func NonceOf(s *corev1.Secret) (string, error) {
	v, ok := s.Data[NonceField]
	switch {
	case !ok:
		return "", fmt.Errorf("nonce not found in secret %s/%s", s.Namespace, s.Name)
	case len(v) == 0:
		return "", fmt.Errorf("empty nonce found in secret %s/%s", s.Namespace, s.Name)
	}
	return string(v), nil
}

// EnsureSignedNonceSecret implements the consumer's "ensure" of §4.2: reuse
// the signed-nonce Secret if it holds the same nonce, create it if there is
// none, and refuse if it holds another nonce. nonce "" reuses what is there.
func (c *Cluster) EnsureSignedNonceSecret(ctx context.Context, tenantNamespace, providerID, nonce string) (*corev1.Secret, Change, error) {
	ch := Change{Object: "Secret " + tenantNamespace + "/" + SignedNonceSecretName}
	s, err := c.SignedNonceSecret(ctx, tenantNamespace, providerID)
	switch {
	case IsNotFound(err):
		if nonce == "" {
			return nil, ch, fmt.Errorf("nonce not provided and no nonce secret found: pass the provider's nonce")
		}
		s = &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: SignedNonceSecretName, Namespace: tenantNamespace,
				Labels: map[string]string{RemoteClusterIDLabel: providerID, SignedNonceLabel: "true"}},
			Data: map[string][]byte{NonceField: []byte(nonce)},
		}
		created, err := c.Kube.CoreV1().Secrets(tenantNamespace).Create(ctx, s, metav1.CreateOptions{})
		if err != nil {
			return nil, ch, fmt.Errorf("creating %s: %w", ch.Object, err)
		}
		ch.Action = Created
		return created, ch, nil
	case err != nil:
		return nil, ch, fmt.Errorf("looking up %s: %w", ch.Object, err)
	}
	existing, err := NonceOf(s)
	if err != nil {
		return nil, ch, err
	}
	if nonce != "" && existing != nonce {
		return nil, ch, fmt.Errorf("nonce secret already exists with a different nonce: delete secret %s/%s on the consumer to sign the new nonce, or use the nonce it holds",
			s.Namespace, s.Name)
	}
	ch.Action = Unchanged
	return s, ch, nil
}
