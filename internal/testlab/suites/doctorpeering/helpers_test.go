//go:build cluster

package doctorpeering_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/doctor"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The checks this package proves (flows/doctor: handshake.go, credentials.go).
const (
	handshakeComplete  = "handshake-complete"
	tenantIdentity     = "tenant-identity"
	identityKubeconfig = "identity-kubeconfig"
	consumerKey        = "consumer-key"
	reachable          = "api-server-reachable"
	accepted           = "kubeconfig-accepted"
	permissions        = "kubeconfig-permissions"
)

// pair is one test's provider and consumer, initialised on the lab's two
// clusters with IDs of the test's own.
type pair struct {
	provider, consumer     *kube.Cluster
	providerID, consumerID string
}

// newPair initialises both clusters for tag's IDs; nothing is
// authenticated yet. What the test leaves is removed when it ends.
func newPair(t *testing.T, ctx context.Context, tag string) pair {
	t.Helper()
	cs := testLab.Clusters(t)
	p := pair{providerID: tag + "-prov", consumerID: tag + "-cons"}
	p.provider = liqotest.OurCluster(t, ctx, cs[0], p.providerID)
	p.consumer = liqotest.OurCluster(t, ctx, cs[1], p.consumerID)
	t.Cleanup(func() { p.remove(t) })
	return p
}

// authenticatedPair is newPair, authenticated with this project's flow
// (in-process controllers, stopped when it returns: afterwards no
// controller serves either side).
func authenticatedPair(t *testing.T, ctx context.Context, tag string) pair {
	t.Helper()
	p := newPair(t, ctx, tag)
	_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: p.consumer, Provider: p.provider}, nil)
	require.NoError(t, err)
	return p
}

// remove unauthenticates the pair (which cleans the provider itself when
// no controller runs) and deletes both sides' namespaces of it, so that
// the in-process controllers of later tests do not reconcile it.
func (p pair) remove(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := flows.Unauthenticate(ctx, flows.UnauthenticateOptions{Consumer: p.consumer, Provider: p.provider, StepTimeout: 20 * time.Second}, nil)
	if err != nil {
		t.Logf("cleanup: unauthenticate: %v", err)
	}
	for _, side := range []struct {
		c       *kube.Cluster
		own, ns string
	}{{p.provider, p.providerID, kube.TenantNamespaceName(p.consumerID)}, {p.consumer, p.consumerID, kube.TenantNamespaceName(p.providerID)}} {
		for _, ns := range []string{side.ns, "liqo-" + side.own} {
			if err := side.c.Kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !kube.IsNotFound(err) {
				t.Logf("cleanup: deleting namespace %s: %v", ns, err)
			}
		}
	}
}

// fromConsumer runs doctor on the consumer about the pair, with the
// provider as the remote when both is set.
func (p pair) fromConsumer(t *testing.T, ctx context.Context, both bool) *doctor.Diagnosis {
	t.Helper()
	o := doctor.Options{RemoteID: p.providerID}
	if both {
		o.Remote = p.provider
	}
	d, err := doctor.Run(ctx, p.consumer, o)
	require.NoError(t, err)
	return d
}

// fromProvider runs doctor on the provider about the pair, with the
// consumer as the remote when both is set.
func (p pair) fromProvider(t *testing.T, ctx context.Context, both bool) *doctor.Diagnosis {
	t.Helper()
	o := doctor.Options{RemoteID: p.consumerID}
	if both {
		o.Remote = p.consumer
	}
	d, err := doctor.Run(ctx, p.provider, o)
	require.NoError(t, err)
	return d
}

// check is the one check with id in d.
func check(t *testing.T, d *doctor.Diagnosis, id string) doctor.Check {
	t.Helper()
	var found []doctor.Check
	for _, c := range d.Checks {
		if c.ID == id {
			found = append(found, c)
		}
	}
	require.Len(t, found, 1, "checks with ID %s in:\n%s", id, describe(d))
	return found[0]
}

// absent asserts that d has no check with id.
func absent(t *testing.T, d *doctor.Diagnosis, id string) {
	t.Helper()
	for _, c := range d.Checks {
		assert.NotEqual(t, id, c.ID, "unexpected check in:\n%s", describe(d))
	}
}

// failedCheck is the check with id, asserted failed on scope.
func failedCheck(t *testing.T, d *doctor.Diagnosis, id string, scope handshake.Scope) doctor.Check {
	t.Helper()
	c := check(t, d, id)
	require.False(t, c.OK, "%s should fail:\n%s", id, describe(d))
	assert.Equal(t, scope, c.Scope, id)
	assert.NotEmpty(t, c.Cause, id)
	return c
}

// passes asserts that each check with the ids passed.
func passes(t *testing.T, d *doctor.Diagnosis, ids ...string) {
	t.Helper()
	for _, id := range ids {
		c := check(t, d, id)
		assert.True(t, c.OK, "%s should pass:\n%s", id, describe(d))
	}
}

// repair applies the Repair of c, which must have one.
func repair(t *testing.T, ctx context.Context, c doctor.Check) {
	t.Helper()
	require.NotNil(t, c.Repair, "%s should have a Repair", c.ID)
	require.NotEmpty(t, c.Repair.Plan)
	require.NoError(t, doctor.ApplyRepair(ctx, c))
}

// describe lists a diagnosis one check a line, for failure messages.
func describe(d *doctor.Diagnosis) string {
	var lines []string
	for _, c := range d.Checks {
		mark := "✓"
		if !c.OK {
			mark = "✗"
		}
		lines = append(lines, fmt.Sprintf("  %s %s (%s, %s) %s%s %s", mark, c.ID, c.RemoteID, c.Scope, c.Detail, c.Cause, c.Fix))
	}
	return strings.Join(lines, "\n")
}

// testContext bounds one test: a few handshakes at most (labtest.Context
// bounds one step).
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
