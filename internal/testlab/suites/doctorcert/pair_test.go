//go:build cluster

package doctorcert_test

import (
	"context"
	"crypto/x509"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/doctor"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// testTimeout bounds one test: a handshake, then waits bounded by the
// expiry of its certificate.
const testTimeout = 6 * time.Minute

// pair is a consumer and a provider, both this project's, authenticated.
type pair struct {
	providerID, consumerID string
	provider, consumer     *kube.Cluster
	providerLab            *lab.Cluster
	// The controllers of each side (nil while stopped).
	providerRun, consumerRun *controller.Started
	identity                 *authv1beta1.Identity
	// first is the consumer's control-plane certificate after the handshake.
	first *x509.Certificate
}

// ourPair initialises two lab clusters with this project's init, runs
// this project's controller on each as liqo-auth-controller does (holding
// its Lease, which doctor looks for), and authenticates them.
func ourPair(t *testing.T, ctx context.Context, providerLab, consumerLab *lab.Cluster, providerID, consumerID string) *pair {
	t.Helper()
	p := &pair{providerID: providerID, consumerID: consumerID, providerLab: providerLab,
		provider: liqotest.OurCluster(t, ctx, providerLab, providerID), consumer: liqotest.OurCluster(t, ctx, consumerLab, consumerID)}
	p.startProvider(t, ctx)
	p.startConsumer(t, ctx)
	forgetPeer(t, p.provider, consumerID)
	forgetPeer(t, p.consumer, providerID)
	res, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: p.consumer, Provider: p.provider}, nil)
	require.NoError(t, err)
	p.identity = res.Identity
	p.first = identityCertificate(t, res.Identity)
	t.Logf("certificate valid %s → %s, renewal due %s", p.first.NotBefore.Format(time.TimeOnly), p.first.NotAfter.Format(time.TimeOnly),
		kube.RenewalTime(p.first.NotBefore, p.first.NotAfter).Format(time.TimeOnly))
	return p
}

// startProvider runs the provider's controller (what `liqo-auth-tui
// install controller` runs there).
func (p *pair) startProvider(t *testing.T, ctx context.Context) {
	t.Helper()
	p.providerRun = startController(t, ctx, p.provider, controller.Options{Provider: true, APIServerOverride: p.providerLab.Config.Host})
}

// stopProvider stops the provider's controller, which gives up its Lease.
func (p *pair) stopProvider(t *testing.T) {
	t.Helper()
	p.providerRun.Stop()
	p.providerRun = nil
}

// startConsumer runs the consumer's controller.
func (p *pair) startConsumer(t *testing.T, ctx context.Context) {
	t.Helper()
	p.consumerRun = startController(t, ctx, p.consumer, controller.Options{Consumer: true})
}

// stopConsumer stops the consumer's controller.
func (p *pair) stopConsumer(t *testing.T) {
	t.Helper()
	p.consumerRun.Stop()
	p.consumerRun = nil
}

// startController runs this project's controller on c under its Lease,
// until stopped or the test ends.
func startController(t *testing.T, ctx context.Context, c *kube.Cluster, o controller.Options) *controller.Started {
	t.Helper()
	m, err := controller.New(c, o)
	require.NoError(t, err)
	run, err := controller.StartWithLease(ctx, c, kube.ControllerLeaseName, "doctorcert-"+c.Namespace, m, time.Minute)
	require.NoError(t, err)
	t.Cleanup(run.Stop)
	return run
}

// forgetPeer deletes, when the test ends and before its controllers stop,
// the tenant namespace for the peer: the next test's controllers watch the
// same API server and would go on with this one's objects.
func forgetPeer(t *testing.T, c *kube.Cluster, peerID string) {
	t.Cleanup(func() {
		err := c.Kube.CoreV1().Namespaces().Delete(context.Background(), kube.TenantNamespaceName(peerID), metav1.DeleteOptions{})
		if err != nil && !kube.IsNotFound(err) {
			t.Errorf("deleting the tenant namespace of %s: %v", peerID, err)
		}
	})
}

func identityCertificate(t *testing.T, id *authv1beta1.Identity) *x509.Certificate {
	t.Helper()
	cert, err := authcrypto.ParseCertificatePEM(id.Spec.AuthParams.SignedCRT)
	require.NoError(t, err)
	return cert
}

// overdue is when doctor calls a renewal overdue: the 2/3 point plus
// 1/15 of the validity.
func overdue(cert *x509.Certificate) time.Time {
	return kube.RenewalTime(cert.NotBefore, cert.NotAfter).Add(cert.NotAfter.Sub(cert.NotBefore) / 15)
}

// waitUntil waits for a point in time (a certificate's), bounded by ctx.
func waitUntil(t *testing.T, ctx context.Context, at time.Time, what string) {
	t.Helper()
	timer := time.NewTimer(time.Until(at) + time.Second)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
		t.Fatalf("waiting until %s (%s): %v", at.Format(time.TimeOnly), what, ctx.Err())
	}
}

