//go:build cluster

package liqo0xlab_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
	kliqo0x "github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// After this tool got an identity from a real Liqo 0.x provider, this
// tool's v1 replicator, running on the consumer, does not take that
// identity for a v1 one: a ResourceSlice labelled for the 0.x provider is
// told there is no control-plane kubeconfig for it (nothing reaches the 0.x
// API server). And the belt: a Secret that does look like a v1 one but
// leads to the 0.x API server is ignored once discovery shows neither
// ResourceSlices nor Renews there, without retrying.
func TestLiqo0xIdentityOutsideV1Replicator(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startToolPair(t, ctx)
	res, _ := authenticateTimed(t, ctx, p.consumer, p.provider, "this tool as the consumer")
	require.True(t, res.ByTool)
	secret, err := kliqo0x.On(p.consumer).KubeconfigSecret(ctx, providerID)
	require.NoError(t, err)
	assert.NotContains(t, secret.Labels, kube.IdentityTypeLabel)

	liqotest.RunOurManager(t, ctx, p.consumer, controller.Options{Consumer: true})
	ns := secret.Namespace
	slice := replicatedSlice(t, ctx, p.consumer, ns, "liqo0x-apart", providerID)
	ev := waitWarning(t, ctx, p.consumer, ns, slice, controller.ReasonKubeconfigNotFound)
	assert.Contains(t, ev.Message, providerID)

	// The belt: the same 0.x kubeconfig in a Secret marked as a v1 one.
	const disguised = "liqo0x-disguised"
	v1Like := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "kubeconfig-controlplane-" + disguised, Namespace: ns,
		Labels:      map[string]string{kube.RemoteClusterIDLabel: disguised, kube.IdentityTypeLabel: string(authv1beta1.ControlPlaneIdentityType)},
		Annotations: map[string]string{kube.RemoteTenantNamespace: secret.Annotations[kube.RemoteTenantNamespace]}},
		Data: map[string][]byte{kube.KubeconfigField: withCA(t, secret.Data[kube.KubeconfigField], p.provider.Config.CAData)}}
	_, err = p.consumer.Kube.CoreV1().Secrets(ns).Create(ctx, v1Like, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = p.consumer.Kube.CoreV1().Secrets(ns).Delete(context.Background(), v1Like.Name, metav1.DeleteOptions{})
	})
	other := replicatedSlice(t, ctx, p.consumer, ns, "liqo0x-disguised", disguised)
	ev = waitWarning(t, ctx, p.consumer, ns, other, controller.ReasonReplicationFailed)
	assert.Contains(t, ev.Message, "serves no resourceslices")
}

// A request resumed from the certificate the provider stored (the answer
// was lost), with an admin kubeconfig of the provider that names another
// server spelling and a certificate-authority FILE: the stored kubeconfig
// holds the API server and CA the auth server answered.
func TestLiqo0xResumedRequestUsesAnswer(t *testing.T) {
	ctx := liqo0xContext(t)
	p := startToolPair(t, ctx)
	// The chart's Deployment of the auth server running for this lab (the
	// process is its pod): the flag says what it answers.
	deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: kube.Liqo0xAuthName, Namespace: realliqo0x.Namespace},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"run": "auth-service"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"run": "auth-service"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "auth-service", Image: "liqo/auth-service:" + realliqo0x.LiqoVersion,
					Args: []string{"--cluster-id=" + providerID, "--advertise-api-server-address=" + p.provider.Config.Host}}}}}}}
	_, err := p.provider.Kube.AppsV1().Deployments(realliqo0x.Namespace).Create(ctx, deploy, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = p.provider.Kube.AppsV1().Deployments(realliqo0x.Namespace).Delete(context.Background(), deploy.Name, metav1.DeleteOptions{})
	})

	info, lost := loseAnswer(t, ctx, p)
	require.NotEmpty(t, lost.APIServerCA)

	// The admin's kubeconfig: localhost, and the CA in a file.
	admin := adminWithCAFile(t, p.provider)
	require.NotEqual(t, lost.APIServerURL, admin.Config.Host)
	o := liqo0xOptions()
	o.Provider = admin
	rec := &recorder{}
	res, err := liqo0x.ApplyPeerInfo(ctx, p.consumer, info, o, rec.sink)
	require.NoError(t, err)
	assert.True(t, rec.has("completing with it"), "%q", rec.texts())
	stored, err := kliqo0x.On(p.consumer).KubeconfigSecret(ctx, providerID)
	require.NoError(t, err)
	cfg, err := clientcmd.Load(stored.Data[kube.KubeconfigField])
	require.NoError(t, err)
	cluster := cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster]
	assert.Equal(t, lost.APIServerURL, cluster.Server, "the server the auth server answered, not the admin's")
	assert.Equal(t, strings.TrimSpace(string(lost.APIServerCA)), strings.TrimSpace(string(cluster.CertificateAuthorityData)), "the CA the auth server answered")
	restCfg, err := clientcmd.RESTConfigFromKubeConfig(res.Kubeconfig)
	require.NoError(t, err)
	user, _ := realliqo0x.WhoAmI(t, ctx, restCfg)
	assert.Equal(t, p.consumerID, user, "the stored kubeconfig reaches the provider with its own CA")
}

