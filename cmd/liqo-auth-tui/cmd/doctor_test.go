//go:build cluster

package cmd_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/doctor"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// doctor on a Liqo namespace never initialised prints ✗ lines with their
// cause and fix and exits 1; -o json reads back as the checks; the fix
// printed (init) turns the line into ✓.
func TestDoctorCommand(t *testing.T) {
	s := side{kubeconfig: clusters(t)[0].KubeconfigPath, liqoNamespace: "liqo-doctor-cmd", id: "doctor-cmd"}
	code, out, errOut := run(s.args("doctor")...)
	assert.Equal(t, cmd.ExitFailure, code, errOut)
	assert.Contains(t, errOut, "checks failed")
	assert.Contains(t, out, "Cluster -\n  ✗ cluster ID\n"+
		"      cause: no ConfigMap labelled app.kubernetes.io/name=clusterid-configmap in namespace liqo-doctor-cmd: this cluster has no ID (`init` was not run, or not with this Liqo namespace)\n"+
		"      fix:   liqo-auth-tui init --liqo-namespace liqo-doctor-cmd\n")
	assert.Contains(t, out, "  ✗ controller\n      cause: no controller serves this cluster")

	code, out, errOut = run(s.args("doctor", "-o", "json")...)
	assert.Equal(t, cmd.ExitFailure, code, errOut)
	var d doctor.Diagnosis
	require.NoError(t, json.Unmarshal([]byte(out), &d), out)
	byID := map[string]doctor.Check{}
	for _, c := range d.Checks {
		byID[c.ID] = c
	}
	for _, id := range []string{"cluster-id", "cluster-keys", "crds", "controller-running", "csrs"} {
		assert.Contains(t, byID, id, out)
	}
	assert.False(t, byID["cluster-id"].OK)
	assert.Equal(t, "liqo-auth-tui init --liqo-namespace liqo-doctor-cmd", byID["cluster-id"].Fix)
	var raw map[string][]map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &raw))
	for _, key := range []string{"id", "title", "ok", "cause", "fix", "scope"} {
		assert.Contains(t, raw["checks"][0], key)
	}

	code, _, errOut = run(s.args("init", "--cluster-id", s.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	code, out, _ = run(s.args("doctor")...)
	assert.Equal(t, cmd.ExitFailure, code, "no controller runs")
	assert.Contains(t, out, "Cluster doctor-cmd\n  ✓ cluster ID: doctor-cmd (ConfigMap liqo-clusterid-configmap)\n  ✓ cluster key pair: Ed25519, SHA256:")
}

// doctor --fix --yes shows the plan that removes a denied CSR, applies it
// and checks again.
func TestDoctorFixRemovesStaleCSR(t *testing.T) {
	s := initSide(t, 0, "doctor-fix")
	c := adminOf(t, s)
	ctx := labtest.Context(t)
	key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	require.NoError(t, err)
	req, err := authcrypto.NewCSR(key, "doctor-fix-consumer")
	require.NoError(t, err)
	csrs := c.Kube.CertificatesV1().CertificateSigningRequests()
	csr, err := csrs.Create(ctx, &certv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "doctor-fix-", Labels: map[string]string{kube.RemoteTenantCSRLabel: "true"}},
		Spec: certv1.CertificateSigningRequestSpec{Request: req, SignerName: kube.KubeAPIServerClientSignerName,
			Usages: []certv1.KeyUsage{certv1.UsageClientAuth}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = csrs.Delete(context.Background(), csr.Name, metav1.DeleteOptions{}) })
	csr.Status.Conditions = append(csr.Status.Conditions, certv1.CertificateSigningRequestCondition{
		Type: certv1.CertificateDenied, Status: corev1.ConditionTrue, Reason: "NotThisOne"})
	_, err = csrs.UpdateApproval(ctx, csr.Name, csr, metav1.UpdateOptions{})
	require.NoError(t, err)

	// Without a terminal and without --yes, --fix refuses: nothing changes.
	code, out, errOut := run(s.args("doctor", "--fix")...)
	assert.Equal(t, cmd.ExitUsage, code, errOut)
	assert.Contains(t, errOut, "not a terminal: nothing changed; run again with --yes")
	assert.Contains(t, out, "(doctor --fix can do this)")
	_, err = csrs.Get(ctx, csr.Name, metav1.GetOptions{})
	require.NoError(t, err, "the CSR is still there after the refused fix")
	// A remote it cannot reach: one line, and no fix applied here either.
	code, _, errOut = run(s.args("doctor", "--fix", "--yes", "--remote-kubeconfig", "/nonexistent/provider.yaml")...)
	assert.Equal(t, cmd.ExitFailure, code, errOut)
	assert.Equal(t, 1, strings.Count(strings.TrimSpace(errOut), "\n")+1, errOut)
	assert.Contains(t, errOut, "(remote)")
	_, err = csrs.Get(ctx, csr.Name, metav1.GetOptions{})
	require.NoError(t, err, "the CSR is still there after doctor failed to reach the remote")

	_, out, errOut = run(s.args("doctor", "--fix", "--yes")...)
	assert.Contains(t, out, "  ✗ CSRs\n      cause: CSR "+csr.Name+" (consumer doctor-fix-consumer) was denied (NotThisOne)")
	assert.Contains(t, out, "Fix \"CSRs\":\n  delete CertificateSigningRequest "+csr.Name+" (consumer doctor-fix-consumer; denied)\n")
	assert.Contains(t, errOut, "fixed: CSRs")
	assert.Contains(t, out, "\nAfter the fixes:\n")
	_, err = csrs.Get(ctx, csr.Name, metav1.GetOptions{})
	assert.True(t, kube.IsNotFound(err), "the denied CSR was deleted: %v", err)
}