// waitIdentityRenewed watches the consumer's control-plane Identity until
// it holds a certificate lasting longer than first, before first expires.
func waitIdentityRenewed(t *testing.T, ctx context.Context, c *kube.Cluster, id *authv1beta1.Identity, first *x509.Certificate) {
	t.Helper()
	ctx, cancel := context.WithDeadline(ctx, first.NotAfter)
	defer cancel()
	identities := c.Liqo.Identities(id.Namespace)
	_, err := kube.WaitFor(ctx, kube.ListWatch(identities.List, identities.Watch, kube.ByName(id.Name)), "Identity "+id.Name+" renewed",
		func(id *authv1beta1.Identity) (bool, error) {
			cert, err := authcrypto.ParseCertificatePEM(id.Spec.AuthParams.SignedCRT)
			return err == nil && cert.NotAfter.After(first.NotAfter), nil
		})
	require.NoError(t, err, "the Identity was not renewed before its certificate expired")
}

// waitRenewCopy waits for the provider's copy of the consumer's Renew.
func waitRenewCopy(t *testing.T, ctx context.Context, p *pair) *authv1beta1.Renew {
	t.Helper()
	renews := p.provider.Liqo.Renews(kube.TenantNamespaceName(p.consumerID))
	r, err := kube.WaitFor(ctx, kube.ListWatch(renews.List, renews.Watch, kube.ByName(p.identity.Name)), "the Renew's copy on the provider",
		func(*authv1beta1.Renew) (bool, error) { return true, nil })
	require.NoError(t, err)
	return r
}

// diagnose runs doctor on local for the peering with remoteID, reading
// remote too when given.
func diagnose(t *testing.T, ctx context.Context, local, remote *kube.Cluster, remoteID string) *doctor.Diagnosis {
	t.Helper()
	d, err := doctor.Run(ctx, local, doctor.Options{RemoteID: remoteID, Remote: remote})
	require.NoError(t, err)
	return d
}

// checkOf is the check id of a diagnosis (exactly one).
func checkOf(t *testing.T, d *doctor.Diagnosis, id string) doctor.Check {
	t.Helper()
	var found []doctor.Check
	for _, c := range d.Checks {
		if c.ID == id {
			found = append(found, c)
		}
	}
	require.Len(t, found, 1, "checks %s in %+v", id, d.Checks)
	t.Logf("%s: ok=%v detail=%q cause=%q fix=%q", id, found[0].OK, found[0].Detail, found[0].Cause, found[0].Fix)
	return found[0]
}

// waitTenantRenewed watches the provider's Tenant until it holds a
// certificate lasting longer than the consumer's first one.
func waitTenantRenewed(t *testing.T, ctx context.Context, p *pair) {
	t.Helper()
	tenants := p.provider.Liqo.Tenants(kube.TenantNamespaceName(p.consumerID))
	_, err := kube.WaitFor(ctx, kube.ListWatch(tenants.List, tenants.Watch, kube.BySelector("")), "the provider renewing the Tenant",
		func(tenant *authv1beta1.Tenant) (bool, error) {
			if tenant.Status.AuthParams == nil {
				return false, nil
			}
			cert, err := authcrypto.ParseCertificatePEM(tenant.Status.AuthParams.SignedCRT)
			return err == nil && cert.NotAfter.After(p.first.NotAfter), nil
		})
	require.NoError(t, err)
}

// takeRenewsAway strips renews from the ClusterRole the provider binds for
// its consumers (cluster-wide: init puts it back when the test ends).
func takeRenewsAway(t *testing.T, ctx context.Context, provider *kube.Cluster) {
	t.Helper()
	t.Cleanup(func() {
		_, err := provider.Init(context.Background(), kube.InitOptions{})
		assert.NoError(t, err, "restoring the ClusterRoles")
	})
	roles := provider.Kube.RbacV1().ClusterRoles()
	role, err := roles.Get(ctx, kube.RemoteControlPlaneClusterRole, metav1.GetOptions{})
	require.NoError(t, err)
	granted := countResources(role.Rules)
	var rules []rbacv1.PolicyRule
	for _, rule := range role.Rules {
		rule.Resources = slices.DeleteFunc(rule.Resources, func(r string) bool { return strings.HasPrefix(r, authv1beta1.RenewResource) })
		if len(rule.Resources) > 0 {
			rules = append(rules, rule)
		}
	}
	require.Less(t, countResources(rules), granted, "the ClusterRole granted renews")
	role.Rules = rules
	_, err = roles.Update(ctx, role, metav1.UpdateOptions{})
	require.NoError(t, err)
}

func countResources(rules []rbacv1.PolicyRule) int {
	n := 0
	for _, r := range rules {
		n += len(r.Resources)
	}
	return n
}
