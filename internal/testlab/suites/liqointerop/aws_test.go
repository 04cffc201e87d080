//go:build cluster

package liqointerop_test

import (
	"context"
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqotest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// The Identity an EKS (IAM) provider answers with, applied on a Liqo
// consumer of every release and on ours holding the same key pair: Liqo's
// Identity controller and ours write the same kubeconfig Secret, byte for
// byte (the kubeconfig with no certificate, the five AWS keys, labels and
// annotation), so Liqo's components take ours for an AWS one too. No
// provider: nothing here dials it.
func TestAWSIdentityKubeconfigSecretIsLiqos(t *testing.T) {
	forEachRelease(t, func(t *testing.T, release string) {
		p := startPair(t, release, testTimeout, liqoConsumes, "liqo-eks-consumer", "ours-eks-consumer")
		ctx := p.ctx
		liqoKeys, err := p.liqo.Kube.CoreV1().Secrets(p.liqo.Namespace).Get(ctx, kube.AuthKeysSecretName, metav1.GetOptions{})
		require.NoError(t, err)
		ourKeys, err := p.ours.Kube.CoreV1().Secrets(p.ours.Namespace).Get(ctx, kube.AuthKeysSecretName, metav1.GetOptions{})
		require.NoError(t, err)
		ourKeys.Data = liqoKeys.Data // the kubeconfig holds the private key
		_, err = p.ours.Kube.CoreV1().Secrets(p.ours.Namespace).Update(ctx, ourKeys, metav1.UpdateOptions{})
		require.NoError(t, err)
		liqotest.RunOurManager(t, ctx, p.ours, controller.Options{Consumer: true})

		eksID := releaseID("eks-provider", release)
		id := &authv1beta1.Identity{
			ObjectMeta: metav1.ObjectMeta{Name: kube.ControlPlaneIdentityName(eksID), Labels: map[string]string{kube.RemoteClusterIDLabel: eksID}},
			Spec: authv1beta1.IdentitySpec{ClusterID: eksID, Type: authv1beta1.ControlPlaneIdentityType, Namespace: kube.TenantNamespaceName(p.liqoID),
				AuthParams: authv1beta1.AuthParams{
					APIServer: "https://ABCDEF0123456789.gr7.eu-west-1.eks.amazonaws.com",
					// EKS hands its CA out base64-encoded, and Liqo passes it on as is.
					CA: []byte(base64.StdEncoding.EncodeToString(p.liqoLab.Config.CAData)),
					AWSConfig: &authv1beta1.AWSConfig{AWSUserArn: "arn:aws:iam::123456789012:user/liqo-" + p.liqoID,
						AWSAccessKeyID: "AKIAIOSFODNN7EXAMPLE", AWSSecretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
						AWSRegion: "eu-west-1", AWSClusterName: "prod-eks"}}},
		}
		secrets := map[string]map[string]string{} // strings: a readable diff
		for name, c := range map[string]*kube.Cluster{"liqo": p.liqo, "ours": p.ours} {
			ns, _, err := c.EnsureTenantNamespace(ctx, eksID)
			require.NoError(t, err)
			applied := id.DeepCopy()
			applied.Namespace = ns.Name
			_, _, err = c.ApplyIdentity(ctx, applied)
			require.NoError(t, err)
			t.Cleanup(func() {
				_ = c.Liqo.Identities(ns.Name).Delete(context.Background(), applied.Name, metav1.DeleteOptions{})
			})
			_, s := liqotest.WaitIdentityKubeconfig(t, ctx, c, ns.Name, applied.Name)
			secrets[name] = map[string]string{}
			for k, v := range s.Data {
				secrets[name][k] = string(v)
			}
			if name == "liqo" {
				assert.Contains(t, liqotest.Managers(s), liqoManager+"/", "written by Liqo's Identity controller")
			}
			got, err := c.KubeconfigSecretFor(ctx, eksID)
			require.NoError(t, err)
			assert.Equal(t, map[string]string{kube.RemoteClusterIDLabel: eksID, kube.IdentityTypeLabel: string(authv1beta1.ControlPlaneIdentityType)},
				got.Labels, name)
			assert.Equal(t, map[string]string{kube.RemoteTenantNamespace: kube.TenantNamespaceName(p.liqoID)}, got.Annotations, name)
		}
		assert.Equal(t, secrets["liqo"], secrets["ours"])
		for _, k := range []string{kube.AWSAccessKeyIDField, kube.AWSSecretAccessKeyField, kube.AWSRegionField, kube.AWSEKSClusterIDField, kube.AWSIAMUserArnField} {
			assert.Contains(t, secrets["ours"], k)
		}
	})
}
