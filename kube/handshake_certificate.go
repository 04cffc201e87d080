package kube

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// Fields of the provider's certificate cache Secret (§6.3).
const (
	RemoteCertCSRField         = "csr"
	RemoteCertCertificateField = "certificate"
)

// CSR issuance parameters of the control-plane identity, as Liqo uses them.
const (
	IdentityCSRGenerateName = "liqo-identity-"
	IdentityApprovalReason  = "IdentityManagerApproval"
	IdentityApprovalMessage = "This CSR was approved by Liqo Identity Manager"
)

// ErrStoredCSRMismatch means the provider holds a certificate for another
// CSR of the same consumer: it re-installed with new keys but kept its ID.
var ErrStoredCSRMismatch = errors.New("the stored and the provided CSR do not match")

// StoredCSRMismatchMessage tells a provider's message of that refusal, in
// the words of any implementation: Liqo v1.2 and this project say
// ErrStoredCSRMismatch's; Liqo v1.0 and v1.1 "the stored and the provided
// CSR for cluster <id> does not match".
func StoredCSRMismatchMessage(message string) bool {
	i := strings.Index(message, "the stored and the provided CSR")
	return i >= 0 && strings.Contains(message[i:], " not match")
}

// CachedCertificateIn returns the certificate the provider stored for a
// consumer's CSR in its tenant namespace (§6.3 step 1), in cache Secret
// secretName (RemoteCertSecretName for the control plane,
// ResourceSliceCertSecretName for a ResourceSlice): nil when there is none
// (or the Secret lacks a key), ErrStoredCSRMismatch when it was issued for
// another CSR.
func (c *Cluster) CachedCertificateIn(ctx context.Context, tenantNamespace, secretName string, csr []byte) ([]byte, error) {
	s, err := c.Kube.CoreV1().Secrets(tenantNamespace).Get(ctx, secretName, metav1.GetOptions{})
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading secret %s/%s: %w", tenantNamespace, secretName, err)
	}
	return CertificateFromSecret(s, csr)
}

// CertificateFromSecret is what CachedCertificate makes of the cache Secret
// s: its certificate when it was issued for csr, nil when a key is missing,
// ErrStoredCSRMismatch when it was issued for another CSR.
func CertificateFromSecret(s *corev1.Secret, csr []byte) ([]byte, error) {
	stored, okCSR := s.Data[RemoteCertCSRField]
	cert, okCert := s.Data[RemoteCertCertificateField]
	if !okCSR || !okCert {
		return nil, nil
	}
	if !bytes.Equal(stored, csr) {
		return nil, fmt.Errorf("%w: delete secret %s/%s on the provider to issue a new certificate",
			ErrStoredCSRMismatch, s.Namespace, cacheSecretName(s))
	}
	return cert, nil
}

// StoreCertificateIn creates or updates the certificate cache Secret
// secretName of a consumer (label remote-cluster-id, data csr +
// certificate, no owner; names as in CachedCertificateIn).
func (c *Cluster) StoreCertificateIn(ctx context.Context, tenantNamespace, secretName, consumerID string, csr, cert []byte) (Change, error) {
	secrets := c.Kube.CoreV1().Secrets(tenantNamespace)
	ch := Change{Object: "Secret " + tenantNamespace + "/" + secretName}
	s, err := secrets.Get(ctx, secretName, metav1.GetOptions{})
	if IsNotFound(err) {
		if _, err = secrets.Create(ctx, newCertificateSecret(tenantNamespace, secretName, consumerID, csr, cert), metav1.CreateOptions{}); err == nil {
			ch.Action = Created
			return ch, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return ch, fmt.Errorf("storing the certificate in secret %s/%s: %w", tenantNamespace, secretName, err)
		}
		s, err = secrets.Get(ctx, secretName, metav1.GetOptions{})
	}
	if err != nil {
		return ch, fmt.Errorf("storing the certificate in secret %s/%s: %w", tenantNamespace, secretName, err)
	}
	_, ch.Action, err = c.updateCertificateSecret(ctx, s, consumerID, csr, cert)
	return ch, err
}

func newCertificateSecret(tenantNamespace, secretName, consumerID string, csr, cert []byte) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: secretName, Namespace: tenantNamespace,
			Labels: map[string]string{RemoteClusterIDLabel: consumerID}},
		Data: map[string][]byte{RemoteCertCSRField: csr, RemoteCertCertificateField: cert},
	}
}

