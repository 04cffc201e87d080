//go:build cluster

package doctorcluster_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certv1 "k8s.io/api/certificates/v1"
	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/doctor"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// mainCluster is the shared lab cluster seen through the Liqo namespace
// liqo-<id>; initialised with cluster ID id unless bare.
func mainCluster(t *testing.T, id string, bare bool) *kube.Cluster {
	return clusterOf(t, testLab.Clusters(t)[0], id, bare)
}

func clusterOf(t *testing.T, lc *lab.Cluster, id string, bare bool) *kube.Cluster {
	t.Helper()
	c, err := kube.NewCluster(lc.Config, "liqo-"+id)
	require.NoError(t, err)
	if !bare {
		_, err = flows.Init(labtest.Context(t), c, kube.InitOptions{ClusterID: id}, nil)
		require.NoError(t, err)
	}
	return c
}

// diagnose runs doctor on c (and remote), at now when set.
func diagnose(t *testing.T, c, remote *kube.Cluster, now time.Time) *doctor.Diagnosis {
	t.Helper()
	o := doctor.Options{Remote: remote}
	if !now.IsZero() {
		o.Now = func() time.Time { return now }
	}
	d, err := doctor.Run(labtest.Context(t), c, o)
	require.NoError(t, err)
	return d
}

// checkOf is the one cluster check id of the side scope.
func checkOf(t *testing.T, d *doctor.Diagnosis, id string, scope handshake.Scope) doctor.Check {
	t.Helper()
	var found []doctor.Check
	for _, c := range d.Checks {
		if c.ID == id && c.RemoteID == "" && c.Scope == scope {
			found = append(found, c)
		}
	}
	require.Len(t, found, 1, "checks %s (%s) in %+v", id, scope, d.Checks)
	return found[0]
}

// failedWith asserts that the check failed with a cause containing each
// of causes and exactly the fix.
func failedWith(t *testing.T, c doctor.Check, fix string, causes ...string) {
	t.Helper()
	assert.False(t, c.OK, "%+v", c)
	for _, want := range causes {
		assert.Contains(t, c.Cause, want)
	}
	assert.Equal(t, fix, c.Fix)
	assert.NotContains(t, c.Cause, "\n", "a cause is one line")
}

func passes(t *testing.T, c doctor.Check, detail string) {
	t.Helper()
	assert.True(t, c.OK, "%+v", c)
	assert.Contains(t, c.Detail, detail)
}

// The cluster-ID ConfigMap deleted: the check says which label in which
// namespace, and the fix (init) gives the cluster an ID again; the
// remote side's fix carries its kubeconfig.
func TestClusterIDMissing(t *testing.T) {
	c := mainCluster(t, "dc-noid", false)
	remote := mainCluster(t, "dc-noid-remote", true)
	ctx := labtest.Context(t)
	require.NoError(t, c.Kube.CoreV1().ConfigMaps(c.Namespace).Delete(ctx, kube.ClusterIDConfigMapName, metav1.DeleteOptions{}))

	d := diagnose(t, c, remote, time.Time{})
	failedWith(t, checkOf(t, d, "cluster-id", handshake.Local), "liqo-auth-tui init --liqo-namespace liqo-dc-noid",
		"no ConfigMap labelled app.kubernetes.io/name=clusterid-configmap in namespace liqo-dc-noid")
	failedWith(t, checkOf(t, d, "cluster-id", handshake.Remote),
		"liqo-auth-tui init --liqo-namespace liqo-dc-noid-remote --kubeconfig <the remote cluster's kubeconfig>",
		"in namespace liqo-dc-noid-remote")
	passes(t, checkOf(t, d, "cluster-keys", handshake.Local), "Ed25519")

	_, err := flows.Init(ctx, c, kube.InitOptions{ClusterID: "dc-noid"}, nil)
	require.NoError(t, err)
	passes(t, checkOf(t, diagnose(t, c, nil, time.Time{}), "cluster-id", handshake.Local), "dc-noid (ConfigMap liqo-clusterid-configmap)")
}

