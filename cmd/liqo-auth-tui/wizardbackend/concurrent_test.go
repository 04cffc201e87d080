//go:build cluster

package wizardbackend_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/wizardbackend"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// Two wizards in automated mode on one pair at once (two backends, as two
// admins' wizards): both end well, or one says another run is in progress;
// the pair then holds one Tenant, one Identity and one kubeconfig Secret.
func TestTwoWizardsAutomatedAtOnce(t *testing.T) {
	ctx := labtest.Context(t)
	cs := clusters(t)
	provider := tui.ClusterRef{Kubeconfig: cs[0].KubeconfigPath, Namespace: "liqo-wb-twice-p"}
	consumer := tui.ClusterRef{Kubeconfig: cs[1].KubeconfigPath, Namespace: "liqo-wb-twice-c"}
	setup := wizardbackend.New(time.Minute, flows.EngineOptions{})
	p, err := setup.Init(ctx, provider, handshake.Discard)
	require.NoError(t, err)
	c, err := setup.Init(ctx, consumer, handshake.Discard)
	require.NoError(t, err)

	start := make(chan struct{})
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			b := wizardbackend.New(time.Minute, flows.EngineOptions{})
			<-start
			_, errs[i] = b.Authenticate(ctx, consumer, provider, handshake.Discard)
		})
	}
	close(start)
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
			continue
		}
		assert.Contains(t, err.Error(), "another run is in progress")
		assert.NotContains(t, err.Error(), "\n")
	}
	assert.GreaterOrEqual(t, ok, 1, "at least one wizard authenticates: %v", errs)

	pc, err := kube.NewCluster(cs[0].Config, provider.Namespace)
	require.NoError(t, err)
	cc, err := kube.NewCluster(cs[1].Config, consumer.Namespace)
	require.NoError(t, err)
	tenants, err := pc.Liqo.Tenants("").List(ctx, metav1.ListOptions{LabelSelector: labels.Set{kube.RemoteClusterIDLabel: c.ClusterID}.String()})
	require.NoError(t, err)
	assert.Len(t, tenants.Items, 1, "Tenants for the consumer")
	ids, err := cc.Liqo.Identities("").List(ctx, metav1.ListOptions{LabelSelector: labels.Set{kube.RemoteClusterIDLabel: p.ClusterID}.String()})
	require.NoError(t, err)
	assert.Len(t, ids.Items, 1, "Identities for the provider")
	secrets, err := cc.Kube.CoreV1().Secrets("").List(ctx, metav1.ListOptions{LabelSelector: labels.Set{kube.RemoteClusterIDLabel: p.ClusterID, kube.IdentityTypeLabel: "ControlPlane"}.String()})
	require.NoError(t, err)
	assert.Len(t, secrets.Items, 1, "kubeconfig Secrets for the provider")
}
