package doctor

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// A fix runs as printed: the placeholders of the kubeconfigs become the
// flags doctor was given, by the role each cluster plays.
func TestFixCommandsNameTheGivenKubeconfigs(t *testing.T) {
	both := Options{Remote: &kube.Cluster{}, LocalRef: &flows.ClusterRef{Kubeconfig: "consumer.yaml"},
		RemoteRef: &flows.ClusterRef{Kubeconfig: "my provider.yaml", Context: "prov"}}
	auth := "liqo-auth-tui authenticate --kubeconfig <consumer's kubeconfig> --remote-kubeconfig <provider's kubeconfig>"
	for _, tc := range []struct {
		name  string
		o     Options
		role  handshake.Role
		scope handshake.Scope
		fix   string
		want  string
	}{
		{"consumer here, provider given", both, handshake.RoleConsumer, handshake.Remote, auth,
			"liqo-auth-tui authenticate --kubeconfig consumer.yaml --remote-kubeconfig 'my provider.yaml' --remote-context prov"},
		{"provider here: the consumer is the remote", Options{Remote: &kube.Cluster{}, LocalRef: &flows.ClusterRef{Context: "p"},
			RemoteRef: &flows.ClusterRef{Kubeconfig: "c.yaml"}}, handshake.RoleProvider, handshake.Local, auth,
			"liqo-auth-tui authenticate --kubeconfig c.yaml --remote-kubeconfig <provider's kubeconfig>"},
		{"the default kubeconfig needs no flag", Options{LocalRef: &flows.ClusterRef{}}, handshake.RoleProvider, handshake.Local,
			"liqo-auth-tui uncordon tenant x --kubeconfig <provider's kubeconfig>", "liqo-auth-tui uncordon tenant x"},
		{"no remote given: its placeholder stays", Options{LocalRef: &flows.ClusterRef{}}, handshake.RoleConsumer, handshake.Remote,
			"liqo-auth-tui activate tenant x --kubeconfig <provider's kubeconfig>", "liqo-auth-tui activate tenant x --kubeconfig <provider's kubeconfig>"},
		{"not told how the clusters were reached", Options{}, handshake.RoleConsumer, handshake.Remote, auth, auth},
		{"a cluster check of the remote", both, handshake.RoleUnknown, handshake.Remote,
			"kubectl --kubeconfig <the remote cluster's kubeconfig> -n liqo rollout restart deployment/liqo-auth-controller",
			"kubectl --kubeconfig 'my provider.yaml' --context prov -n liqo rollout restart deployment/liqo-auth-controller"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.o.fillKubeconfigs(tc.fix, tc.role, tc.scope))
		})
	}
}