// A cluster ID that is not a DNS-1123 label: the cause quotes it.
func TestClusterIDInvalid(t *testing.T) {
	c := mainCluster(t, "dc-badid", false)
	ctx := labtest.Context(t)
	cm, err := c.ClusterIDConfigMap(ctx)
	require.NoError(t, err)
	cm.Data[kube.ClusterIDKey] = "Not_An_ID"
	_, err = c.Kube.CoreV1().ConfigMaps(c.Namespace).Update(ctx, cm, metav1.UpdateOptions{})
	require.NoError(t, err)

	failedWith(t, checkOf(t, diagnose(t, c, nil, time.Time{}), "cluster-id", handshake.Local),
		"kubectl -n liqo-dc-badid delete configmap liqo-clusterid-configmap && liqo-auth-tui init --cluster-id <a DNS-1123 label> --liqo-namespace liqo-dc-badid",
		`ConfigMap liqo-dc-badid/liqo-clusterid-configmap "Not_An_ID" is not a cluster ID`)
}

// The key pair deleted: the fix (init) makes one, and the passing check
// shows its fingerprint, never the key.
func TestClusterKeysMissing(t *testing.T) {
	c := mainCluster(t, "dc-nokeys", false)
	ctx := labtest.Context(t)
	require.NoError(t, c.Kube.CoreV1().Secrets(c.Namespace).Delete(ctx, kube.AuthKeysSecretName, metav1.DeleteOptions{}))

	failedWith(t, checkOf(t, diagnose(t, c, nil, time.Time{}), "cluster-keys", handshake.Local), "liqo-auth-tui init --liqo-namespace liqo-dc-nokeys",
		"Secret liqo-dc-nokeys/authentication-keys does not exist")

	_, err := flows.Init(ctx, c, kube.InitOptions{}, nil)
	require.NoError(t, err)
	pub, _, err := c.PublicKey(ctx)
	require.NoError(t, err)
	fingerprint, err := authcrypto.Fingerprint(pub)
	require.NoError(t, err)
	d := diagnose(t, c, nil, time.Time{})
	passes(t, checkOf(t, d, "cluster-keys", handshake.Local), "Ed25519, "+fingerprint)
	assertNoKeyMaterial(t, c, d)
}

// A publicKey that is not the private key's half: the fix makes a new
// pair, and says that its peerings must be made again.
func TestClusterKeysMismatched(t *testing.T) {
	c := mainCluster(t, "dc-badkeys", false)
	ctx := labtest.Context(t)
	other, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)
	otherPub, err := authcrypto.EncodePublicKeyPEM(other.Public())
	require.NoError(t, err)
	s, err := c.Kube.CoreV1().Secrets(c.Namespace).Get(ctx, kube.AuthKeysSecretName, metav1.GetOptions{})
	require.NoError(t, err)
	s.Data[kube.PublicKeyField] = otherPub
	_, err = c.Kube.CoreV1().Secrets(c.Namespace).Update(ctx, s, metav1.UpdateOptions{})
	require.NoError(t, err)

	d := diagnose(t, c, nil, time.Time{})
	check := checkOf(t, d, "cluster-keys", handshake.Local)
	failedWith(t, check, "kubectl -n liqo-dc-badkeys delete secret authentication-keys && liqo-auth-tui init --liqo-namespace liqo-dc-badkeys",
		"publicKey is not the public half of privateKey", "re-authenticating every peering")
	assertNoKeyMaterial(t, c, d)

	// The fix, as printed.
	require.NoError(t, c.Kube.CoreV1().Secrets(c.Namespace).Delete(ctx, kube.AuthKeysSecretName, metav1.DeleteOptions{}))
	_, err = flows.Init(ctx, c, kube.InitOptions{}, nil)
	require.NoError(t, err)
	passes(t, checkOf(t, diagnose(t, c, nil, time.Time{}), "cluster-keys", handshake.Local), "Ed25519")
}

