//go:build cluster

package nodelab_test

import (
	"errors"
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/doctor"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labimage"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// A provider address the admin's laptop reaches and the consumer's Pods
// do not (its loopback kubeconfig server, as on kind): authenticate dials
// it from a Pod of the consumer and refuses before its first write; pushed
// through with --skip-pod-reach-check, doctor says "reachable from here,
// NOT from the consumer's Pods" with the fix; the fix (the Node's address)
// passes both. A check that cannot run says why.
func TestReachabilityFromTheConsumersPods(t *testing.T) {
	lcs := testLab.Clusters(t)
	ctx := labtest.Context(t)
	// The check's Pods run the controller's default image.
	require.NoError(t, labimage.LoadController(ctx, lcs[1].Node))
	provider, consumer := testLab.Pair(t, "reach-provider", "reach-consumer")
	loopback := lcs[0].Config.Host
	require.NoError(t, kube.CheckAdvertisedAPIServer(ctx, loopback, lcs[0].Config.CAData, ""), "the laptop reaches %s", loopback)

	refused := flows.AuthenticateOptions{Consumer: consumer, Provider: provider, Engine: flows.EngineOptions{APIServerOverride: loopback}}
	var refusedLog labtest.EventLog
	_, err := flows.Authenticate(ctx, refused, refusedLog.Sink)
	var unreachable *flows.UnreachableFromPodsError
	require.True(t, errors.As(err, &unreachable), "refused: %v %v", err, refusedLog.Events())
	assert.Contains(t, err.Error(), "the consumer's Pods cannot reach "+loopback)
	assert.Contains(t, err.Error(), "on Node "+lcs[1].Node.Name)
	assert.Contains(t, err.Error(), "--api-server-override")
	for _, side := range []struct {
		c      *kube.Cluster
		remote string
	}{{consumer, "reach-provider"}, {provider, "reach-consumer"}} {
		_, err := side.c.TenantNamespace(ctx, side.remote)
		assert.True(t, kube.IsNotFound(err), "nothing written: %v", err)
	}
	pods, err := consumer.Kube.CoreV1().Pods(consumer.Namespace).List(ctx, metav1.ListOptions{LabelSelector: kube.ReachCheckSelector})
	require.NoError(t, err)
	assert.Empty(t, podNames(pods.Items), "the check's Pod is gone")

	pushed := refused
	pushed.SkipPodReachCheck = true
	_, err = flows.Authenticate(ctx, pushed, nil)
	require.NoError(t, err)
	d, err := doctor.Run(ctx, consumer, doctor.Options{Remote: provider})
	require.NoError(t, err)
	fromPods := checkOf(t, d, "api-server-reachable-from-pods")
	assert.False(t, fromPods.OK)
	assert.Contains(t, fromPods.Cause, loopback+" is reachable from here, NOT from the consumer's Pods")
	assert.Contains(t, fromPods.Fix, "--api-server-override")
	assert.True(t, checkOf(t, d, "api-server-reachable").OK, "reachable from the laptop")

	node := "https://" + net.JoinHostPort(lcs[0].Node.IP, strconv.Itoa(lab.APIServerPort))
	var ev labtest.EventLog
	fixed := refused
	fixed.Engine.APIServerOverride = node
	_, err = flows.Authenticate(ctx, fixed, ev.Sink)
	require.NoError(t, err)
	assert.True(t, ev.Said("the consumer's Pods reach "+node), "%v", ev.Events())
	d, err = doctor.Run(ctx, consumer, doctor.Options{Remote: provider})
	require.NoError(t, err)
	fromPods = checkOf(t, d, "api-server-reachable-from-pods")
	assert.True(t, fromPods.OK, "%+v", fromPods)
	assert.Contains(t, fromPods.Detail, node)

	// An image the Node has not got and cannot pull: not checked, said.
	r, err := consumer.CheckReachFromPods(ctx, "localhost/liqo-auth-lab/absent:1", node, nil, "")
	require.NoError(t, err)
	assert.False(t, r.Checked)
	assert.Contains(t, r.Why, "the image localhost/liqo-auth-lab/absent:1 is not on Node "+lcs[1].Node.Name+" and cannot be pulled")
}

func checkOf(t *testing.T, d *doctor.Diagnosis, id string) doctor.Check {
	t.Helper()
	for _, c := range d.Checks {
		if c.ID == id {
			return c
		}
	}
	require.Failf(t, "no check", "doctor ran no %s check: %+v", id, d.Checks)
	return doctor.Check{}
}
