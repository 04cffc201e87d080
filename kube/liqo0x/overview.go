package liqo0x

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// What an overview of the peerings reads of Liqo 0.x: the ForeignClusters
// (one list), and, from Secrets listed by ClusterIDLabel, the identities a
// consumer holds and the certificates a provider issued.

// ListForeignClusters lists every ForeignCluster; none when the cluster
// does not serve Liqo 0.x's API.
func (c *Cluster) ListForeignClusters(ctx context.Context) ([]unstructured.Unstructured, error) {
	fcs, err := c.foreignClusters()
	if err != nil {
		return nil, err
	}
	list, err := fcs.List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// ForeignClustersListWatch lists and watches every ForeignCluster, for an
// informer.
func (c *Cluster) ForeignClustersListWatch() (cache.ListerWatcher, error) {
	fcs, err := c.foreignClusters()
	if err != nil {
		return nil, err
	}
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return fcs.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return fcs.Watch(ctx, o)
		},
	}, nil
}

// ForeignClusterID is the cluster ID a ForeignCluster is about: its label,
// else spec.clusterIdentity.clusterID.
func ForeignClusterID(fc *unstructured.Unstructured) string {
	if id := fc.GetLabels()[ClusterIDLabel]; id != "" {
		return id
	}
	id, _, _ := unstructured.NestedString(fc.Object, "spec", "clusterIdentity", "clusterID")
	return id
}

// ForeignClusterName is the remote's cluster name a ForeignCluster
// carries, else its own name.
func ForeignClusterName(fc *unstructured.Unstructured) string {
	if name, _, _ := unstructured.NestedString(fc.Object, "spec", "clusterIdentity", "clusterName"); name != "" {
		return name
	}
	return fc.GetName()
}

// ForeignClusterAuth is a ForeignCluster's AuthenticationStatus and tenant
// namespaces.
func ForeignClusterAuth(fc *unstructured.Unstructured) *AuthStatus { return authStatusOf(fc) }

// AuthRefused tells whether an AuthenticationStatus is a refusal.
func AuthRefused(status string) bool { return refusedStatus[status] }

// AuthEstablished tells whether an AuthenticationStatus says authenticated.
func AuthEstablished(status string) bool { return status == established }

// IsIdentitySecret tells whether s is a consumer's liqo-identity-* Secret.
func IsIdentitySecret(s *corev1.Secret) bool { return s.Labels[LocalIdentityLabel] == "true" }

// IsIssuedCertificateSecret tells whether s is the certificate a provider
// issued (liqo-remote-certificate, labelled by v0.10).
func IsIssuedCertificateSecret(s *corev1.Secret) bool { return s.Name == remoteCertificateSecret }

// IdentityCertificate is the certificate PEM of a liqo-identity-* Secret
// (nil while a v0.3 one waits for it).
func IdentityCertificate(s *corev1.Secret) []byte { return s.Data[identityCertField] }

// IssuedCertificate is the certificate PEM of a liqo-remote-certificate.
func IssuedCertificate(s *corev1.Secret) []byte { return s.Data["certificate"] }

// LatestIdentity is, among identity Secrets, the one Liqo uses: with a
// certificate, latest expire annotation (see IdentityFor); nil when none.
func LatestIdentity(secrets []*corev1.Secret) *corev1.Secret {
	var best *corev1.Secret
	var bestExpire int64 = -1
	for _, s := range secrets {
		if len(s.Data[identityCertField]) == 0 {
			continue
		}
		expire, _ := strconv.ParseInt(s.Annotations[CertificateExpireAnnotation], 10, 64)
		if expire > bestExpire {
			best, bestExpire = s, expire
		}
	}
	return best
}