// assertNoKeyMaterial: the diagnosis, as -o json prints it, holds
// neither half of the key pair.
func assertNoKeyMaterial(t *testing.T, c *kube.Cluster, d *doctor.Diagnosis) {
	t.Helper()
	out, err := json.Marshal(d)
	require.NoError(t, err)
	s, err := c.Kube.CoreV1().Secrets(c.Namespace).Get(labtest.Context(t), kube.AuthKeysSecretName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.NotContains(t, string(out), "PRIVATE KEY")
	for _, field := range []string{kube.PrivateKeyField, kube.PublicKeyField} {
		body := strings.Split(strings.TrimSpace(string(s.Data[field])), "\n")[1]
		assert.NotContains(t, string(out), body)
	}
}

// CRDs: none on a cluster never initialised, then one deleted; init, the
// fix, installs what is missing. On the lab's "bare" cluster: CRDs are
// cluster-wide.
func TestCRDsMissing(t *testing.T) {
	c := clusterOf(t, testLab.Clusters(t)[1], "dc-crds", true)
	ctx := labtest.Context(t)
	fix := "liqo-auth-tui init --liqo-namespace liqo-dc-crds"
	failedWith(t, checkOf(t, diagnose(t, c, nil, time.Time{}), "crds", handshake.Local), fix,
		"missing: identities.authentication.liqo.io, renews.authentication.liqo.io, resourceslices.authentication.liqo.io, tenants.authentication.liqo.io, namespacemaps.offloading.liqo.io",
		"`init` was not run")

	_, err := flows.Init(ctx, c, kube.InitOptions{ClusterID: "dc-crds"}, nil)
	require.NoError(t, err)
	passes(t, checkOf(t, diagnose(t, c, nil, time.Time{}), "crds", handshake.Local),
		"identities, renews, resourceslices, tenants, namespacemaps established")

	crds := c.APIExt.ApiextensionsV1().CustomResourceDefinitions()
	const renews = "renews.authentication.liqo.io"
	require.NoError(t, crds.Delete(ctx, renews, metav1.DeleteOptions{}))
	require.NoError(t, kube.WaitForDeletion(ctx, kube.ListWatch(crds.List, crds.Watch, kube.ByName(renews)), &apiextv1.CustomResourceDefinition{}, "CRD "+renews))
	check := checkOf(t, diagnose(t, c, nil, time.Time{}), "crds", handshake.Local)
	failedWith(t, check, fix, "missing: "+renews)
	assert.NotContains(t, check.Cause, "tenants")
	assert.NotContains(t, check.Cause, "`init` was not run")

	_, err = flows.Init(ctx, c, kube.InitOptions{}, nil)
	require.NoError(t, err)
	passes(t, checkOf(t, diagnose(t, c, nil, time.Time{}), "crds", handshake.Local), "established")
}

// No controller: the fix installs it; in a lab, which runs no Pods, its
// Deployment then has no ready replica, which the check says next; a
// controller leading under the Lease, as the Deployment's would, passes.
func TestControllerNotRunning(t *testing.T) {
	c := mainCluster(t, "dc-noctl", false)
	ctx := labtest.Context(t)
	failedWith(t, checkOf(t, diagnose(t, c, nil, time.Time{}), "controller-running", handshake.Local),
		"liqo-auth-tui install controller --liqo-namespace liqo-dc-noctl",
		"no controller serves this cluster: no Deployment liqo-dc-noctl/liqo-auth-controller and nobody holds the Lease liqo-dc-noctl/liqo-auth-controller",
		"the wizard runs one in-process only while it runs")

	_, err := flows.InstallController(ctx, c, flows.InstallControllerOptions{}, nil)
	require.NoError(t, err)
	failedWith(t, checkOf(t, diagnose(t, c, nil, time.Time{}), "controller-running", handshake.Local),
		"kubectl -n liqo-dc-noctl describe pods -l app.kubernetes.io/name=liqo-auth-controller && kubectl -n liqo-dc-noctl logs deployment/liqo-auth-controller",
		"Deployment liqo-dc-noctl/liqo-auth-controller has 0/2 replicas available: its pods are not ready",
		"nobody holds the Lease")

	runController(t, c, "liqo-auth-controller-7c9d5-abcde")
	passes(t, checkOf(t, diagnose(t, c, nil, time.Time{}), "controller-running", handshake.Local),
		"liqo-auth-controller: Lease held by liqo-auth-controller-7c9d5-abcde, renewed")
}

// The Lease held by a holder that stopped renewing it 10 minutes ago,
// while the Deployment says its replicas are available: the cause names
// the holder and when, the fix restarts the Deployment; a new leader (as
// the restarted pods) takes the Lease over and the check passes.
func TestControllerLeaseHolderGone(t *testing.T) {
	c := mainCluster(t, "dc-gone", false)
	ctx := labtest.Context(t)
	renewed := metav1.NewMicroTime(time.Now().Add(-10 * time.Minute))
	_, err := c.Kube.CoordinationV1().Leases(c.Namespace).Create(ctx, &coordv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: kube.ControllerLeaseName},
		Spec: coordv1.LeaseSpec{HolderIdentity: ptr.To("liqo-auth-controller-5d8f7-x2x9q"), LeaseDurationSeconds: ptr.To[int32](15),
			AcquireTime: &renewed, RenewTime: &renewed},
	}, metav1.CreateOptions{})
	require.NoError(t, err)

	failedWith(t, checkOf(t, diagnose(t, c, nil, time.Time{}), "controller-running", handshake.Local),
		"liqo-auth-tui install controller --liqo-namespace liqo-dc-gone",
		"the Lease liqo-dc-gone/liqo-auth-controller is held by liqo-auth-controller-5d8f7-x2x9q, which last renewed it 10m ago and is gone")

	// Its Deployment there, its replicas available (a lab has no
	// deployment controller: the status is written as that one would).
	deploy := labtest.Deployment("liqo-auth-controller", "controller")
	deploy.Spec.Replicas = ptr.To[int32](2)
	deploy, err = c.Kube.AppsV1().Deployments(c.Namespace).Create(ctx, deploy, metav1.CreateOptions{})
	require.NoError(t, err)
	deploy.Status.Replicas, deploy.Status.ReadyReplicas, deploy.Status.AvailableReplicas = 2, 2, 2
	_, err = c.Kube.AppsV1().Deployments(c.Namespace).UpdateStatus(ctx, deploy, metav1.UpdateOptions{})
	require.NoError(t, err)
	failedWith(t, checkOf(t, diagnose(t, c, nil, time.Time{}), "controller-running", handshake.Local),
		"kubectl -n liqo-dc-gone rollout restart deployment/liqo-auth-controller",
		"Deployment liqo-dc-gone/liqo-auth-controller has 2/2 replicas available and yet the Lease liqo-dc-gone/liqo-auth-controller is held by liqo-auth-controller-5d8f7-x2x9q, which last renewed it 10m ago and is gone")

	runController(t, c, "liqo-auth-controller-5d8f7-newpod")
	passes(t, checkOf(t, diagnose(t, c, nil, time.Time{}), "controller-running", handshake.Local), "Lease held by liqo-auth-controller-5d8f7-newpod")
}

