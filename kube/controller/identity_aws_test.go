//go:build cluster

package controller

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// lockedBuffer is a log sink written from the workers' goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) write(prefix, args string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.WriteString(prefix + " " + args + "\n")
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// An EKS Identity's kubeconfig Secret carries, as Liqo's, the five AWS keys
// Liqo's components on the consumer need (and no certificate in the
// kubeconfig); rotated access keys are rewritten in place. The access key
// ID and secret never reach the logs nor the Events. Up to -v=7: from 8 on,
// client-go logs request and response bodies, Identities and Secrets whole.
func TestIdentityAWSKubeconfigSecret(t *testing.T) {
	c := consumerCluster(t)
	m, err := New(c, Options{Consumer: true})
	require.NoError(t, err)
	var logs lockedBuffer
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), funcr.New(logs.write, funcr.Options{Verbosity: 7})))
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })
	select {
	case <-m.Synced():
	case <-time.After(30 * time.Second):
		t.Fatal("manager caches did not sync")
	}

	tctx := labtest.Context(t)
	const provider = "eks-provider"
	ns, _, err := c.EnsureTenantNamespace(tctx, provider)
	require.NoError(t, err)
	aws := &authv1beta1.AWSConfig{AWSUserArn: "arn:aws:iam::123456789012:user/liqo-consumer", AWSAccessKeyID: "AKIAUNIQUEKEYID00001",
		AWSSecretAccessKey: "unique-secret-access-key-0001", AWSRegion: "eu-west-1", AWSClusterName: "prod-eks"}
	id := &authv1beta1.Identity{
		ObjectMeta: metav1.ObjectMeta{Name: kube.ControlPlaneIdentityName(provider), Namespace: ns.Name,
			Labels: map[string]string{kube.RemoteClusterIDLabel: provider}},
		Spec: authv1beta1.IdentitySpec{ClusterID: provider, Type: authv1beta1.ControlPlaneIdentityType, Namespace: "liqo-tenant-me",
			AuthParams: authv1beta1.AuthParams{APIServer: "https://eks.example", CA: []byte("base64-of-the-eks-ca"), AWSConfig: aws}},
	}
	_, _, err = c.ApplyIdentity(tctx, id)
	require.NoError(t, err)
	name := kube.KubeconfigSecretName(id.Name)
	secret := waitSecret(t, c, ns.Name, name, func(*corev1.Secret) bool { return true })
	_, keyPEM, err := c.PrivateKey(tctx)
	require.NoError(t, err)
	kubeconfig, err := kube.Kubeconfig(id, keyPEM)
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{kube.KubeconfigField: kubeconfig,
		"awsAccessKeyID": []byte(aws.AWSAccessKeyID), "awsSecretAccessKey": []byte(aws.AWSSecretAccessKey), "awsRegion": []byte("eu-west-1"),
		"awsEksClusterID": []byte("prod-eks"), "awsIamUserArn": []byte(aws.AWSUserArn)}, secret.Data)
	assert.NotContains(t, string(kubeconfig), "client-certificate-data")

	rotated := id.DeepCopy()
	rotated.Spec.AuthParams.AWSConfig.AWSAccessKeyID, rotated.Spec.AuthParams.AWSConfig.AWSSecretAccessKey = "AKIAUNIQUEKEYID00002", "unique-secret-access-key-0002"
	_, _, err = c.ApplyIdentity(tctx, rotated)
	require.NoError(t, err)
	updated := waitSecret(t, c, ns.Name, name, func(s *corev1.Secret) bool { return kube.KubeconfigCurrent(s, rotated) })
	assert.Equal(t, secret.UID, updated.UID, "updated in place")
	assert.Equal(t, "unique-secret-access-key-0002", string(updated.Data[kube.AWSSecretAccessKeyField]))

	events, err := c.Kube.CoreV1().Events(ns.Name).List(tctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, events.Items)
	out := logs.String()
	require.Contains(t, out, name, "the reconciler logged the Secret")
	for _, e := range events.Items {
		out += e.Reason + " " + e.Message + "\n"
	}
	for _, v := range []string{"AKIAUNIQUEKEYID0000", "unique-secret-access-key-000"} {
		assert.NotContains(t, out, v)
	}
}
