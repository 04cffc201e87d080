//go:build cluster

package cmd_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// decodeJSON parses stdout as exactly one JSON object.
func decodeJSON(t *testing.T, stdout string) map[string]any {
	t.Helper()
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &got), "stdout: %q", stdout)
	return got
}

// decodeYAML parses stdout as one YAML object.
func decodeYAML(t *testing.T, stdout string) map[string]any {
	t.Helper()
	var got map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(stdout), &got), "stdout: %q", stdout)
	return got
}

// authenticate, unauthenticate, --batch and verify print their result on
// stdout with -o json|yaml, one document a script parses, while the step
// lines stay on stderr; a failure is an object too ({"error", "hint"}),
// with the exit code of the failure.
func TestResultsOnStdout(t *testing.T) {
	provider, consumer := initSide(t, 0, "res-provider"), initSide(t, 1, "res-consumer")
	ctx := labtest.Context(t)
	remote := []string{"--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace}

	code, out, errOut := run(consumer.args(append([]string{"authenticate", "-o", "json"}, remote...)...)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "Nonce generated successfully", "step lines on stderr")
	assert.NotContains(t, out, "Nonce generated")
	got := decodeJSON(t, out)
	identity, err := adminOf(t, consumer).ControlPlaneIdentityFor(ctx, provider.id)
	require.NoError(t, err)
	tenant, err := adminOf(t, provider).TenantFor(ctx, kube.TenantNamespaceName(consumer.id), consumer.id)
	require.NoError(t, err)
	cert, err := authcrypto.ParseCertificatePEM(identity.Spec.AuthParams.SignedCRT)
	require.NoError(t, err)
	assert.Equal(t, "authenticated", got["action"])
	assert.Equal(t, consumer.id, got["consumerID"])
	assert.Equal(t, provider.id, got["providerID"])
	assert.Equal(t, tenant.Namespace+"/"+tenant.Name, got["tenant"])
	assert.Equal(t, identity.Namespace+"/"+identity.Name, got["identity"])
	assert.Equal(t, identity.Namespace+"/"+identity.Status.KubeconfigSecretRef.Name, got["kubeconfigSecret"])
	assert.Equal(t, cert.NotAfter.UTC().Format(time.RFC3339), got["certificateNotAfter"])
	assert.NotEmpty(t, got["consumerKeyFingerprint"])
	assert.NotEmpty(t, got["providerEngine"])
	assert.NotContains(t, out, "PRIVATE KEY")

	// verify: the last renewal, once the consumer's renewer recorded one.
	renewed := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	identities := adminOf(t, consumer).Liqo.Identities(identity.Namespace)
	annotated := identity.DeepCopy()
	if annotated.Annotations == nil {
		annotated.Annotations = map[string]string{}
	}
	annotated.Annotations[kube.LastRenewalAnnotation] = renewed.Format(time.RFC3339)
	_, err = identities.Update(ctx, annotated, metav1.UpdateOptions{})
	require.NoError(t, err)
	code, out, errOut = run(consumer.args("verify", "--remote-cluster-id", provider.id, "-o", "yaml")...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	got = decodeYAML(t, out)
	assert.Equal(t, renewed.Format(time.RFC3339), got["lastRenewal"])
	assert.Equal(t, cert.NotAfter.UTC().Format(time.RFC3339), got["certificateNotAfter"])
	assert.Equal(t, kube.TenantNamespaceName(consumer.id), got["tenantNamespace"])

	// verify failing: the error object on stdout, exit 1, the line on stderr.
	code, out, errOut = run(consumer.args("verify", "--remote-cluster-id", "res-unknown", "-o", "json")...)
	assert.Equal(t, cmd.ExitFailure, code, errOut)
	got = decodeJSON(t, out)
	assert.Contains(t, got["error"], "no kubeconfig Secret for provider res-unknown on this consumer")
	assert.NotContains(t, got["error"], "authenticate first", "the hint apart")
	assert.Contains(t, got["hint"], "authenticate first: `liqo-auth-tui authenticate --remote-kubeconfig")
	assert.Contains(t, errOut, "ERRO")
	// Without -o, nothing on stdout.
	code, out, _ = run(consumer.args("verify", "--remote-cluster-id", "res-unknown")...)
	assert.Equal(t, cmd.ExitFailure, code)
	assert.Empty(t, out)

	// unauthenticate: what it removed and what it kept; again, nothing
	// left to remove.
	code, out, errOut = run(consumer.args(append([]string{"unauthenticate", "-o", "yaml"}, remote...)...)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Contains(t, errOut, "Tenant correctly deleted")
	got = decodeYAML(t, out)
	assert.Equal(t, "unauthenticated", got["action"])
	assert.Equal(t, consumer.id, got["consumerID"])
	assert.Equal(t, provider.id, got["providerID"])
	assert.Equal(t, []any{
		"Identity " + identity.Namespace + "/" + identity.Name,
		"Secret " + identity.Namespace + "/" + identity.Status.KubeconfigSecretRef.Name,
		"Tenant " + tenant.Namespace + "/" + tenant.Name,
	}, got["removed"])
	assert.ElementsMatch(t, []any{"Namespace " + identity.Namespace, "Namespace " + tenant.Namespace}, got["kept"])
	code, out, errOut = run(consumer.args(append([]string{"unauthenticate", "-o", "json"}, remote...)...)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	assert.Equal(t, []any{}, decodeJSON(t, out)["removed"])

	// --batch with both kubeconfigs: the authenticate result.
	code, out, errOut = run(consumer.args(append([]string{"--batch", "-o", "json"}, remote...)...)...)
	require.Equal(t, cmd.ExitOK, code, errOut)
	got = decodeJSON(t, out)
	assert.Equal(t, "authenticated", got["action"])
	assert.Equal(t, provider.id, got["providerID"])

	// A failure before anything is done is an object too, with its exit
	// code; -o where stdout carries something else is refused.
	code, out, errOut = run(consumer.args("authenticate", "-o", "json")...)
	assert.Equal(t, cmd.ExitUsage, code, errOut)
	assert.Contains(t, decodeJSON(t, out)["error"], "the provider is missing: give its kubeconfig with --remote-kubeconfig")
	for _, args := range [][]string{
		consumer.args("--batch", "--role", "provider", "--remote-cluster-id", "x", "-o", "json"),
		consumer.args("-o", "json"),
		consumer.args("authenticate", "-o", "table"),
	} {
		code, out, errOut = run(args...)
		assert.Equal(t, cmd.ExitUsage, code, "%v: %s", args, errOut)
		assert.Empty(t, out, "%v", args)
		assert.Len(t, errorLines(errOut), 1, "%v: %s", args, errOut)
	}
}
