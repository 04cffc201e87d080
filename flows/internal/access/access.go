// Package access is what a consumer's credentials for a provider are and
// what they may do there: its kubeconfig Secret (Liqo v1's, or a Liqo 0.x
// identity), and the SelfSubjectAccessReviews that verify and doctor ask
// with it.
package access

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// Check is one question asked with a SelfSubjectAccessReview.
type Check struct {
	Verb, Group, Resource, Subresource string
	Namespace                          string // "" = cluster scope; TenantNamespace = the tenant namespace
}

// TenantNamespace stands, in a Check, for the consumer's tenant namespace.
const TenantNamespace = "<tenant>"

// ControlPlane covers what Liqo's remote-controlplane role grants in the
// tenant namespace, and what it must not grant.
var ControlPlane = func() []Check {
	var cs []Check
	for _, r := range []struct{ group, resource string }{
		{"authentication.liqo.io", "resourceslices"}, {"authentication.liqo.io", "renews"}, {"offloading.liqo.io", "namespacemaps"},
	} {
		for _, verb := range crudVerbs {
			cs = append(cs, Check{Verb: verb, Group: r.group, Resource: r.resource, Namespace: TenantNamespace})
		}
		// The same resources in a namespace that is not this consumer's.
		cs = append(cs, Check{Verb: "list", Group: r.group, Resource: r.resource, Namespace: kube.DefaultLiqoNamespace})
	}
	return append(cs,
		Check{Verb: "get", Resource: "secrets", Namespace: TenantNamespace}, Check{Verb: "list", Resource: "secrets"},
		Check{Verb: "list", Resource: "namespaces"}, Check{Verb: "create", Resource: "pods", Namespace: TenantNamespace},
		Check{Verb: "list", Group: "authentication.liqo.io", Resource: "tenants"},
		Check{Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "rolebindings", Namespace: TenantNamespace},
	)
}()

var crudVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete"}

// Liqo0x covers what a Liqo 0.x provider grants an identity it issued
// (ClusterRole liqo-remote-peering-basic, bound in the tenant namespace):
// ResourceRequests and their status there, and nothing else.
var Liqo0x = func() []Check {
	var cs []Check
	for _, sub := range []string{"", "status"} {
		for _, verb := range crudVerbs {
			cs = append(cs, Check{Verb: verb, Group: liqo0x.ForeignClusters.Group, Resource: "resourcerequests", Subresource: sub, Namespace: TenantNamespace})
		}
	}
	return append(cs,
		Check{Verb: "list", Group: liqo0x.ForeignClusters.Group, Resource: "resourcerequests", Namespace: kube.DefaultLiqoNamespace},
		Check{Verb: "list", Resource: "secrets"}, Check{Verb: "list", Resource: "namespaces"},
		Check{Verb: "create", Resource: "pods", Namespace: TenantNamespace},
	)
}()

// String is the check as a kubectl-like line, in tenant.
func (a Check) String(tenant string) string {
	res := a.Resource
	if a.Group != "" {
		res += "." + a.Group
	}
	if a.Subresource != "" {
		res += "/" + a.Subresource
	}
	switch a.Namespace {
	case "":
		return a.Verb + " " + res + " (cluster-wide)"
	case TenantNamespace:
		return a.Verb + " " + res + " -n " + tenant
	}
	return a.Verb + " " + res + " -n " + a.Namespace
}

// Verify reports who cfg authenticates as on the provider and which checks
// it passes in the tenant namespace.
func Verify(ctx context.Context, cfg *rest.Config, tenantNamespace string, checks []Check) (*handshake.Verification, error) {
	c, err := kube.NewCluster(cfg, "")
	if err != nil {
		return nil, err
	}
	v := &handshake.Verification{Server: c.Server, TenantNamespace: tenantNamespace, Allowed: []string{}, Denied: []string{}}
	if cert, err := authcrypto.ParseCertificatePEM(cfg.CertData); err == nil {
		v.CertificateNotAfter = cert.NotAfter
	}
	if v.User, v.Groups, err = c.WhoAmI(ctx); err != nil {
		return nil, err
	}
	for _, a := range checks {
		ns := a.Namespace
		if ns == TenantNamespace {
			ns = tenantNamespace
		}
		resource := a.Resource
		if a.Subresource != "" {
			resource += "/" + a.Subresource
		}
		allowed, _, err := c.Allowed(ctx, kube.Access{Verb: a.Verb, Group: a.Group, Resource: resource, Namespace: ns})
		if err != nil {
			return nil, err
		}
		if allowed {
			v.Allowed = append(v.Allowed, a.String(tenantNamespace))
		} else {
			v.Denied = append(v.Denied, a.String(tenantNamespace))
		}
	}
	return v, nil
}

// KubeconfigSecretFor is the consumer's kubeconfig Secret for providerID:
// Liqo v1's, else the identity of a Liqo 0.x provider.
func KubeconfigSecretFor(ctx context.Context, consumer *kube.Cluster, providerID string) (*corev1.Secret, error) {
	s, err := consumer.KubeconfigSecretFor(ctx, providerID)
	if !kube.IsNotFound(err) {
		return s, err
	}
	return liqo0x.On(consumer).KubeconfigSecret(ctx, providerID)
}

// OfSecret reads a kubeconfig Secret: the REST config of its kubeconfig,
// and the tenant namespace it is for on the provider.
func OfSecret(s *corev1.Secret) (*rest.Config, string, error) {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(s.Data[kube.KubeconfigField])
	if err != nil {
		return nil, "", fmt.Errorf("kubeconfig in secret %s/%s: %w", s.Namespace, s.Name, err)
	}
	ns := s.Annotations[kube.RemoteTenantNamespace]
	if ns == "" {
		return nil, "", fmt.Errorf("secret %s/%s has no %s annotation", s.Namespace, s.Name, kube.RemoteTenantNamespace)
	}
	return cfg, ns, nil
}

// ProxyURLOf is the proxy-url of a kubeconfig's current cluster, "" for
// none (or an unreadable kubeconfig).
func ProxyURLOf(kubeconfig []byte) string {
	raw, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return ""
	}
	if c := raw.Contexts[raw.CurrentContext]; c != nil && raw.Clusters[c.Cluster] != nil {
		return raw.Clusters[c.Cluster].ProxyURL
	}
	return ""
}
