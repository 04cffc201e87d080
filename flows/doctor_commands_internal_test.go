package flows

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// A fix runs as printed: the placeholders of the kubeconfigs become the
// flags doctor was given, by the role each cluster plays.
func TestFixCommandsNameTheGivenKubeconfigs(t *testing.T) {
	both := DoctorOptions{Remote: &Cluster{}, LocalRef: &ClusterRef{Kubeconfig: "consumer.yaml"},
		RemoteRef: &ClusterRef{Kubeconfig: "my provider.yaml", Context: "prov"}}
	auth := "liqo-auth-tui authenticate --kubeconfig <consumer's kubeconfig> --remote-kubeconfig <provider's kubeconfig>"
	for _, tc := range []struct {
		name  string
		o     DoctorOptions
		role  handshake.Role
		scope handshake.Scope
		fix   string
		want  string
	}{
		{"consumer here, provider given", both, handshake.RoleConsumer, handshake.Remote, auth,
			"liqo-auth-tui authenticate --kubeconfig consumer.yaml --remote-kubeconfig 'my provider.yaml' --remote-context prov"},
		{"provider here: the consumer is the remote", DoctorOptions{Remote: &Cluster{}, LocalRef: &ClusterRef{Context: "p"},
			RemoteRef: &ClusterRef{Kubeconfig: "c.yaml"}}, handshake.RoleProvider, handshake.Local, auth,
			"liqo-auth-tui authenticate --kubeconfig c.yaml --remote-kubeconfig <provider's kubeconfig>"},
		{"the default kubeconfig needs no flag", DoctorOptions{LocalRef: &ClusterRef{}}, handshake.RoleProvider, handshake.Local,
			"liqo-auth-tui uncordon tenant x --kubeconfig <provider's kubeconfig>", "liqo-auth-tui uncordon tenant x"},
		{"no remote given: its placeholder stays", DoctorOptions{LocalRef: &ClusterRef{}}, handshake.RoleConsumer, handshake.Remote,
			"liqo-auth-tui activate tenant x --kubeconfig <provider's kubeconfig>", "liqo-auth-tui activate tenant x --kubeconfig <provider's kubeconfig>"},
		{"not told how the clusters were reached", DoctorOptions{}, handshake.RoleConsumer, handshake.Remote, auth, auth},
		{"a cluster check of the remote", both, handshake.RoleUnknown, handshake.Remote,
			"kubectl --kubeconfig <the remote cluster's kubeconfig> -n liqo rollout restart deployment/liqo-auth-controller",
			"kubectl --kubeconfig 'my provider.yaml' --context prov -n liqo rollout restart deployment/liqo-auth-controller"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.o.fillKubeconfigs(tc.fix, tc.role, tc.scope))
		})
	}
}
