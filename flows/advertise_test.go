//go:build cluster

package flows_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// warnings collects the Warning events a flow reports.
type warnings struct {
	mu   sync.Mutex
	list []handshake.Event
}

func (w *warnings) sink(ev handshake.Event) {
	if ev.Warning {
		w.mu.Lock()
		w.list = append(w.list, ev)
		w.mu.Unlock()
	}
}

func (w *warnings) reasons() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, ev := range w.list {
		out = append(out, ev.Reason)
	}
	return out
}

// What an in-process provider advertises: its kubeconfig's server and CA,
// or the overrides (https:// prefixed), or no CA with TrustedCA.
func TestAdvertisedInProcess(t *testing.T) {
	provider, _ := pair(t, "adv-provider", "adv-consumer")
	ctx := labtest.Context(t)
	a, err := flows.Advertised(ctx, provider, flows.EngineOptions{})
	require.NoError(t, err)
	assert.Equal(t, flows.EngineInProcess, a.Engine)
	assert.Equal(t, flows.AdvertiseKubeconfig, a.Source)
	assert.Equal(t, strings.TrimSuffix(provider.Server, "/"), a.APIServer)
	fp, err := authcrypto.CertificateFingerprint(provider.Config.CAData)
	require.NoError(t, err)
	assert.Equal(t, fp, a.CAFingerprint)
	assert.False(t, a.TrustedCA)

	a, err = flows.Advertised(ctx, provider, flows.EngineOptions{APIServerOverride: "api.example:443", TrustedCA: true})
	require.NoError(t, err)
	assert.Equal(t, "https://api.example:443", a.APIServer)
	assert.Equal(t, flows.AdvertiseOverride, a.Source)
	assert.True(t, a.TrustedCA)
	assert.Empty(t, a.CA)
	assert.Empty(t, a.CAFingerprint)

	_, err = flows.Advertised(ctx, provider, flows.EngineOptions{APIServerOverride: "http://api.example"})
	assert.ErrorContains(t, err, "only https")
}

// An Identity whose advertised API server does not answer from here is
// applied with a Warning that says from where it was checked, what failed
// and what to do; verify then fails on it, in one line.
func TestConsumerWarnsUnreachableAdvertisedAddress(t *testing.T) {
	provider, consumer := pair(t, "unreach-provider", "unreach-consumer")
	ctx := labtest.Context(t)
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider,
		Engine: flows.EngineOptions{APIServerOverride: "https://127.0.0.1:1"}}, handshake.Discard)
	require.NoError(t, err)
	require.Equal(t, "https://127.0.0.1:1", res.Identity.Spec.AuthParams.APIServer)

	var w warnings
	applied, err := flows.ApplyIdentity(ctx, flows.ConsumerOptions{Consumer: consumer, ProviderID: res.ProviderID}, res.Identity, w.sink)
	require.NoError(t, err, "a warning, not a refusal: the consumer cluster may reach it")
	require.NotNil(t, applied.Status.KubeconfigSecretRef)
	require.Equal(t, []string{flows.ReasonAdvertisedUnreachable}, w.reasons())
	msg := w.list[0].Message
	for _, want := range []string{"https://127.0.0.1:1", "does not answer from this machine", "connection refused", "--api-server-override", "applied anyway"} {
		assert.Contains(t, msg, want)
	}
	assert.NotContains(t, msg, "\n")

	_, err = flows.Verify(ctx, consumer, res.ProviderID, nil)
	require.Error(t, err)
	var unreachable *flows.AdvertisedUnreachableError
	require.True(t, errors.As(flows.AdvertisedUnreachable(err), &unreachable), "%v", err)
	assert.Contains(t, unreachable.Error(), "does not answer from this machine: connection refused")

	// A reachable address gives no warning (other clusters: an override
	// stays on the Tenant for the consumer it was made for).
	provider, consumer = pair(t, "reach-provider", "reach-consumer")
	res, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider}, handshake.Discard)
	require.NoError(t, err)
	w = warnings{}
	_, err = flows.ApplyIdentity(ctx, flows.ConsumerOptions{Consumer: consumer, ProviderID: res.ProviderID}, res.Identity, w.sink)
	require.NoError(t, err)
	assert.Empty(t, w.reasons())
}

// With the in-cluster controller serving the provider, what it advertises
// comes from its Deployment's flags, else a control-plane Node (none in a
// lab: Liqo's error says what to set). A controller without its Deployment
// runs outside the cluster (make demo): the kubeconfig's server.
func TestAdvertisedByInClusterController(t *testing.T) {
	provider, _ := pair(t, "incluster-provider", "incluster-consumer")
	ctx := labtest.Context(t)
	holdControllerLease(t, ctx, provider, time.Now(), 60)

	a, err := flows.Advertised(ctx, provider, flows.EngineOptions{})
	require.NoError(t, err)
	assert.Equal(t, flows.EngineController, a.Engine)
	assert.Equal(t, strings.TrimSuffix(provider.Config.Host, "/"), a.APIServer)
	assert.Equal(t, flows.AdvertiseKubeconfig, a.Source)

	deployment := func(args ...string) *appsv1.Deployment {
		return labtest.Deployment(kube.ControllerLeaseName, "controller", args...)
	}
	deployments := provider.Kube.AppsV1().Deployments(provider.Namespace)
	_, err = deployments.Create(ctx, deployment(), metav1.CreateOptions{})
	require.NoError(t, err)
	a, err = flows.Advertised(ctx, provider, flows.EngineOptions{})
	require.ErrorIs(t, err, kube.ErrNoControlPlaneNode)
	assert.Equal(t, flows.EngineController, a.Engine)
	assert.ErrorContains(t, err, "set --api-server-address-override")

	_, err = deployments.Update(ctx, deployment("--api-server-address-override", "cluster.example:6443", "--trusted-ca"), metav1.UpdateOptions{})
	require.NoError(t, err)
	a, err = flows.Advertised(ctx, provider, flows.EngineOptions{})
	require.NoError(t, err)
	assert.Equal(t, "https://cluster.example:6443", a.APIServer)
	assert.Equal(t, flows.AdvertiseController, a.Source)
	assert.True(t, a.TrustedCA)

	// The run's override wins over the controller's flags: it goes on the
	// Tenant, which the controller honours.
	a, err = flows.Advertised(ctx, provider, flows.EngineOptions{APIServerOverride: "edited.example"})
	require.NoError(t, err)
	assert.Equal(t, "https://edited.example", a.APIServer)
	assert.Equal(t, flows.AdvertiseOverride, a.Source)
}
