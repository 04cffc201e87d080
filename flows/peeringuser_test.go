//go:build cluster

package flows_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// peeringUserKubeconfig is what a peering user's kubeconfig holds: where it
// reaches the provider, with which CA, and the user's key.
type peeringUserKubeconfig struct {
	server string
	ca     []byte
	key    string // authcrypto.KeyAlgorithm of the key
	notes  []string
	raw    []byte
}

func generatePeeringUser(t *testing.T, ctx context.Context, provider *kube.Cluster, consumerID string, o flows.PeeringUserOptions) peeringUserKubeconfig {
	t.Helper()
	var got peeringUserKubeconfig
	user, err := flows.GeneratePeeringUser(ctx, provider, consumerID, o, func(ev handshake.Event) {
		if ev.Kind == handshake.Note {
			got.notes = append(got.notes, ev.Message)
		}
	})
	require.NoError(t, err)
	cfg, err := clientcmd.Load(user.Kubeconfig)
	require.NoError(t, err)
	cluster := cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster]
	got.server, got.ca, got.raw = cluster.Server, cluster.CertificateAuthorityData, user.Kubeconfig
	key, err := authcrypto.ParsePrivateKeyPEM(cfg.AuthInfos[cfg.Contexts[cfg.CurrentContext].AuthInfo].ClientKeyData)
	require.NoError(t, err)
	got.key = authcrypto.KeyAlgorithm(key.Public())
	assert.Equal(t, got.server, user.APIServer)
	return got
}

// authenticates waits until the kubeconfig is let in as a user allowed to
// read its tenant namespace (RBAC reaches the authorizer a moment after it
// is written).
func (k peeringUserKubeconfig) authenticates(t *testing.T, ctx context.Context, liqoNamespace, consumerID string) {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(k.raw)
	require.NoError(t, err)
	c, err := kube.NewCluster(cfg, liqoNamespace)
	require.NoError(t, err)
	ns := kube.TenantNamespaceName(consumerID)
	read := []kube.Access{{Verb: "get", Resource: "namespaces", Name: ns, Namespace: ns}}
	require.Eventually(t, func() bool { return c.CheckAccess(ctx, read) == nil }, 10*time.Second, 50*time.Millisecond)
}

// The peering user's kubeconfig reaches the provider where the consumer's
// Identity does (§6.4), not at the admin kubeconfig's server: the in-cluster
// controller's flags, else a control-plane Node on 6443, and what was set
// for that consumer on its Tenant; an override given for the kubeconfig
// wins. A lab's Nodes are not real, so the Node case only checks the
// address, as the Identity tests do; the flag case points at the lab's API
// server by another name, and the kubeconfig authenticates there.
func TestPeeringUserReachesTheProviderLikeAnIdentity(t *testing.T) {
	provider, consumer := pair(t, "pur-provider", "pur-consumer")
	ctx := labtest.Context(t)
	consumerID := "pur-consumer"

	inProcess := generatePeeringUser(t, ctx, provider, consumerID, flows.PeeringUserOptions{})
	assert.Equal(t, strings.TrimSuffix(provider.Server, "/"), inProcess.server, "no controller in a Pod: the kubeconfig's server")
	assert.Equal(t, provider.Config.CAData, inProcess.ca)
	assert.Contains(t, inProcess.notes, "The kubeconfig reaches the provider at "+inProcess.server+" (the server of this provider's kubeconfig)")

	// The in-cluster controller, in a Pod.
	holdControllerLease(t, ctx, provider, time.Now(), 600)
	deployments := provider.Kube.AppsV1().Deployments(provider.Namespace)
	_, err := deployments.Create(ctx, labtest.Deployment(kube.ControllerLeaseName, "controller"), metav1.CreateOptions{})
	require.NoError(t, err)
	labtest.CreateNode(t, t, provider.Kube, "pur-control-plane", map[string]string{"node-role.kubernetes.io/control-plane": ""},
		corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "192.0.2.10"})
	identity, err := flows.AdvertisedTo(ctx, provider, consumerID, flows.EngineOptions{})
	require.NoError(t, err)
	require.Equal(t, "https://192.0.2.10:6443", identity.APIServer)
	node := generatePeeringUser(t, ctx, provider, consumerID, flows.PeeringUserOptions{})
	assert.Equal(t, identity.APIServer, node.server)
	assert.Equal(t, identity.CA, node.ca)
	assert.Contains(t, node.notes, "The kubeconfig reaches the provider at https://192.0.2.10:6443 (a control-plane node's address, as Liqo advertises it)")

	// The controller's --api-server-address-override: the lab's API
	// server as localhost (in its certificate) instead of 127.0.0.1.
	u, err := url.Parse(provider.Server)
	require.NoError(t, err)
	localhost := "https://localhost:" + u.Port()
	require.NotEqual(t, strings.TrimSuffix(provider.Server, "/"), localhost)
	_, err = deployments.Update(ctx, labtest.Deployment(kube.ControllerLeaseName, "controller", "--api-server-address-override="+localhost), metav1.UpdateOptions{})
	require.NoError(t, err)
	flag := generatePeeringUser(t, ctx, provider, consumerID, flows.PeeringUserOptions{})
	assert.Equal(t, localhost, flag.server)
	assert.Contains(t, flag.notes, "The kubeconfig reaches the provider at "+localhost+" (the flags of the controller serving the provider)")
	flag.authenticates(t, ctx, provider.Namespace, consumerID)

	over := generatePeeringUser(t, ctx, provider, consumerID, flows.PeeringUserOptions{APIServerOverride: "kubeconfig.example", TrustedCA: true})
	assert.Equal(t, "https://kubeconfig.example", over.server)
	assert.Empty(t, over.ca, "publicly trusted: no CA")

	// What was set on a consumer's Tenant (another pair: a handshake with
	// in-process controllers).
	provider, consumer = pair(t, "purt-provider", "purt-consumer")
	_, err = flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: consumer, Provider: provider,
		Engine: flows.EngineOptions{APIServerOverride: "tenant.example:6443"}}, handshake.Discard)
	require.NoError(t, err)
	edited := generatePeeringUser(t, ctx, provider, "purt-consumer", flows.PeeringUserOptions{})
	assert.Equal(t, "https://tenant.example:6443", edited.server)
	assert.Equal(t, "https://192.0.2.10:6443", generatePeeringUser(t, ctx, provider, "purt-other", flows.PeeringUserOptions{}).server,
		"another consumer: the provider's default, its control-plane Node (the in-process controllers follow Liqo's rule too)")
}

