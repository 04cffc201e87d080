//go:build cluster

package wizardbackend_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/wizardbackend"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// The detect screen's install offer: the wizard's backend installs the
// in-cluster controller like `install controller`, and reports what changed.
func TestWizardBackendInstallsController(t *testing.T) {
	b := wizardbackend.New(time.Minute, flows.EngineOptions{})
	const ns = "liqo-wizard-install"
	ref := tui.ClusterRef{Kubeconfig: clusters(t)[1].KubeconfigPath, Namespace: ns}
	ctx := labtest.Context(t)

	res, err := b.InstallController(ctx, ref, "", handshake.Discard)
	require.NoError(t, err)
	assert.Equal(t, kube.ControllerImage, res.Image)
	assert.Contains(t, res.Changed, "Namespace "+ns+" created")
	assert.Contains(t, res.Changed, "ServiceAccount liqo-auth-controller created")
	assert.Contains(t, res.Changed, "Deployment liqo-auth-controller created")
	assert.True(t, res.NoReadyNode, "a bare control plane: the Pods are not waited for")
	assert.Empty(t, res.ServedBy)

	c, err := kube.Connect(kube.KubeconfigOptions{Path: ref.Kubeconfig, LiqoNamespace: ns})
	require.NoError(t, err)
	dep, err := c.Kube.AppsV1().Deployments(ns).Get(ctx, "liqo-auth-controller", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, kube.ControllerImage, dep.Spec.Template.Spec.Containers[0].Image)

	// Installing again changes nothing, and says so.
	again, err := b.InstallController(ctx, ref, "", handshake.Discard)
	require.NoError(t, err)
	assert.Empty(t, again.Changed)
	assert.Contains(t, again.Unchanged, "Deployment liqo-auth-controller")
	assert.Equal(t, len(res.Changed)+len(res.Unchanged), len(again.Unchanged))

	// The lab runs no Pods: the probe still finds no controller, so the
	// wizard keeps serving this cluster in-process.
	info, err := b.Probe(ctx, ref)
	require.NoError(t, err)
	assert.False(t, info.Controller)
}
