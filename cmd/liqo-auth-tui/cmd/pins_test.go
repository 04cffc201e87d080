//go:build cluster

package cmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// infoPins are the fingerprints `info -o json` shows: what the other admin
// pins this cluster with.
func infoPins(t *testing.T, s side) (key, provider string) {
	t.Helper()
	code, out, errOut := run(s.args("info", "-o", "json")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	var v struct {
		KeyFingerprint      string `json:"keyFingerprint"`
		ProviderFingerprint string `json:"providerFingerprint"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	return v.KeyFingerprint, v.ProviderFingerprint
}

var printedPin = regexp.MustCompile(`--(consumer|provider)-fingerprint (SHA256:[A-Za-z0-9+/]{43})`)

// printedCode is the verification code a command printed for kind.
func printedCode(t *testing.T, kind, stderr string) string {
	t.Helper()
	m := regexp.MustCompile(`Verification code of the ` + kind + `: (\d{4}( \d{4}){4})`).FindStringSubmatch(stderr)
	require.NotNil(t, m, "no verification code of the %s in: %s", kind, stderr)
	return m[1]
}

// refusedAndNothingWritten runs a command that must be refused with one
// error line holding want, and checks that cluster i is unchanged.
func refusedAndNothingWritten(t *testing.T, i int, want []string, args ...string) {
	t.Helper()
	ctx := labtest.Context(t)
	before := objectListing(t, ctx, clusters(t)[i].Config)
	code, out, errOut := run(args...)
	assert.NotEqual(t, cmd.ExitOK, code, "stdout: %s", out)
	lines := errorLines(errOut)
	require.Len(t, lines, 1, errOut)
	for _, w := range want {
		assert.Contains(t, lines[0], w)
	}
	assert.Empty(t, listingDiff(before, objectListing(t, ctx, clusters(t)[i].Config)), "a refused artifact must write nothing")
}

// A Tenant from a third key pair claiming the consumer's ID is refused with
// the consumer's pin, nothing written; so is an Identity pointing the
// consumer at another API server and CA with the provider's pin. The real
// artifacts pass with the pins each side printed for the other.
func TestPinsRefuseSubstitutedArtifacts(t *testing.T) {
	provider, consumer := initSide(t, 0, "pin-provider"), initSide(t, 1, "pin-consumer")
	consumerKey, _ := infoPins(t, consumer)
	_, providerPin := infoPins(t, provider)
	require.NotEmpty(t, consumerKey)
	require.NotEmpty(t, providerPin, "info shows the provider's fingerprint")
	dir := t.TempDir()
	nonceFile, tenantFile, identityFile := filepath.Join(dir, "nonce.txt"), filepath.Join(dir, "tenant.yaml"), filepath.Join(dir, "identity.yaml")

	code, nonce, errOut := run(provider.args("create", "nonce", "--remote-cluster-id", consumer.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	require.NoError(t, os.WriteFile(nonceFile, []byte(nonce), 0o600))
	code, _, errOut = run(consumer.args("generate", "tenant", "--remote-cluster-id", provider.id, "--nonce-file", nonceFile, "--output-file", tenantFile)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	m := printedPin.FindStringSubmatch(errOut)
	require.NotNil(t, m, "the provider's next command pins the consumer's key: %s", errOut)
	assert.Equal(t, []string{"consumer", consumerKey}, m[1:], "the pin printed is the key `info` shows on the consumer")
	assert.Contains(t, errOut, "apply tenant -f "+tenantFile+" --consumer-fingerprint "+consumerKey)
	tenantCode := printedCode(t, "Tenant", errOut)

	tenantYAML, err := os.ReadFile(tenantFile)
	require.NoError(t, err)
	real, err := artifact.DecodeTenant(tenantYAML)
	require.NoError(t, err)
	forged := labtest.ForgeTenant(t, real, strings.TrimSpace(nonce))
	forgedKey, err := artifact.TenantFingerprint(forged)
	require.NoError(t, err)
	forgedFile := writeFile(t, dir, "forged-tenant.yaml", encode(t, forged))
	refusedAndNothingWritten(t, 0, []string{"this Tenant was signed by a different key than the consumer's: " + consumerKey + " expected, " + forgedKey +
		" received — do not apply it; ask the consumer's admin to send it again through another channel"},
		provider.args("apply", "tenant", "-f", forgedFile, "--consumer-fingerprint", consumerKey)...)
	refusedAndNothingWritten(t, 0, []string{"--consumer-fingerprint", "is not a fingerprint"},
		provider.args("apply", "tenant", "-f", tenantFile, "--consumer-fingerprint", "SHA256:short")...)

	code, _, errOut = run(provider.args("apply", "tenant", "-f", tenantFile, "--consumer-fingerprint", consumerKey)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "as pinned")
	assert.Equal(t, tenantCode, printedCode(t, "Tenant", errOut), "both admins read the same code")
	code, _, errOut = run(provider.args("generate", "identity", "--remote-cluster-id", consumer.id, "--output-file", identityFile)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	m = printedPin.FindStringSubmatch(errOut)
	require.NotNil(t, m, "the consumer's next command pins the provider: %s", errOut)
	assert.Equal(t, []string{"provider", providerPin}, m[1:], "the pin printed is the one `info` shows on the provider")
	identityCode := printedCode(t, "Identity", errOut)
	assert.NotEqual(t, tenantCode, identityCode)

	// The attacker reads the consumer's public key in the Tenant and has
	// their own CA issue it a certificate, for their own API server.
	identityYAML, err := os.ReadFile(identityFile)
	require.NoError(t, err)
	identity, err := artifact.DecodeIdentity(identityYAML)
	require.NoError(t, err)
	consumerPub, err := authcrypto.ParsePublicKey(real.Spec.PublicKey)
	require.NoError(t, err)
	ca := labtest.NewForgedCA(t)
	substituted := identity.DeepCopy()
	substituted.Spec.AuthParams.CA, substituted.Spec.AuthParams.APIServer = ca.PEM, "https://attacker.example:6443"
	substituted.Spec.AuthParams.SignedCRT = ca.Issue(t, consumerPub, consumer.id)
	forgedCA, err := artifact.IdentityCAFingerprint(substituted)
	require.NoError(t, err)
	substitutedFile := writeFile(t, dir, "forged-identity.yaml", encode(t, substituted))
	refusedAndNothingWritten(t, 1, []string{"this Identity carries a different CA than the provider's (API server https://attacker.example:6443): " + providerPin +
		" expected, " + forgedCA + " received — do not apply it; ask the provider's admin to send it again through another channel"},
		consumer.args("apply", "identity", "-f", substitutedFile, "--provider-fingerprint", providerPin)...)
	// --batch takes the same pin.
	refusedAndNothingWritten(t, 1, []string{"different CA than the provider's"},
		"--batch", "--role", "consumer", "--remote-cluster-id", provider.id, "--provider-fingerprint", providerPin, "--identity-file", substitutedFile,
		"--kubeconfig", consumer.kubeconfig, "--liqo-namespace", consumer.liqoNamespace)

	code, _, errOut = run(consumer.args("apply", "identity", "-f", identityFile, "--provider-fingerprint", providerPin)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Equal(t, identityCode, printedCode(t, "Identity", errOut), "both admins read the same code")
	// The code the consumer's side computes for the substituted Identity
	// (from its own cluster) is not the one the provider's admin reads.
	c, err := kube.Connect(kube.KubeconfigOptions{Path: consumer.kubeconfig, LiqoNamespace: consumer.liqoNamespace})
	require.NoError(t, err)
	substitutedCode, err := flows.ConsumerIdentityCode(labtest.Context(t), c, substituted)
	require.NoError(t, err)
	assert.NotEqual(t, identityCode, substitutedCode)
}

// Without a pin the tool accepts a forged Tenant, as Liqo does: the
// signature is checked against the key inside the Tenant itself. With the
// consumer's pin, --batch refuses it and writes nothing.
func TestForgedTenantAcceptedWithoutPinRefusedWithOne(t *testing.T) {
	provider, victim := initSide(t, 0, "pin-provider2"), initSide(t, 1, "pin-victim")
	victimKey, _ := infoPins(t, victim)
	dir := t.TempDir()
	nonceFile, tenantFile := filepath.Join(dir, "nonce.txt"), filepath.Join(dir, "tenant.yaml")
	code, nonce, errOut := run(provider.args("create", "nonce", "--remote-cluster-id", victim.id)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	require.NoError(t, os.WriteFile(nonceFile, []byte(nonce), 0o600))
	// The real Tenant only serves as the attacker's template.
	code, _, errOut = run(victim.args("generate", "tenant", "--remote-cluster-id", provider.id, "--nonce-file", nonceFile, "--output-file", tenantFile)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	victimCode := printedCode(t, "Tenant", errOut)
	tenantYAML, err := os.ReadFile(tenantFile)
	require.NoError(t, err)
	real, err := artifact.DecodeTenant(tenantYAML)
	require.NoError(t, err)
	forgedFile := writeFile(t, dir, "forged.yaml", encode(t, labtest.ForgeTenant(t, real, strings.TrimSpace(nonce))))

	refusedAndNothingWritten(t, 0, []string{"this Tenant was signed by a different key than the consumer's: " + victimKey + " expected"},
		"--batch", "--role", "provider", "--remote-cluster-id", victim.id, "--consumer-fingerprint", victimKey, "--tenant-file", forgedFile,
		"--kubeconfig", provider.kubeconfig, "--liqo-namespace", provider.liqoNamespace)

	code, _, errOut = run(provider.args("apply", "tenant", "-f", forgedFile)...)
	require.Equal(t, cmd.ExitOK, code, "without a pin the forged Tenant is accepted: %s", errOut)
	assert.Contains(t, errOut, "compare it with the consumer's admin")
	assert.NotEqual(t, victimCode, printedCode(t, "Tenant", errOut), "the forged Tenant's code is not the one the consumer's admin reads")
}
