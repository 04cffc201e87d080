package kube

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// ForgeIdentity builds the control-plane Identity a provider sends back
// (§7.2) from the Tenant's status. consumerNamespace is the consumer's tenant
// namespace for the provider ("" leaves it to `kubectl apply -n`).
func ForgeIdentity(providerID, consumerNamespace string, t *authv1beta1.Tenant) (*authv1beta1.Identity, error) {
	if t.Status.AuthParams == nil || t.Status.TenantNamespace == "" {
		return nil, fmt.Errorf("tenant %s does not have the required status fields: wait for the provider to accept it", t.Name)
	}
	return &authv1beta1.Identity{
		TypeMeta: metav1.TypeMeta{APIVersion: authv1beta1.GroupVersion.String(), Kind: authv1beta1.IdentityKind},
		ObjectMeta: metav1.ObjectMeta{Name: ControlPlaneIdentityName(providerID), Namespace: consumerNamespace,
			Labels: map[string]string{RemoteClusterIDLabel: providerID}},
		Spec: authv1beta1.IdentitySpec{
			ClusterID:  providerID,
			Type:       authv1beta1.ControlPlaneIdentityType,
			AuthParams: *t.Status.AuthParams.DeepCopy(),
			Namespace:  t.Status.TenantNamespace,
		},
	}, nil
}

// ControlPlaneIdentitySelector finds a consumer's Identity for a provider.
func ControlPlaneIdentitySelector(providerID string) string {
	return labels.Set{RemoteClusterIDLabel: providerID}.String()
}

// ControlPlaneIdentityFor finds the ControlPlane Identity for a provider in
// any namespace, by label and type (§9.1 step 14).
func (c *Cluster) ControlPlaneIdentityFor(ctx context.Context, providerID string) (*authv1beta1.Identity, error) {
	list, err := c.Liqo.Identities("").List(ctx, metav1.ListOptions{LabelSelector: ControlPlaneIdentitySelector(providerID)})
	if err != nil {
		return nil, err
	}
	var found []authv1beta1.Identity
	for _, id := range list.Items {
		if id.Spec.Type == authv1beta1.ControlPlaneIdentityType {
			found = append(found, id)
		}
	}
	switch len(found) {
	case 0:
		return nil, apierrors.NewNotFound(authv1beta1.Resource(authv1beta1.IdentityResource), ControlPlaneIdentityName(providerID))
	case 1:
		return &found[0], nil
	}
	return nil, fmt.Errorf("multiple resources of type {identities} found for cluster {%s}, when only one was expected", providerID)
}

// ApplyIdentity creates the Identity or replaces its labels, annotations and
// spec, reporting whether anything changed.
func (c *Cluster) ApplyIdentity(ctx context.Context, id *authv1beta1.Identity) (*authv1beta1.Identity, Change, error) {
	return replaceObject(ctx, c.Liqo.Identities(id.Namespace), authv1beta1.IdentityKind, id, func(existing, want *authv1beta1.Identity) {
		existing.Spec = want.Spec
	})
}

// Kubeconfig builds the kubeconfig of an Identity (§8): the provider's API
// server and CA, the issued certificate, and the consumer's own private key.
// An EKS Identity has no certificate: its kubeconfig is the same without
// one, as Liqo's, whose components add an IAM token (KubeconfigSecret).
func Kubeconfig(id *authv1beta1.Identity, privateKeyPEM []byte) ([]byte, error) {
	p := id.Spec.AuthParams
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[id.Spec.ClusterID] = &clientcmdapi.Cluster{Server: p.APIServer, CertificateAuthorityData: p.CA, ProxyURL: p.ProxyURL}
	ctxt := &clientcmdapi.Context{Cluster: id.Spec.ClusterID, AuthInfo: id.Name}
	if id.Spec.Type == authv1beta1.ControlPlaneIdentityType {
		ctxt.Namespace = id.Spec.Namespace
	}
	cfg.Contexts["default-context"] = ctxt
	cfg.CurrentContext = "default-context"
	cfg.AuthInfos[id.Name] = &clientcmdapi.AuthInfo{ClientCertificateData: p.SignedCRT, ClientKeyData: privateKeyPEM}
	return clientcmd.Write(*cfg)
}