// A Deployment scaled to zero: the fix scales it up.
func TestControllerScaledToZero(t *testing.T) {
	c := mainCluster(t, "dc-zero", false)
	_, err := c.Kube.AppsV1().Deployments(c.Namespace).Create(labtest.Context(t), labtest.Deployment("liqo-auth-controller", "controller"), metav1.CreateOptions{})
	require.NoError(t, err)
	failedWith(t, checkOf(t, diagnose(t, c, nil, time.Time{}), "controller-running", handshake.Local),
		"kubectl -n liqo-dc-zero scale deployment/liqo-auth-controller --replicas=2",
		"Deployment liqo-dc-zero/liqo-auth-controller is scaled to 0 replicas; nobody holds the Lease")
}

// runController runs the provider's reconcilers under the in-cluster
// controller's Lease, as holder, until the test ends.
func runController(t *testing.T, c *kube.Cluster, holder string) {
	t.Helper()
	m, err := controller.New(c, controller.Options{Provider: true})
	require.NoError(t, err)
	started, err := controller.StartWithLease(labtest.Context(t), c, kube.ControllerLeaseName, holder, m, 45*time.Second)
	require.NoError(t, err)
	t.Cleanup(started.Stop)
}

// Everything in order: an initialised cluster served by a controller.
func TestClusterChecksPass(t *testing.T) {
	c := mainCluster(t, "dc-ok", false)
	runController(t, c, "dc-ok-controller")
	d := diagnose(t, c, nil, time.Time{})
	assert.Empty(t, d.Failed())
	assert.Equal(t, "dc-ok", d.ClusterID)
	passes(t, checkOf(t, d, "cluster-id", handshake.Local), "dc-ok")
	passes(t, checkOf(t, d, "cluster-keys", handshake.Local), "Ed25519, SHA256:")
	passes(t, checkOf(t, d, "crds", handshake.Local), "established")
	passes(t, checkOf(t, d, "controller-running", handshake.Local), "held by dc-ok-controller")
	passes(t, checkOf(t, d, "csrs", handshake.Local), "none stuck, denied or failed")
}

