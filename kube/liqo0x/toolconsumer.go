package liqo0x

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Kubeconfig builds the kubeconfig of an identity issued by a 0.x
// provider (§8(1)6), in the layout of the v1 flow's (Kubeconfig): the
// provider's API server and CA, the certificate, our key, and the provider's
// tenant namespace as default namespace.
func Kubeconfig(providerID string, resp *IdentityResponse, keyPEM []byte) ([]byte, error) {
	if resp == nil || len(resp.Certificate) == 0 || resp.APIServerURL == "" {
		return nil, errors.New("no identity to build a kubeconfig from: request it first")
	}
	// The certificate must be for our key, or the kubeconfig cannot authenticate.
	if _, err := tls.X509KeyPair(resp.Certificate, keyPEM); err != nil {
		return nil, fmt.Errorf("the certificate the provider issued does not match the pending key (%v): the request was answered for another CSR", err)
	}
	user := kube.ControlPlaneIdentityName(providerID)
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[providerID] = &clientcmdapi.Cluster{Server: resp.APIServerURL, CertificateAuthorityData: resp.APIServerCA}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: resp.Certificate, ClientKeyData: keyPEM}
	cfg.Contexts["default-context"] = &clientcmdapi.Context{Cluster: providerID, AuthInfo: user, Namespace: resp.Namespace}
	cfg.CurrentContext = "default-context"
	return clientcmd.Write(*cfg)
}

// StoreKubeconfig stores the kubeconfig of a 0.x identity in Secret
// kubeconfig-controlplane-<providerID> in the tenant namespace of the
// provider, labelled with the provider's ID and ClientLabel but no
// identity type, so that no v1 component takes it for a v1 identity (see
// KubeconfigSecret); the remote tenant namespace is annotated as on a v1
// kubeconfig Secret. Applied server-side by this tool's field manager, it
// also drops the identity-type label an earlier version wrote. The pending
// request is then deleted: its key is in the kubeconfig.
func (c *Cluster) StoreKubeconfig(ctx context.Context, providerID, remoteNamespace string, kubeconfig []byte) (kube.Change, error) {
	name := kube.KubeconfigSecretName(kube.ControlPlaneIdentityName(providerID))
	if _, err := clientcmd.Load(kubeconfig); err != nil || len(kubeconfig) == 0 {
		return kube.Change{Object: "Secret " + name}, errors.New("not a kubeconfig: build it with Kubeconfig")
	}
	ns, err := c.clientNamespace(ctx, providerID)
	if err != nil {
		return kube.Change{Object: "Secret " + name}, err
	}
	s := &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns,
			Labels: map[string]string{
				kube.RemoteClusterIDLabel: providerID,
				ClientLabel:               "true",
			},
			Annotations: map[string]string{kube.RemoteTenantNamespace: remoteNamespace},
		},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{kube.KubeconfigField: kubeconfig},
	}
	change, err := kube.ServerSideApply(ctx, c.Kube.CoreV1().Secrets(ns), "Secret", s)
	if err != nil {
		return change, err
	}
	return change, c.DeletePending(ctx, providerID)
}

// PendingRequest returns the key and CSR of the identity request to
// providerID, made once and kept in Secret liqo-0x-pending-<providerID>
// before anything is sent: a re-run after a lost answer resends the same CSR,
// which is what the provider may already have signed.
func (c *Cluster) PendingRequest(ctx context.Context, providerID, consumerID string) (keyPEM, csrPEM []byte, err error) {
	if err := authcrypto.ValidateClusterID(consumerID); err != nil {
		return nil, nil, err
	}
	ns, err := c.clientNamespace(ctx, providerID)
	if err != nil {
		return nil, nil, err
	}
	secrets := c.Kube.CoreV1().Secrets(ns)
	name := PendingSecretPrefix + providerID
	existing, err := secrets.Get(ctx, name, metav1.GetOptions{})
	switch {
	case err == nil:
		keyPEM, csrPEM = existing.Data[PendingKeyField], existing.Data[PendingCSRField]
		if validPendingRequest(keyPEM, csrPEM, consumerID) {
			return keyPEM, csrPEM, nil
		}
		// Made for another cluster ID (the cluster's ID changed) or damaged:
		// the provider cannot have signed it for consumerID.
	case !kube.IsNotFound(err):
		return nil, nil, fmt.Errorf("reading Secret %s/%s: %w", ns, name, err)
	default:
		existing = nil
	}

	key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
	if err != nil {
		return nil, nil, err
	}
	if keyPEM, err = authcrypto.EncodePrivateKeyPEM(key); err != nil {
		return nil, nil, err
	}
	if csrPEM, err = authcrypto.NewCSR(key, consumerID); err != nil {
		return nil, nil, err
	}
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns,
			Labels: map[string]string{kube.RemoteClusterIDLabel: providerID, ClientLabel: "true"}},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{PendingKeyField: keyPEM, PendingCSRField: csrPEM},
	}
	if existing != nil {
		s.ResourceVersion = existing.ResourceVersion
		_, err = secrets.Update(ctx, s, metav1.UpdateOptions{FieldManager: kube.FieldManager})
	} else {
		_, err = secrets.Create(ctx, s, metav1.CreateOptions{FieldManager: kube.FieldManager})
	}
	if apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err) {
		// Another run stored its request first: use that one.
		return c.PendingRequest(ctx, providerID, consumerID)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("storing the pending identity request in Secret %s/%s: %w", ns, name, err)
	}
	return keyPEM, csrPEM, nil
}

