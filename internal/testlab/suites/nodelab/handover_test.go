//go:build cluster

package nodelab_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/burst"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labimage"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// install controller on a provider whose handshake the in-process engine
// is serving: the install waits for the controller's Pod to be Ready and
// to hold its Lease; the in-process provider hands over to it in the
// middle of the handshake (after the engines started, before the nonce),
// and the handshake completes, served by the Pod, from one CSR. An image
// the Node does not have fails the install in one line and undoes it;
// uninstall controller leaves no Pod, Deployment nor Lease.
func TestInstallControllerTakesOverAHandshake(t *testing.T) {
	lcs := testLab.Clusters(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	loaded := make(chan error, 1)
	go func() { loaded <- labimage.LoadController(ctx, lcs[0].Node) }()
	provider, consumer := testLab.Pair(t, "handover-provider", "handover-consumer")
	require.NoError(t, <-loaded)

	// An image the Node has not got (and cannot pull): one line, undone.
	_, err := flows.InstallController(ctx, provider, flows.InstallControllerOptions{Image: "localhost/liqo-auth-lab/absent:1"}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the controller's image localhost/liqo-auth-lab/absent:1 is not on Node "+lcs[0].Node.Name+" and cannot be pulled")
	assert.Contains(t, err.Error(), "the install was undone")
	_, err = provider.Kube.AppsV1().Deployments(provider.Namespace).Get(ctx, kube.ControllerLeaseName, metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err), "the Deployment is gone: %v", err)

	csrs := burst.RecordTenantCSRs(t, ctx, provider, "handover-consumer")
	var ev labtest.EventLog
	atNonce, resume, handedOver := make(chan struct{}), make(chan struct{}), make(chan struct{})
	handOverSaid := "provider side handed over to " + string(flows.EngineController)
	sink := func(e handshake.Event) {
		ev.Sink(e)
		switch {
		case e.Kind == handshake.StepStarted && e.Step == "nonce-secret":
			close(atNonce)
			<-resume // the flow waits here; its engines run
		case e.Kind == handshake.Note && strings.Contains(e.Message, handOverSaid):
			close(handedOver)
		}
	}
	type outcome struct {
		res *flows.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, sink)
		done <- outcome{res, err}
	}()
	select {
	case <-atNonce:
	case o := <-done:
		t.Fatalf("the handshake ended before its nonce: %v", o.err)
	}
	require.True(t, ev.Said("provider side served by "+string(flows.EngineInProcess)), "%v", ev.Events())

	installed, err := flows.InstallController(ctx, provider, flows.InstallControllerOptions{Image: labimage.Ref}, nil)
	if err != nil {
		close(resume)
	}
	require.NoError(t, err)
	require.NotEmpty(t, installed.ServedBy, "the install waited for a Pod")
	// From here on the provider's side of the handshake (the nonce, the
	// Tenant's certificate) is the Pod's.
	select {
	case <-handedOver:
	case <-ctx.Done():
		close(resume)
		t.Fatalf("the in-process provider did not hand over: %v", ev.Events())
	}
	close(resume)
	o := <-done
	require.NoError(t, o.err)
	assert.Equal(t, flows.EngineInProcess, o.res.ProviderEngine, "the flow began in-process")
	assert.Len(t, csrs.Of("handover-consumer"), 1, "one CSR")
	assert.NotEmpty(t, o.res.KubeconfigSecret, "the consumer got its kubeconfig")

	changes, err := flows.RemoveController(ctx, provider)
	require.NoError(t, err)
	assert.Contains(t, fmt.Sprint(changes), "Lease "+kube.ControllerLeaseName+" deleted")
	pods, err := provider.Kube.CoreV1().Pods(provider.Namespace).List(ctx, metav1.ListOptions{LabelSelector: kube.ControllerPodSelector})
	require.NoError(t, err)
	assert.Empty(t, podNames(pods.Items), "no controller Pod left")
	_, err = provider.Kube.CoordinationV1().Leases(provider.Namespace).Get(ctx, kube.ControllerLeaseName, metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err), "no Lease left: %v", err)
}

func podNames(pods []corev1.Pod) []string {
	var names []string
	for _, p := range pods {
		names = append(names, p.Name)
	}
	return names
}