// createCSR makes a Tenant-like CSR (labelled liqo.io/remote-tenant-csr,
// its subject the consumer's ID), deleted when the test ends.
func createCSR(t *testing.T, c *kube.Cluster, consumerID string) *certv1.CertificateSigningRequest {
	t.Helper()
	return createCSRFor(t, c, consumerID, kube.KubeAPIServerClientSignerName)
}

// createCSRFor is createCSR for signer.
func createCSRFor(t *testing.T, c *kube.Cluster, consumerID, signer string) *certv1.CertificateSigningRequest {
	t.Helper()
	key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)
	req, err := authcrypto.NewCSR(key, consumerID)
	require.NoError(t, err)
	csrs := c.Kube.CertificatesV1().CertificateSigningRequests()
	csr, err := csrs.Create(labtest.Context(t), &certv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{GenerateName: consumerID + "-", Labels: map[string]string{kube.RemoteTenantCSRLabel: "true"}},
		Spec: certv1.CertificateSigningRequestSpec{Request: req, SignerName: signer,
			Usages: []certv1.KeyUsage{certv1.UsageDigitalSignature, certv1.UsageKeyEncipherment, certv1.UsageClientAuth}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = csrs.Delete(context.Background(), csr.Name, metav1.DeleteOptions{}) })
	return csr
}

// repairCSRs applies the CSR check's repair, whose plan deletes want,
// and sees the check pass.
func repairCSRs(t *testing.T, c *kube.Cluster, check doctor.Check, now time.Time, plan string) {
	t.Helper()
	require.NotNil(t, check.Repair, "%+v", check)
	assert.Equal(t, []string{plan}, check.Repair.Plan)
	require.NoError(t, doctor.ApplyRepair(labtest.Context(t), check))
	passes(t, checkOf(t, diagnose(t, c, nil, now), "csrs", handshake.Local), "none stuck, denied or failed")
}

// A denied CSR: the cause names it, its consumer and the denial; the
// repair deletes it.
func TestCSRDenied(t *testing.T) {
	c := mainCluster(t, "dc-denied", false)
	csr := createCSR(t, c, "dc-denied-consumer")
	csr.Status.Conditions = append(csr.Status.Conditions, certv1.CertificateSigningRequestCondition{
		Type: certv1.CertificateDenied, Status: corev1.ConditionTrue, Reason: "NotThisOne", Message: "denied by the test"})
	_, err := c.Kube.CertificatesV1().CertificateSigningRequests().UpdateApproval(labtest.Context(t), csr.Name, csr, metav1.UpdateOptions{})
	require.NoError(t, err)

	check := checkOf(t, diagnose(t, c, nil, time.Time{}), "csrs", handshake.Local)
	failedWith(t, check, "kubectl delete csr "+csr.Name,
		"CSR "+csr.Name+" (consumer dc-denied-consumer) was denied (NotThisOne: denied by the test)")
	repairCSRs(t, c, check, time.Time{}, "delete CertificateSigningRequest "+csr.Name+" (consumer dc-denied-consumer; denied)")
}

// A failed CSR (its signer refused it): same.
func TestCSRFailed(t *testing.T) {
	c := mainCluster(t, "dc-failed", false)
	csr := createCSR(t, c, "dc-failed-consumer")
	csr.Status.Conditions = append(csr.Status.Conditions, certv1.CertificateSigningRequestCondition{
		Type: certv1.CertificateFailed, Status: corev1.ConditionTrue, Reason: "SignerValidationFailure", Message: "failed by the test"})
	_, err := c.Kube.CertificatesV1().CertificateSigningRequests().UpdateStatus(labtest.Context(t), csr, metav1.UpdateOptions{})
	require.NoError(t, err)

	check := checkOf(t, diagnose(t, c, nil, time.Time{}), "csrs", handshake.Local)
	failedWith(t, check, "kubectl delete csr "+csr.Name,
		"CSR "+csr.Name+" (consumer dc-failed-consumer) failed (SignerValidationFailure: failed by the test)")
	repairCSRs(t, c, check, time.Time{}, "delete CertificateSigningRequest "+csr.Name+" (consumer dc-failed-consumer; failed)")
}

