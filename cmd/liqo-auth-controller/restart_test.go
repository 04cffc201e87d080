//go:build cluster

package main_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/burst"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The controller binary, SIGKILLed while a burst of Tenants is in flight
// and started again, makes every Tenant converge with exactly one
// certificate each, and leaves no CertificateSigningRequest behind.
//
// The evidence of "one certificate" is the CSRs themselves: the kube CA
// signs only what a CSR asks, so every certificate issued has one, and a
// watch that starts before the controller and resumes from its last
// resourceVersion (RetryWatcher) sees every CSR created, even one created
// and deleted between two looks. Each is attributed to its consumer by the
// CN of its request.
func TestControllerKilledMidBurstConverges(t *testing.T) {
	const n, killAt = 100, 30
	provider := prepare(t, 0, "kill-provider")
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	kubeconfig, _ := provider.serviceAccountKubeconfig(t)

	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("kill-%03d", i)
	}
	tenants := make([]*authv1beta1.Tenant, n)
	burst.Parallel(t, 8, n, func(i int) (err error) {
		tenants[i], err = burst.SyntheticConsumer(ctx, provider.admin, ids[i])
		return err
	})
	csrs := burst.RecordTenantCSRs(t, ctx, provider.admin, "kill-")
	filled := burst.WatchFilledTenants(t, ctx, provider.admin, "kill-")

	ctl := provider.start(t, kubeconfig, "kill-0")
	provider.leaseHolder(t, ctx, "")
	burst.Parallel(t, 16, n, func(i int) error {
		_, err := provider.admin.Liqo.Tenants(tenants[i].Namespace).Create(ctx, tenants[i], metav1.CreateOptions{})
		return err
	})

	select {
	case <-filled.AtLeast(ctx, killAt):
	case <-ctx.Done():
		t.Fatalf("only %d Tenants got their status before the kill", filled.Count())
	}
	require.NoError(t, ctl.cmd.Process.Kill())
	exit := <-ctl.exited
	ctl.exited <- exit // for the cleanup
	done, inFlight := filled.Count(), 0
	for _, id := range ids {
		if !filled.Has(id) && csrs.HasLive(id) {
			inFlight++ // a CSR made, the certificate not handed out yet
		}
	}
	t.Logf("killed with %d of %d Tenants filled, %d CSRs of the unfilled ones in flight, %d CSRs not deleted yet", done, n, inFlight, csrs.Pending())
	require.Less(t, done, n, "the kill must catch Tenants in flight")

	// Same identity: it takes over its own Lease at once.
	provider.start(t, kubeconfig, "kill-0")
	select {
	case <-filled.AtLeast(ctx, n):
	case <-ctx.Done():
		t.Fatalf("only %d of %d Tenants got their status after the restart", filled.Count(), n)
	}

	// One CSR per consumer, and its certificate is the one handed out.
	for i, id := range ids {
		names := csrs.Of(id)
		if !assert.Len(t, names, 1, "CSRs created for %s", id) {
			continue
		}
		got, err := provider.admin.Liqo.Tenants(tenants[i].Namespace).Get(ctx, tenants[i].Name, metav1.GetOptions{})
		require.NoError(t, err)
		// The CSRs' watch may show the signing a moment after the Tenants'
		// shows the status.
		assert.Equal(t, string(csrs.WaitCertificate(ctx, names[0])), string(got.Status.AuthParams.SignedCRT), "certificate of %s", id)
	}
	// None left behind once settled.
	select {
	case <-csrs.AllDeleted(ctx):
	case <-ctx.Done():
		t.Fatalf("%d CSRs of the burst are still there", csrs.Pending())
	}
}
