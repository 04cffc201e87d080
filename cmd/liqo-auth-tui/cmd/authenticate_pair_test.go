//go:build cluster

package cmd_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
)

// Without a terminal, authenticate and --batch name the consumer and the
// provider on their first line, before anything is written: swapped
// kubeconfigs show as the provider being the consumer. (In a terminal the
// admin is asked too: e2e_authenticate_test.go.)
func TestAuthenticateNamesThePairFirst(t *testing.T) {
	provider, consumer := initSide(t, 0, "pair-provider"), initSide(t, 1, "pair-consumer")
	toConsumer := []string{"--remote-kubeconfig", consumer.kubeconfig, "--remote-liqo-namespace", consumer.liqoNamespace}
	toProvider := []string{"--remote-kubeconfig", provider.kubeconfig, "--remote-liqo-namespace", provider.liqoNamespace}
	for _, tc := range []struct {
		name                 string
		args                 []string
		consumerID, provider string
	}{
		{"swapped", provider.args(append([]string{"authenticate"}, toConsumer...)...), provider.id, consumer.id},
		{"right", consumer.args(append([]string{"authenticate"}, toProvider...)...), consumer.id, provider.id},
		{"batch", consumer.args(append([]string{"--batch"}, toProvider...)...), consumer.id, provider.id},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := run(tc.args...)
			require.Equal(t, cmd.ExitOK, code, errOut)
			first, _, _ := strings.Cut(errOut, "\n")
			assert.Regexp(t, `^ INFO +consumer = `+tc.consumerID+` \(context \S+\), provider = `+tc.provider+` \(context \S+\)$`, first)
			assert.Contains(t, errOut, "Consumer "+tc.consumerID+" is authenticated with provider "+tc.provider)
		})
	}
}