// A CSR pending for 10 minutes that nothing asks for: stale, the repair
// deletes it. A young one is not judged.
func TestCSRStalePending(t *testing.T) {
	c := mainCluster(t, "dc-stale", false)
	csr := createCSR(t, c, "dc-stale-consumer")
	passes(t, checkOf(t, diagnose(t, c, nil, time.Time{}), "csrs", handshake.Local), "none stuck")

	later := time.Now().Add(10 * time.Minute)
	check := checkOf(t, diagnose(t, c, nil, later), "csrs", handshake.Local)
	failedWith(t, check, "kubectl delete csr "+csr.Name,
		"CSR "+csr.Name+" (consumer dc-stale-consumer) waits for approval since 10m, and no Tenant, ResourceSlice or Renew asks for it")
	repairCSRs(t, c, check, later, "delete CertificateSigningRequest "+csr.Name+" (consumer dc-stale-consumer; pending for 10m)")
}

// A CSR pending for 10 minutes that a Tenant asks for, never approved: the
// fix approves it (doctor deletes nothing a Tenant waits for), the lab's
// signer signs it, and the check passes.
func TestCSRPendingApproval(t *testing.T) {
	c := mainCluster(t, "dc-approve", false)
	ctx := labtest.Context(t)
	csr := createCSR(t, c, "dc-approve-consumer")
	askFor(t, c, "dc-approve-consumer", csr)

	later := time.Now().Add(10 * time.Minute)
	check := checkOf(t, diagnose(t, c, nil, later), "csrs", handshake.Local)
	failedWith(t, check, "kubectl certificate approve "+csr.Name,
		"CSR "+csr.Name+" (consumer dc-approve-consumer) waits for approval since 10m")
	assert.NotContains(t, check.Cause, "asks for it")
	assert.Nil(t, check.Repair)

	// The fix, as kubectl certificate approve makes it.
	approve(t, c, csr)
	csrs := c.Kube.CertificatesV1().CertificateSigningRequests()
	_, err := kube.WaitFor(ctx, kube.ListWatch(csrs.List, csrs.Watch, kube.ByName(csr.Name)), kube.CSRWaitWhat(csr.Name), kube.CSRSigned)
	require.NoError(t, err)
	passes(t, checkOf(t, diagnose(t, c, nil, later), "csrs", handshake.Local), "none stuck")
}

// askFor makes a Tenant of consumerID that asks for csr's request.
func askFor(t *testing.T, c *kube.Cluster, consumerID string, csr *certv1.CertificateSigningRequest) {
	t.Helper()
	_, err := c.Liqo.Tenants(c.Namespace).Create(labtest.Context(t), &authv1beta1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: consumerID},
		Spec:       authv1beta1.TenantSpec{ClusterID: consumerID, CSR: csr.Spec.Request},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// approve approves csr as kubectl certificate approve does.
func approve(t *testing.T, c *kube.Cluster, csr *certv1.CertificateSigningRequest) {
	t.Helper()
	csr.Status.Conditions = append(csr.Status.Conditions, certv1.CertificateSigningRequestCondition{
		Type: certv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "KubectlApprove", Message: "approved by the test"})
	_, err := c.Kube.CertificatesV1().CertificateSigningRequests().UpdateApproval(labtest.Context(t), csr.Name, csr, metav1.UpdateOptions{})
	require.NoError(t, err)
}

// A CSR approved 10 minutes ago that nothing signs (its signer, here one
// that no controller serves, as kubernetes.io/kube-apiserver-client is on
// a cluster without kube-controller-manager's csrsigning), while a Tenant
// waits for it: doctor deletes nothing and says who must act.
func TestCSRNotSigned(t *testing.T) {
	c := mainCluster(t, "dc-nosigner", false)
	const signer = "liqo-auth-tui.test/nobody"
	csr := createCSRFor(t, c, "dc-nosigner-consumer", signer)
	askFor(t, c, "dc-nosigner-consumer", csr)
	approve(t, c, csr)

	check := checkOf(t, diagnose(t, c, nil, time.Now().Add(10*time.Minute)), "csrs", handshake.Local)
	failedWith(t, check, "",
		"CSR "+csr.Name+" (consumer dc-nosigner-consumer) approved and not signed for 10m",
		"nothing signs "+signer+" CSRs on this cluster: its admin must run kube-controller-manager's csrsigning controller")
	assert.Nil(t, check.Repair)
}
