//go:build cluster

package wizardbackend_test

import (
	"context"
	"errors"
	"strings"
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

// Manual mode, as two wizards run it: each admin reaches one cluster, the
// artifacts travel by hand, and no controller runs on either cluster. A
// request for resources from the consumer's wizard reaches the provider
// (the consumer's in-process replicator copies it) but nothing answers it
// there: the wait runs out with the cause and the commands to run, and
// the form had said so. Once the provider's wizard serves it (its summary:
// ServeSlices), the same request is answered.
func TestWizardBackendManualRequestNeedsTheProviderServed(t *testing.T) {
	ctx := labtest.Context(t)
	cs := clusters(t)
	provider := tui.ClusterRef{Kubeconfig: cs[0].KubeconfigPath, Namespace: "liqo-wb-manual-p"}
	consumer := tui.ClusterRef{Kubeconfig: cs[1].KubeconfigPath, Namespace: "liqo-wb-manual-c"}
	b := wizardbackend.New(time.Minute, flows.EngineOptions{})
	providerID, consumerID := manualHandshake(t, ctx, b, provider, consumer)

	// The form: who answers, as the consumer sees it.
	answer, err := b.SliceAnswerer(ctx, consumer, providerID, nil)
	require.NoError(t, err)
	assert.Equal(t, handshake.AnswererUnknown, answer.Answerer, "no Liqo on the provider, its controller cannot be seen")
	assert.Equal(t, consumerID, answer.ConsumerID)
	assert.Equal(t, "liqo-tenant-"+consumerID, answer.Namespace)
	auto, err := b.SliceAnswerer(ctx, consumer, providerID, &provider)
	require.NoError(t, err)
	assert.Equal(t, handshake.AnswererInProcess, auto.Answerer, "with the provider at hand, the wizard serves it")

	// Nothing serves the provider: the wait runs out, saying why and what to run.
	req := tui.SliceRequest{Name: "manual-pool", ProviderID: providerID, Class: "default", CPU: "1"}
	var mu sync.Mutex
	var told []string
	sink := func(ev handshake.Event) { mu.Lock(); told = append(told, ev.Message); mu.Unlock() }
	start := time.Now()
	_, err = wizardbackend.New(6*time.Second, flows.EngineOptions{}).RequestResources(ctx, consumer, req, sink)
	t.Logf("unanswered after %v", time.Since(start).Round(time.Millisecond))
	var f *tui.Failure
	require.True(t, errors.As(err, &f), "%v", err)
	assert.True(t, f.Timeout)
	assert.Contains(t, f.Reason, "no answer from provider "+providerID+" to ResourceSlice manual-pool: the request reached it (namespace liqo-tenant-"+consumerID+") but nothing there answered")
	assert.Contains(t, f.Hint, "most likely nothing serves provider "+providerID+": its admin runs `liqo-auth-tui install controller` there, or keeps the wizard (`liqo-auth-tui --role provider --remote-cluster-id "+consumerID+"`) open on its summary")
	assert.Contains(t, f.Hint, "remove it: `liqo-auth-tui delete resourceslice manual-pool --remote-cluster-id "+providerID+"`")
	assert.NotContains(t, f.Reason, "install controller", "the hint is shown apart")
	mu.Lock()
	all := strings.Join(told, "\n")
	mu.Unlock()
	assert.Contains(t, all, "ResourceSlice manual-pool reached provider "+providerID+" (namespace liqo-tenant-"+consumerID+"): waiting for its controller to answer")
	assert.Contains(t, all, "Next, on the provider "+providerID+", while consumer "+consumerID+" waits for the answer to ResourceSlice manual-pool:")

	// The provider's wizard on its summary serves it: the same request is answered.
	serveCtx, stopServing := context.WithCancel(ctx)
	states := make(chan tui.ProviderSlices, 64)
	served := make(chan error, 1)
	go func() {
		served <- b.ServeSlices(serveCtx, provider, consumerID, func(ps tui.ProviderSlices) { states <- ps })
	}()
	first := nextState(t, states)
	assert.True(t, first.InProcess(), "served in-process: %+v", first)
	got, err := b.RequestResources(ctx, consumer, req, nil)
	require.NoError(t, err)
	assert.Equal(t, "Accepted", got.Authentication)
	assert.Equal(t, "Accepted", got.Resources)
	assert.NotEmpty(t, got.KubeconfigSecret)
	for st := first; ; st = nextState(t, states) {
		if len(st.Slices) == 1 && st.Slices[0].Name == "manual-pool" && st.Slices[0].Authentication == "Accepted" {
			break // the provider's summary shows the answer too
		}
	}
	stopServing()
	select {
	case err := <-served:
		assert.NoError(t, err, "serving ends with the summary")
	case <-time.After(30 * time.Second):
		t.Fatal("serving did not end")
	}
}

// manualHandshake runs the manual handshake through the backend, one
// cluster per call, as the two wizards do; it returns the cluster IDs.
func manualHandshake(t *testing.T, ctx context.Context, b *wizardbackend.Backend, provider, consumer tui.ClusterRef) (providerID, consumerID string) {
	t.Helper()
	p, err := b.Init(ctx, provider, nil)
	require.NoError(t, err)
	c, err := b.Init(ctx, consumer, nil)
	require.NoError(t, err)
	nonce, err := b.CreateNonce(ctx, provider, c.ClusterID, nil)
	require.NoError(t, err)
	tenant, err := b.GenerateTenant(ctx, consumer, p.ClusterID, strings.TrimSpace(string(nonce.Data)), nil)
	require.NoError(t, err)
	_, err = b.ApplyTenant(ctx, provider, tenant.Data, nil)
	require.NoError(t, err)
	identity, err := b.GenerateIdentity(ctx, provider, c.ClusterID, nil)
	require.NoError(t, err)
	_, err = b.ApplyIdentity(ctx, consumer, identity.Data, nil)
	require.NoError(t, err)
	return p.ClusterID, c.ClusterID
}

func nextState(t *testing.T, states chan tui.ProviderSlices) tui.ProviderSlices {
	t.Helper()
	select {
	case st := <-states:
		return st
	case <-time.After(time.Minute):
		t.Fatal("no report from ServeSlices within a minute")
		return tui.ProviderSlices{}
	}
}
