//go:build cluster

package controller

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// A Renew that asks for another cluster's certificate gets a Warning and no
// answer: one naming another consumer than the one that replicated it, and
// one labelled for another consumer in this consumer's tenant namespace
// (labels are the consumer's to write). The Tenant's certificate is never
// copied into either.
func TestRenewForAnotherClusterIsRefused(t *testing.T) {
	p, c := providerCluster(t), consumerCluster(t)
	startManager(t, p, Options{Provider: true})
	consumer, err := New(c, Options{Consumer: true})
	require.NoError(t, err)
	stopConsumer := runManager(t, consumer)
	provNS, _ := authenticate(t, p, c)
	// Its replicator would delete these copies, which it did not make.
	stopConsumer()
	ctx := labtest.Context(t)
	renews := p.Liqo.Renews(provNS)

	refused := map[string]*authv1beta1.Renew{
		"renew-other-spec": {ObjectMeta: metav1.ObjectMeta{Name: "renew-other-spec", Labels: kube.ReplicaLabels(nil, consumerID)},
			Spec: authv1beta1.RenewSpec{ConsumerClusterID: "someone-else", IdentityType: authv1beta1.ControlPlaneIdentityType}},
		"renew-other-origin": {ObjectMeta: metav1.ObjectMeta{Name: "renew-other-origin", Labels: kube.ReplicaLabels(nil, "someone-else")},
			Spec: authv1beta1.RenewSpec{ConsumerClusterID: "someone-else", IdentityType: authv1beta1.ControlPlaneIdentityType}},
	}
	for name, r := range refused {
		_, err = renews.Create(ctx, r, metav1.CreateOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { _ = renews.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
	for name := range refused {
		ev := waitEvent(t, p, authv1beta1.RenewKind, provNS, name, ReasonRenewRefused)
		assert.Equal(t, "Warning", ev.Type)
		got, err := renews.Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Nil(t, got.Status.AuthParams, "%s: no certificate for a Renew about another cluster", name)
	}
}
