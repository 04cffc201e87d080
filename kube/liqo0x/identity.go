package liqo0x

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"

	"github.com/liqo-auth-tui/liqo-auth-tui/crypto"
)

// Keys of a 0.x consumer's liqo-identity-* Secret (§3.5).
const (
	identityKeyField       = "private-key"
	identityCertField      = "certificate"
	identityCAField        = "apiServerCa"
	identityURLField       = "apiServerUrl"
	identityNamespaceField = "namespace"
	identityProxyField     = "proxyURL"
)

// Identity is the identity a Liqo 0.x consumer stored for a provider.
type Identity struct {
	Namespace, Name               string // the liqo-identity-* Secret
	APIServerURL, RemoteNamespace string
	NotBefore, NotAfter           time.Time    // from the certificate
	Config                        *rest.Config // cert+key+CA: to reach the provider as that identity; never print it
}

// identitySelector selects the identity Secrets for providerID (§3.5).
func identitySelector(providerID string) string {
	return labels.Set{LocalIdentityLabel: "true", ClusterIDLabel: providerID}.String()
}

// IdentityFor returns the identity Liqo 0.x stored for providerID
// and builds its rest config as Liqo's identity manager does (§3.5). Among
// several Secrets the latest expire annotation wins, as in Liqo; a v0.3
// Secret still waiting for its certificate does not count. NotFound when none.
func (c *Cluster) IdentityFor(ctx context.Context, providerID string) (*Identity, error) {
	secrets, err := c.identitySecrets(ctx, providerID)
	if err != nil {
		return nil, err
	}
	ptrs := make([]*corev1.Secret, len(secrets))
	for i := range secrets {
		ptrs[i] = &secrets[i]
	}
	best := LatestIdentity(ptrs)
	if best == nil {
		return nil, apierrors.NewNotFound(corev1.Resource("secrets"), IdentitySecretPrefix+"* for "+providerID)
	}
	return identityOf(best)
}

// identitySecrets lists the identity Secrets cluster-wide, or in the
// ForeignCluster's local tenant namespace when only that may be read.
func (c *Cluster) identitySecrets(ctx context.Context, providerID string) ([]corev1.Secret, error) {
	opts := metav1.ListOptions{LabelSelector: identitySelector(providerID)}
	list, err := c.Kube.CoreV1().Secrets(metav1.NamespaceAll).List(ctx, opts)
	if apierrors.IsForbidden(err) {
		ns, nsErr := c.localTenantNamespace(ctx, providerID)
		if nsErr != nil || ns == "" {
			return nil, fmt.Errorf("listing the identity Secrets for %s: %w", providerID, err)
		}
		list, err = c.Kube.CoreV1().Secrets(ns).List(ctx, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("listing the identity Secrets for %s: %w", providerID, err)
	}
	return list.Items, nil
}

// localTenantNamespace is status.tenantNamespace.local of the
// ForeignCluster of providerID, "" when there is none.
func (c *Cluster) localTenantNamespace(ctx context.Context, providerID string) (string, error) {
	fcs, err := c.foreignClusters()
	if err != nil {
		return "", err
	}
	fc, err := c.foreignCluster(ctx, fcs, providerID)
	if err != nil || fc == nil {
		return "", err
	}
	return authStatusOf(fc).LocalTenantNamespace, nil
}

// identityOf reads one identity Secret.
func identityOf(s *corev1.Secret) (*Identity, error) {
	what := "identity Secret " + s.Namespace + "/" + s.Name
	cert, err := crypto.ParseCertificatePEM(s.Data[identityCertField])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	host := string(s.Data[identityURLField])
	if host == "" || len(s.Data[identityKeyField]) == 0 {
		return nil, fmt.Errorf("%s lacks %s or %s: Liqo did not finish writing it; delete it to let Liqo authenticate again", what, identityURLField, identityKeyField)
	}
	cfg := &rest.Config{
		Host:    host,
		APIPath: "/apis",
		TLSClientConfig: rest.TLSClientConfig{
			CertData: s.Data[identityCertField],
			KeyData:  s.Data[identityKeyField],
			CAData:   s.Data[identityCAField], // nil: system roots, as in Liqo
		},
	}
	if proxy := string(s.Data[identityProxyField]); proxy != "" {
		u, err := url.Parse(proxy)
		if err != nil {
			return nil, fmt.Errorf("%s: proxy URL: %w", what, err)
		}
		cfg.Proxy = http.ProxyURL(u)
	}
	return &Identity{
		Namespace: s.Namespace, Name: s.Name,
		APIServerURL: host, RemoteNamespace: string(s.Data[identityNamespaceField]),
		NotBefore: cert.NotBefore, NotAfter: cert.NotAfter,
		Config: cfg,
	}, nil
}