func validPendingRequest(keyPEM, csrPEM []byte, consumerID string) bool {
	key, err := authcrypto.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return false
	}
	return authcrypto.CheckCSR(csrPEM, consumerID, key.Public()) == nil
}

// DeletePending deletes the pending request to providerID, if any.
func (c *Cluster) DeletePending(ctx context.Context, providerID string) error {
	ns, err := c.TenantNamespace(ctx, providerID)
	if kube.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	err = c.Kube.CoreV1().Secrets(ns.Name).Delete(ctx, PendingSecretPrefix+providerID, metav1.DeleteOptions{})
	if err != nil && !kube.IsNotFound(err) {
		return fmt.Errorf("deleting Secret %s/%s: %w", ns.Name, PendingSecretPrefix+providerID, err)
	}
	return nil
}

// clientNamespace is the tenant namespace of providerID, created with
// Liqo's labels and ClientLabel when there is none.
func (c *Cluster) clientNamespace(ctx context.Context, providerID string) (string, error) {
	if err := authcrypto.ValidateClusterID(providerID); err != nil {
		return "", err
	}
	ns, err := c.TenantNamespace(ctx, providerID)
	if err == nil {
		return ns.Name, nil
	}
	if !kube.IsNotFound(err) {
		return "", err
	}
	nsLabels := kube.TenantNamespaceLabels(providerID)
	nsLabels[ClientLabel] = "true"
	created, err := c.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: kube.TenantNamespaceName(providerID), Labels: nsLabels}}, metav1.CreateOptions{FieldManager: kube.FieldManager})
	if apierrors.IsAlreadyExists(err) {
		adopted, _, err := c.AdoptTenantNamespace(ctx, providerID)
		if err != nil {
			return "", err
		}
		return adopted.Name, nil
	}
	if err != nil {
		return "", fmt.Errorf("creating the tenant namespace of provider %s: %w", providerID, err)
	}
	return created.Name, nil
}

// IssuedCertificate returns, on a 0.x provider, the CSR and
// certificate it stored for consumerID (Secret liqo-remote-certificate in the
// tenant namespace labelled for it, §2.4): what a consumer that lost the
// answer may recover. NotFound when none.
func (c *Cluster) IssuedCertificate(ctx context.Context, consumerID string) (namespace string, csrPEM, certPEM []byte, err error) {
	sel := labels.Set{ClusterIDLabel: consumerID, TenantNamespaceLabel: "true"}.String()
	list, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return "", nil, nil, fmt.Errorf("looking up the tenant namespace of consumer %s: %w", consumerID, err)
	}
	for _, ns := range list.Items {
		s, err := c.Kube.CoreV1().Secrets(ns.Name).Get(ctx, kube.RemoteCertSecretName, metav1.GetOptions{})
		if kube.IsNotFound(err) {
			continue
		}
		if err != nil {
			return "", nil, nil, fmt.Errorf("reading Secret %s/%s: %w", ns.Name, kube.RemoteCertSecretName, err)
		}
		return ns.Name, s.Data["csr"], s.Data["certificate"], nil
	}
	return "", nil, nil, apierrors.NewNotFound(corev1.Resource("secrets"), kube.RemoteCertSecretName+" for cluster "+consumerID)
}
