package cmd_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
)

// A pin that would be ignored is a usage error, before any cluster is
// dialed (the kubeconfig here does not exist).
func TestPinsThatWouldBeIgnoredAreRefused(t *testing.T) {
	const pin = "SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU"
	none := []string{"--kubeconfig", "/nonexistent/kubeconfig"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--consumer-fingerprint", pin}, "the wizard asks both admins to compare a verification code instead"},
		{[]string{"--batch", "--remote-kubeconfig", "/nonexistent/remote", "--provider-fingerprint", pin}, "with --remote-kubeconfig nothing is handed over"},
		{[]string{"--batch", "--role", "provider", "--remote-cluster-id", "c1", "--provider-fingerprint", pin}, "the provider pins the consumer's key with --consumer-fingerprint"},
		{[]string{"--batch", "--role", "consumer", "--remote-cluster-id", "p1", "--consumer-fingerprint", pin}, "the consumer pins the provider with --provider-fingerprint"},
		{[]string{"apply", "tenant", "-f", "/nonexistent/tenant.yaml", "--consumer-fingerprint", "SHA256:short"}, "--consumer-fingerprint \"SHA256:short\" is not a fingerprint"},
		{[]string{"apply", "identity", "-f", "/nonexistent/identity.yaml", "--provider-fingerprint", "MD5:x"}, "--provider-fingerprint \"MD5:x\" is not a fingerprint"},
		{[]string{"--batch", "--role", "provider", "--remote-cluster-id", "c1", "--consumer-fingerprint", "nope"}, "give SHA256: and the 43 characters"},
	} {
		code, out, errOut := run(append(c.args, none...)...)
		assert.Equal(t, cmd.ExitUsage, code, "%v: %s", c.args, errOut)
		assert.Contains(t, errOut, c.want, c.args)
		assert.Empty(t, out)
	}
}
