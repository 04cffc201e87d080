//go:build cluster

package doctor_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The lab of this package's tests, started by the first test that needs
// it (the doctor suites under internal/testlab/suites have their own).
var testLab = labtest.Lazy("provider", "consumer")

func TestMain(m *testing.M) {
	os.Exit(testLab.Run(m))
}

func clusters(t testing.TB) []*lab.Cluster { return testLab.Clusters(t) }

// peeringUser generates the peering user of consumerID on provider and
// waits until its kubeconfig is let in and may read its tenant namespace
// (RBAC reaches the authorizer a moment after it is written).
func peeringUser(t *testing.T, ctx context.Context, provider *kube.Cluster, consumerID string) *kube.Cluster {
	t.Helper()
	user, err := flows.GeneratePeeringUser(ctx, provider, consumerID, flows.PeeringUserOptions{}, nil)
	require.NoError(t, err)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(user.Kubeconfig)
	require.NoError(t, err)
	c, err := kube.NewCluster(cfg, provider.Namespace)
	require.NoError(t, err)
	ns := kube.TenantNamespaceName(consumerID)
	read := []kube.Access{{Verb: "get", Resource: "namespaces", Name: ns, Namespace: ns}}
	require.Eventually(t, func() bool { return c.CheckAccess(ctx, read) == nil }, 10*time.Second, 50*time.Millisecond)
	return c
}