// loseAnswer sends the consumer's pending CSR as an earlier run did, whose
// answer (returned) was lost.
func loseAnswer(t *testing.T, ctx context.Context, p *toolPair) (*peerinfo.Info, *kliqo0x.IdentityResponse) {
	t.Helper()
	info, err := liqo0x.GeneratePeerInfo(ctx, p.provider, "", nil)
	require.NoError(t, err)
	_, csrPEM, err := kliqo0x.On(p.consumer).PendingRequest(ctx, providerID, p.consumerID)
	require.NoError(t, err)
	client, err := kliqo0x.NewAuthClient(kliqo0x.AuthOptions{URL: info.AuthURL, InsecureSkipTLSVerify: true})
	require.NoError(t, err)
	lost, err := client.RequestIdentity(ctx, kliqo0x.IdentityRequest{ConsumerID: p.consumerID,
		ConsumerName: liqo0x.DefaultClusterName(p.consumerID), Token: info.Token, CSR: csrPEM})
	require.NoError(t, err)
	return info, lost
}

// adminWithCAFile is the provider's admin as a kubeconfig naming the API
// server by localhost and its CA by a certificate-authority file.
func adminWithCAFile(t *testing.T, provider *kube.Cluster) *kube.Cluster {
	t.Helper()
	dir := t.TempDir()
	caPath := filepath.Join(dir, "ca.crt")
	require.NoError(t, os.WriteFile(caPath, provider.Config.CAData, 0o600))
	kc := clientcmdapi.NewConfig()
	kc.Clusters["p"] = &clientcmdapi.Cluster{Server: strings.Replace(provider.Config.Host, "127.0.0.1", "localhost", 1), CertificateAuthority: caPath}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: provider.Config.CertData, ClientKeyData: provider.Config.KeyData, Token: provider.Config.BearerToken}
	kc.Contexts["p"] = &clientcmdapi.Context{Cluster: "p", AuthInfo: "admin"}
	kc.CurrentContext = "p"
	path := filepath.Join(dir, "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, path))
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	require.NoError(t, err)
	require.Empty(t, cfg.CAData)
	c, err := kube.NewCluster(cfg, realliqo0x.Namespace)
	require.NoError(t, err)
	return c
}

// withCA gives a kubeconfig the CA it lacks.
func withCA(t *testing.T, kubeconfig, ca []byte) []byte {
	t.Helper()
	cfg, err := clientcmd.Load(kubeconfig)
	require.NoError(t, err)
	for _, c := range cfg.Clusters {
		if len(c.CertificateAuthorityData) == 0 {
			c.CertificateAuthorityData = ca
		}
	}
	out, err := clientcmd.Write(*cfg)
	require.NoError(t, err)
	return out
}

// replicatedSlice creates a ResourceSlice labelled for replication to provider.
func replicatedSlice(t *testing.T, ctx context.Context, c *kube.Cluster, ns, name, provider string) *authv1beta1.ResourceSlice {
	t.Helper()
	s := &authv1beta1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{
		kube.ReplicationLabel: "true", kube.RemoteIDLabel: provider, kube.RemoteClusterIDLabel: provider}},
		Spec: authv1beta1.ResourceSliceSpec{Class: "liqo0x-apart"}}
	created, err := c.Liqo.ResourceSlices(ns).Create(ctx, s, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Liqo.ResourceSlices(ns).Delete(context.Background(), name, metav1.DeleteOptions{}) })
	return created
}

// waitWarning watches the Events of obj until a Warning with reason comes.
func waitWarning(t *testing.T, ctx context.Context, c *kube.Cluster, ns string, obj metav1.Object, reason string) *corev1.Event {
	t.Helper()
	sel := fields.Set{"involvedObject.name": obj.GetName(), "reason": reason, "type": corev1.EventTypeWarning}.AsSelector().String()
	events := c.Kube.CoreV1().Events(ns)
	lw := &cache.ListWatch{
		ListFunc: func(o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = sel
			return events.List(ctx, o)
		},
		WatchFunc: func(o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = sel
			return events.Watch(ctx, o)
		},
	}
	last, err := watchtools.UntilWithSync(ctx, lw, &corev1.Event{}, nil, func(e watch.Event) (bool, error) {
		return e.Type == watch.Added || e.Type == watch.Modified, nil
	})
	require.NoError(t, err, "no %s Warning on %s/%s", reason, ns, obj.GetName())
	return last.Object.(*corev1.Event)
}
