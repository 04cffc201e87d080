package flows

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// kubeconfigSecretFor is the consumer's kubeconfig Secret for providerID:
// the v1 flow's, found as Liqo finds it, else the one this tool wrote as a
// Liqo 0.x consumer (labelled so that no v1 component selects it).
func kubeconfigSecretFor(ctx context.Context, consumer *kube.Cluster, providerID string) (*corev1.Secret, error) {
	s, err := consumer.KubeconfigSecretFor(ctx, providerID)
	if !kube.IsNotFound(err) {
		return s, err
	}
	return liqo0x.On(consumer).KubeconfigSecret(ctx, providerID)
}
