//go:build cluster

package nodelab_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The in-process provider advertises its control-plane Node's address on
// 6443, as Liqo does, not the admin's loopback kubeconfig server, and says
// so before the first write; the consumer's Node reaches the address with
// the kubeconfig Secret the handshake wrote, and does not reach the
// loopback one the admin's laptop uses.
func TestInProcessProviderAdvertisesItsNode(t *testing.T) {
	lcs := testLab.Clusters(t)
	provider, consumer := testLab.Pair(t, "node-provider", "node-consumer")
	ctx := labtest.Context(t)
	var ev labtest.EventLog
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, ev.Sink)
	require.NoError(t, err)
	want := "https://" + net.JoinHostPort(lcs[0].Node.IP, strconv.Itoa(lab.APIServerPort))
	assert.Equal(t, want, res.Identity.Spec.AuthParams.APIServer)

	// The loopback line comes before the first step that writes.
	loopback, firstWrite := -1, -1
	for i, e := range ev.Events() {
		if e.Reason == flows.ReasonLoopbackAPIServer && loopback < 0 {
			loopback = i
			assert.Contains(t, e.Message, "cannot reach 127.0.0.1")
			assert.Contains(t, e.Message, "the provider will advertise "+want)
			assert.Contains(t, e.Message, "--api-server-override")
		}
		if e.Kind == handshake.StepStarted && strings.HasPrefix(e.Step, "tenant-namespace-") && firstWrite < 0 {
			firstWrite = i
		}
	}
	require.GreaterOrEqual(t, loopback, 0, "a Warning about the loopback kubeconfig server: %v", ev.Events())
	require.Greater(t, firstWrite, loopback, "said before the first write")

	// From the consumer's Node, with the kubeconfig Secret Liqo's components use.
	s, err := consumer.KubeconfigSecretFor(ctx, res.ProviderID)
	require.NoError(t, err)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(s.Data[kube.KubeconfigField])
	require.NoError(t, err)
	assert.Equal(t, want, cfg.Host)
	cfg.Dial = lcs[1].Node.DialContext
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	who, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authnv1.SelfSubjectReview{}, metav1.CreateOptions{})
	require.NoError(t, err, "the consumer's Node reaches the advertised address")
	assert.Equal(t, "node-consumer", who.Status.UserInfo.Username, "and is the consumer there")

	loopbackServer := strings.TrimPrefix(lcs[0].Config.Host, "https://")
	_, err = lcs[1].Node.DialContext(context.Background(), "tcp", loopbackServer)
	assert.Error(t, err, "the consumer's Node does not reach the admin's %s", loopbackServer)
}