// KubeconfigSecret builds the Secret holding an Identity's kubeconfig, owned
// by the Identity so that it goes away with it. An EKS Identity's Secret
// also carries its AWS credentials under Liqo's keys (awsData): they are
// secret, so never log or print this Secret's data.
func KubeconfigSecret(id *authv1beta1.Identity, kubeconfig []byte) *corev1.Secret {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: KubeconfigSecretName(id.Name), Namespace: id.Namespace,
			Labels: map[string]string{RemoteClusterIDLabel: id.Spec.ClusterID, IdentityTypeLabel: string(id.Spec.Type)},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(id,
				authv1beta1.GroupVersion.WithKind(authv1beta1.IdentityKind))},
		},
		Data: map[string][]byte{KubeconfigField: kubeconfig},
	}
	maps.Copy(s.Data, awsData(id.Spec.AuthParams.AWSConfig))
	if id.Spec.Type == authv1beta1.ControlPlaneIdentityType && id.Spec.Namespace != "" {
		s.Annotations = map[string]string{RemoteTenantNamespace: id.Spec.Namespace}
	}
	return s
}

// awsData is what Liqo's Identity controller adds to the kubeconfig Secret
// of an EKS Identity: the awsConfig's strings under its keys (none without
// one).
func awsData(aws *authv1beta1.AWSConfig) map[string][]byte {
	if aws == nil {
		return nil
	}
	return map[string][]byte{
		AWSAccessKeyIDField:     []byte(aws.AWSAccessKeyID),
		AWSSecretAccessKeyField: []byte(aws.AWSSecretAccessKey),
		AWSRegionField:          []byte(aws.AWSRegion),
		AWSEKSClusterIDField:    []byte(aws.AWSClusterName),
		AWSIAMUserArnField:      []byte(aws.AWSUserArn),
	}
}

// KubeconfigCurrent tells whether a kubeconfig Secret already carries what
// id says (server, proxy, CA, certificate, AWS credentials): a re-applied
// Identity names the same Secret in its status before its controller has
// rewritten it.
func KubeconfigCurrent(s *corev1.Secret, id *authv1beta1.Identity) bool {
	cfg, err := clientcmd.Load(s.Data[KubeconfigField])
	if err != nil {
		return false
	}
	ctxt := cfg.Contexts[cfg.CurrentContext]
	if ctxt == nil || cfg.Clusters[ctxt.Cluster] == nil || cfg.AuthInfos[ctxt.AuthInfo] == nil {
		return false
	}
	cluster, user, p := cfg.Clusters[ctxt.Cluster], cfg.AuthInfos[ctxt.AuthInfo], id.Spec.AuthParams
	// New access keys for an EKS Identity change nothing else.
	for k, v := range awsData(p.AWSConfig) {
		if got, ok := s.Data[k]; !ok || !bytes.Equal(got, v) {
			return false
		}
	}
	// The proxy too: a re-run with another --proxy-url changes only it.
	return strings.TrimSuffix(cluster.Server, "/") == strings.TrimSuffix(p.APIServer, "/") && cluster.ProxyURL == p.ProxyURL &&
		bytes.Equal(cluster.CertificateAuthorityData, p.CA) && bytes.Equal(user.ClientCertificateData, p.SignedCRT)
}

// KubeconfigSecretFor finds the ControlPlane kubeconfig Secret for a provider
// cluster-wide by labels, as real Liqo does (§8).
func (c *Cluster) KubeconfigSecretFor(ctx context.Context, providerID string) (*corev1.Secret, error) {
	sel := labels.Set{RemoteClusterIDLabel: providerID, IdentityTypeLabel: string(authv1beta1.ControlPlaneIdentityType)}.String()
	list, err := c.Kube.CoreV1().Secrets("").List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, err
	}
	switch len(list.Items) {
	case 0:
		return nil, apierrors.NewNotFound(corev1.Resource("secrets"), KubeconfigSecretName(ControlPlaneIdentityName(providerID)))
	case 1:
		return &list.Items[0], nil
	}
	return nil, fmt.Errorf("found multiple secrets containing ControlPlane Kubeconfig for cluster %s", providerID)
}
