//go:build cluster

package wizardbackend_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/wizardbackend"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// The wizard's optional step after the handshake: a ResourceSlice asked
// through the backend is answered by the provider (served in-process, as
// in automated mode), listed with what it granted, and asking the same
// again changes nothing; a bad request writes nothing.
func TestWizardBackendRequestsResources(t *testing.T) {
	ctx := labtest.Context(t)
	b := wizardbackend.New(time.Minute, flows.EngineOptions{})
	provider, consumer, auth := authenticatedPair(t, b, "slices")
	var mu sync.Mutex
	var events []handshake.Event
	sink := func(ev handshake.Event) { mu.Lock(); events = append(events, ev); mu.Unlock() }

	list, err := b.ResourceSlices(ctx, consumer, auth.ProviderID)
	require.NoError(t, err)
	assert.Empty(t, list)

	bad := tui.SliceRequest{Name: "wb-pool", ProviderID: auth.ProviderID, Class: "default", CPU: "lots", Provider: &provider}
	_, err = b.RequestResources(ctx, consumer, bad, sink)
	var fe *handshake.FieldError
	require.True(t, errors.As(err, &fe), "a bad quantity is a field error: %v", err)
	assert.Equal(t, handshake.FieldCPU, fe.Field)
	list, err = b.ResourceSlices(ctx, consumer, auth.ProviderID)
	require.NoError(t, err)
	assert.Empty(t, list, "a refused request wrote a slice")

	req := bad
	req.CPU, req.Memory, req.Pods = "1", "1Gi", "10"
	got, err := b.RequestResources(ctx, consumer, req, sink)
	require.NoError(t, err)
	assert.Equal(t, "wb-pool", got.Name)
	assert.Equal(t, "Accepted", got.Authentication)
	assert.Equal(t, "Accepted", got.Resources)
	assert.NotEmpty(t, got.Granted, "what the provider granted")
	assert.Equal(t, map[string]string{"cpu": "1", "memory": "1Gi", "pods": "10"}, got.Requested)
	assert.NotEmpty(t, got.KubeconfigSecret, "the slice's kubeconfig Secret")
	assert.NotEmpty(t, got.Identity)
	assert.False(t, got.NotAfter.IsZero(), "the slice's certificate expiry")

	list, err = b.ResourceSlices(ctx, consumer, auth.ProviderID)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, *got, list[0])

	again, err := b.RequestResources(ctx, consumer, req, sink)
	require.NoError(t, err)
	assert.Equal(t, got.KubeconfigSecret, again.KubeconfigSecret, "asking the same again changes nothing")
}

// A ResourceSlice the provider denies is an answer, not a failure: the
// backend returns its status, as flows.CreateResourceSlice does with the
// denial, and the wizard shows it.
func TestWizardBackendShowsADeniedSlice(t *testing.T) {
	ctx := labtest.Context(t)
	b := wizardbackend.New(time.Minute, flows.EngineOptions{})
	provider, consumer, auth := authenticatedPair(t, b, "denied")
	require.NoError(t, b.MoveTenant(ctx, provider, auth.ConsumerID, tui.MoveCordon, nil))

	got, err := b.RequestResources(ctx, consumer, tui.SliceRequest{Name: "wb-denied", ProviderID: auth.ProviderID, Class: "default", CPU: "1", Provider: &provider}, nil)
	require.NoError(t, err)
	assert.Equal(t, "Accepted", got.Authentication)
	assert.Equal(t, "Denied", got.Resources)
	assert.Contains(t, got.Message, "is cordoned: no new resources")
}

// authenticatedPair inits a provider and a consumer on the lab's clusters,
// in Liqo namespaces named after name, and authenticates them through b.
func authenticatedPair(t *testing.T, b *wizardbackend.Backend, name string) (provider, consumer tui.ClusterRef, auth *tui.AuthResult) {
	t.Helper()
	ctx := labtest.Context(t)
	cs := clusters(t)
	provider = tui.ClusterRef{Kubeconfig: cs[0].KubeconfigPath, Namespace: "liqo-wb-" + name + "-p"}
	consumer = tui.ClusterRef{Kubeconfig: cs[1].KubeconfigPath, Namespace: "liqo-wb-" + name + "-c"}
	_, err := b.Init(ctx, provider, nil)
	require.NoError(t, err)
	_, err = b.Init(ctx, consumer, nil)
	require.NoError(t, err)
	auth, err = b.Authenticate(ctx, consumer, provider, nil)
	require.NoError(t, err)
	return provider, consumer, auth
}
