//go:build cluster

package flows_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/doctor"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// A denial is the provider's answer: CreateResourceSlice returns the
// slice's status with a *SliceDeniedError, whether the provider denied its
// authentication (the wait for it fails, no kubeconfig) or, on a cordoned
// Tenant, its resources (authenticated, with a kubeconfig).
func TestCreateResourceSliceReturnsTheDenial(t *testing.T) {
	provider, consumer := authenticatedPair(t, "rd-provider", "rd-consumer")
	ctx := labtest.Context(t)
	both := flows.SliceOptions{Wait: true, Provider: provider}

	// Authentication: a slice claiming another consumer is refused.
	req := artifact.SliceRequest{Name: "rd-claims-another", ProviderID: "rd-provider", CPU: "1"}
	_, err := flows.CreateResourceSlice(ctx, consumer, req, flows.SliceOptions{}, nil)
	require.NoError(t, err)
	slices := consumer.Liqo.ResourceSlices(kube.TenantNamespaceName("rd-provider"))
	rs, err := slices.Get(ctx, req.Name, metav1.GetOptions{})
	require.NoError(t, err)
	rs.Spec.ConsumerClusterID = "someone-else"
	_, err = slices.Update(ctx, rs, metav1.UpdateOptions{})
	require.NoError(t, err)

	st, err := flows.CreateResourceSlice(ctx, consumer, req, both, nil)
	var denied *flows.SliceDeniedError
	require.True(t, errors.As(err, &denied), "%T: %v", err, err)
	assert.Equal(t, "authentication", denied.Denied)
	assert.Contains(t, denied.Message, "is not the consumer it was replicated from")
	var step *flows.StepError
	assert.True(t, errors.As(err, &step), "the wait for the answer failed: %v", err)
	require.NotNil(t, st, "the denial comes with the slice's status")
	assert.True(t, st.Denied())
	assert.Equal(t, artifact.SliceDenied, st.Authentication)
	assert.Equal(t, denied.Message, st.Message, "the why (the provider's Warning), not Liqo's words in the condition")
	assert.Empty(t, st.KubeconfigSecret)
	e := flows.Explain(err)
	assert.Contains(t, e.Reason, "provider rd-provider denied the authentication of ResourceSlice rd-claims-another")
	assert.NotContains(t, e.Reason, "delete resourceslice", "the hint apart")
	assert.Contains(t, e.Hint, "`liqo-auth-tui delete resourceslice rd-claims-another --remote-cluster-id rd-provider`")

	// Resources: a cordoned Tenant's new slice is authenticated, without resources.
	require.NoError(t, flows.CordonTenant(ctx, provider, "rd-consumer", flows.ConfirmOptions{Yes: true}, nil))
	st, err = flows.CreateResourceSlice(ctx, consumer, artifact.SliceRequest{Name: "rd-cordoned", ProviderID: "rd-provider", CPU: "1"}, both, nil)
	require.True(t, errors.As(err, &denied), "%T: %v", err, err)
	assert.Equal(t, "resources", denied.Denied)
	assert.False(t, errors.As(err, &step), "every step went through: %v", err)
	require.NotNil(t, st)
	assert.Equal(t, "Accepted", st.Authentication)
	assert.Equal(t, artifact.SliceDenied, st.Resources)
	assert.Contains(t, st.Message, "is cordoned")
	assert.NotEmpty(t, st.KubeconfigSecret)
	assert.Contains(t, err.Error(), "provider rd-provider denied the resources of ResourceSlice rd-cordoned: "+denied.Message)
}

// A provider that grants no slice of the default class (Liqo's next
// release's --default-resource-slice-class-enabled=false, or this
// project's controller with it): the consumer's slice is authenticated,
// its Resources Denied with that reason, and the denial, get resourceslice
// and doctor say to ask for a plugin's class.
func TestDefaultSliceClassDisabledOnTheProvider(t *testing.T) {
	provider, consumer := authenticatedPair(t, "nd-provider", "nd-consumer")
	ctx := labtest.Context(t)
	liqotest.RunOurManager(t, ctx, provider, controller.Options{Provider: true, DefaultSliceClassDisabled: true})

	// Without the provider's kubeconfig: the consumer's own view.
	st, err := flows.CreateResourceSlice(ctx, consumer, artifact.SliceRequest{Name: "nd-default", ProviderID: "nd-provider", CPU: "1"},
		flows.SliceOptions{Wait: true}, nil)
	var denied *flows.SliceDeniedError
	require.True(t, errors.As(err, &denied), "%T: %v", err, err)
	require.NotNil(t, st)
	assert.Equal(t, "Accepted", st.Authentication)
	assert.Equal(t, kube.SliceDefaultClassDisabledReason, st.Reason)
	assert.Equal(t, "Denied (DefaultResourceSliceClassDisabled)", st.ResourcesShown())
	assert.NotEmpty(t, st.KubeconfigSecret, "authenticated: a kubeconfig all the same")
	assert.Contains(t, err.Error(), "provider nd-provider denied the resources of ResourceSlice nd-default: "+kube.SliceDefaultClassDisabledMessage)
	assert.Contains(t, flows.Explain(err).Hint, "ask for a class its plugins serve (`--class`)")

	diag, err := doctor.Run(ctx, consumer, doctor.Options{RemoteID: "nd-provider"})
	require.NoError(t, err)
	var found bool
	for _, c := range diag.Checks {
		if c.ID == "default-slice-class" {
			found = true
			assert.False(t, c.OK)
			assert.Contains(t, c.Cause, "nd-default got no resources")
			assert.Contains(t, c.Fix, "--class <class>")
		}
	}
	assert.True(t, found, "doctor names the refused class: %+v", diag.Checks)
}