// The user's key follows Liqo's TLS compatibility mode as liqoctl's auto
// does: RSA-2048 when Liqo's controller-manager runs with
// --tls-compatibility-mode, Ed25519 (Liqo's default) otherwise; without
// that Deployment, the cluster key `init --key-type` made. An explicit key
// type wins. An RSA user authenticates like an Ed25519 one.
func TestPeeringUserKeyFollowsTLSCompatibilityMode(t *testing.T) {
	provider, _ := pair(t, "puk-provider", "puk-consumer")
	ctx := labtest.Context(t)
	const consumerID = "puk-consumer"

	def := generatePeeringUser(t, ctx, provider, consumerID, flows.PeeringUserOptions{})
	assert.Equal(t, "Ed25519", def.key)
	assert.Contains(t, def.notes, "The user's key is Ed25519 (Liqo's default)")

	deployments := provider.Kube.AppsV1().Deployments(provider.Namespace)
	liqo := func(args ...string) {
		d := labtest.Deployment("liqo-controller-manager", "controller-manager", args...)
		if _, err := deployments.Update(ctx, d, metav1.UpdateOptions{}); kube.IsNotFound(err) {
			_, err = deployments.Create(ctx, d, metav1.CreateOptions{})
			require.NoError(t, err)
		} else {
			require.NoError(t, err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tls-compatibility-mode=true"}, "RSA-2048"}, // what Liqo's chart writes
		{[]string{"--cluster-id=x", "--tls-compatibility-mode"}, "RSA-2048"},
		{[]string{"--tls-compatibility-mode=false"}, "Ed25519"},
		{[]string{"--cluster-id=x"}, "Ed25519"},
	} {
		liqo(c.args...)
		got := generatePeeringUser(t, ctx, provider, consumerID, flows.PeeringUserOptions{})
		assert.Equal(t, c.want, got.key, "%v", c.args)
		if c.want == "RSA-2048" {
			assert.Contains(t, got.notes, "The user's key is RSA-2048 (Liqo's controller-manager runs in TLS compatibility mode)")
			got.authenticates(t, ctx, provider.Namespace, consumerID)
		}
	}
	liqo("--tls-compatibility-mode=true")
	asked := generatePeeringUser(t, ctx, provider, consumerID, flows.PeeringUserOptions{KeyType: authcrypto.KeyEd25519})
	assert.Equal(t, "Ed25519", asked.key)
	assert.Contains(t, asked.notes, "The user's key is Ed25519 (as asked)")

	// No Liqo Deployment: the cluster key says (init --key-type rsa).
	rsaProvider, err := kube.NewCluster(provider.Config, "liqo-puk-rsa")
	require.NoError(t, err)
	_, err = rsaProvider.Init(ctx, kube.InitOptions{ClusterID: "puk-rsa", KeyType: authcrypto.KeyRSA})
	require.NoError(t, err)
	fromKey := generatePeeringUser(t, ctx, rsaProvider, "puk-rsa-consumer", flows.PeeringUserOptions{})
	assert.Equal(t, "RSA-2048", fromKey.key)
	assert.Contains(t, fromKey.notes, "The user's key is RSA-2048 (the cluster key is RSA: TLS compatibility mode)")
}
