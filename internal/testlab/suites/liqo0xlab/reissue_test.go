//go:build cluster

package liqo0xlab_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	kliqo0x "github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// A consumer running Liqo 0.x that lost its identity (its Secret deleted)
// while the provider kept the certificate it issued: Liqo's new request is
// refused for good (one identity per cluster ID). The tool says which
// object the provider's admin deletes; with the provider's kubeconfig and
// the admin's agreement (Reissue) it deletes it there itself and Liqo,
// woken at once rather than on its backoff, authenticates again.
func TestLiqoConsumerReissue(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startLiqo0xPair(t, ctx)
	o := liqo0xOptions()
	o.StepTimeout = 30 * time.Second
	_, err := liqo0x.Authenticate(ctx, p.consumer, p.provider, "", o, nil)
	require.NoError(t, err)

	id, err := kliqo0x.On(p.consumer).IdentityFor(ctx, providerID)
	require.NoError(t, err)
	require.NoError(t, p.consumer.Kube.CoreV1().Secrets(id.Namespace).Delete(ctx, id.Name, metav1.DeleteOptions{}))

	// Manual mode (no provider kubeconfig): Liqo v0.10 still says
	// Established while each new request is refused; the tool tells.
	start := time.Now()
	_, err = liqo0x.ApplyPeerInfo(ctx, p.consumer, p.info, o, nil)
	require.Error(t, err)
	t.Logf("timing: manual refusal after %s: %v", time.Since(start).Round(time.Millisecond), err)
	var refused *liqo0x.RefusedError
	require.True(t, errors.As(err, &refused), "%T: %v", err, err)
	assert.Equal(t, kliqo0x.AlreadyIssued, refused.Refusal)
	assert.Contains(t, err.Error(), kube.RemoteCertSecretName, "names the provider's object")

	// Automated mode: seen on the provider before anything is written.
	_, err = liqo0x.Authenticate(ctx, p.consumer, p.provider, "", o, nil)
	require.Error(t, err)
	require.True(t, errors.As(err, &refused), "%T: %v", err, err)
	assert.Equal(t, kliqo0x.AlreadyIssued, refused.Refusal)
	assert.Contains(t, err.Error(), kube.RemoteCertSecretName, "names the provider's object")
	assert.Contains(t, err.Error(), "--reissue")
	assert.NotContains(t, err.Error(), p.info.Token)
	t.Logf("refused: %v", err)

	o.Reissue = true
	start = time.Now()
	res, err := liqo0x.Authenticate(ctx, p.consumer, p.provider, "", o, nil)
	require.NoError(t, err)
	t.Logf("timing: reissued and authenticated in %s", time.Since(start).Round(time.Millisecond))
	assert.Equal(t, consumerID, res.User)
	again, err := kliqo0x.On(p.consumer).IdentityFor(ctx, providerID)
	require.NoError(t, err)
	assert.NotEqual(t, id.Name, again.Name, "a new identity Secret")
}