// updateCertificateSecret makes the existing cache Secret s hold csr and
// cert (unchanged when it does).
func (c *Cluster) updateCertificateSecret(ctx context.Context, s *corev1.Secret, consumerID string, csr, cert []byte) (*corev1.Secret, Action, error) {
	if s.Labels[RemoteClusterIDLabel] == consumerID && bytes.Equal(s.Data[RemoteCertCSRField], csr) &&
		bytes.Equal(s.Data[RemoteCertCertificateField], cert) {
		return s, Unchanged, nil
	}
	s = s.DeepCopy()
	s.Labels = mergeInto(s.Labels, map[string]string{RemoteClusterIDLabel: consumerID})
	s.Data = map[string][]byte{RemoteCertCSRField: csr, RemoteCertCertificateField: cert}
	updated, err := c.Kube.CoreV1().Secrets(s.Namespace).Update(ctx, s, metav1.UpdateOptions{})
	if err != nil {
		return nil, Unchanged, fmt.Errorf("storing the certificate in secret %s/%s: %w", s.Namespace, cacheSecretName(s), err)
	}
	return updated, Updated, nil
}

// CreateCertificateSecret stores the certificate of a consumer whose tenant
// namespace had no cache Secret when the caller looked (in its informer's
// cache): a single Create, instead of StoreCertificate's Get first. Should
// a Secret have appeared meanwhile, one issued for the same CSR is updated
// like StoreCertificate does, and one issued for another CSR is left alone:
// ErrStoredCSRMismatch, what CachedCertificate would have said.
func (c *Cluster) CreateCertificateSecret(ctx context.Context, tenantNamespace, consumerID string, csr, cert []byte) (*corev1.Secret, error) {
	secrets := c.Kube.CoreV1().Secrets(tenantNamespace)
	created, err := secrets.Create(ctx, newCertificateSecret(tenantNamespace, RemoteCertSecretName, consumerID, csr, cert), metav1.CreateOptions{})
	if err == nil {
		return created, nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("storing the certificate in secret %s/%s: %w", tenantNamespace, RemoteCertSecretName, err)
	}
	return c.UpdateCertificateSecret(ctx, tenantNamespace, consumerID, csr, cert, nil)
}

// UpdateCertificateSecret replaces the certificate in the cache Secret of a
// consumer (renewal), starting from current, the Secret as the caller
// last saw it (nil: read it). A Secret issued for another CSR is left
// alone (ErrStoredCSRMismatch); a stale current is a conflict.
func (c *Cluster) UpdateCertificateSecret(ctx context.Context, tenantNamespace, consumerID string, csr, cert []byte, current *corev1.Secret) (*corev1.Secret, error) {
	if current == nil {
		s, err := c.Kube.CoreV1().Secrets(tenantNamespace).Get(ctx, RemoteCertSecretName, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading secret %s/%s: %w", tenantNamespace, RemoteCertSecretName, err)
		}
		current = s
	}
	if _, err := CertificateFromSecret(current, csr); err != nil {
		return nil, err
	}
	s, _, err := c.updateCertificateSecret(ctx, current, consumerID, csr, cert)
	return s, err
}

// cacheSecretName names a cache Secret in messages (one made up in a test
// may have no name).
func cacheSecretName(s *corev1.Secret) string {
	if s.Name == "" {
		return RemoteCertSecretName
	}
	return s.Name
}

// CertificateRenewalTime is when Liqo renews a certificate: at 2/3 of its
// validity (notAfter - (notAfter - notBefore)/3). It reads the first
// certificate of a PEM chain.
func CertificateRenewalTime(certPEM []byte) (time.Time, error) {
	cert, err := authcrypto.ParseCertificatePEM(certPEM)
	if err != nil {
		return time.Time{}, err
	}
	return RenewalTime(cert.NotBefore, cert.NotAfter), nil
}

// RenewalTime is the 2/3 point of a validity period.
func RenewalTime(notBefore, notAfter time.Time) time.Time {
	return notAfter.Add(-notAfter.Sub(notBefore) / 3)
}

// NewAuthParams builds a Tenant's status.authParams (§6.4).
func NewAuthParams(cert, ca []byte, apiServer, proxyURL string) *authv1beta1.AuthParams {
	return &authv1beta1.AuthParams{CA: ca, SignedCRT: cert, APIServer: apiServer, ProxyURL: proxyURL}
}
