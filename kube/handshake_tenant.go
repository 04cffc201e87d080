package kube

import (
	"context"
	stdcrypto "crypto"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// Event reasons of the Tenant checks, as real Liqo emits them (§6.2, §11).
const (
	ReasonNonceNotFound               = "NonceNotFound"
	ReasonSignatureVerificationFailed = "SignatureVerificationFailed"
	ReasonInvalidCSR                  = "InvalidCSR"
	ReasonInvalidPublicKey            = "InvalidPublicKey"
	ReasonInvalidTenant               = "InvalidTenant"
)

// HandshakeError is a Tenant that fails a check; Reason is the Event reason.
type HandshakeError struct {
	Reason string
	Err    error
}

func (e *HandshakeError) Error() string { return e.Err.Error() }
func (e *HandshakeError) Unwrap() error { return e.Err }

func handshakeErr(reason, format string, args ...any) error {
	return &HandshakeError{Reason: reason, Err: fmt.Errorf(format, args...)}
}

// ForgeTenant builds the Tenant a consumer sends to a provider (§5): name and
// label = consumer ID, PEM public key, the CSR made with the cluster key, and
// the signature over the provider's nonce. namespace may be empty.
func ForgeTenant(consumerID, namespace string, key stdcrypto.Signer, signature []byte, proxyURL string) (*authv1beta1.Tenant, error) {
	csr, err := authcrypto.NewCSR(key, consumerID)
	if err != nil {
		return nil, err
	}
	pub, err := authcrypto.EncodePublicKeyPEM(key.Public())
	if err != nil {
		return nil, err
	}
	return &authv1beta1.Tenant{
		TypeMeta: metav1.TypeMeta{APIVersion: authv1beta1.GroupVersion.String(), Kind: authv1beta1.TenantKind},
		ObjectMeta: metav1.ObjectMeta{Name: consumerID, Namespace: namespace,
			Labels: map[string]string{RemoteClusterIDLabel: consumerID}},
		Spec: authv1beta1.TenantSpec{ClusterID: consumerID, PublicKey: pub, CSR: csr, Signature: signature, ProxyURL: proxyURL},
	}, nil
}

// VerifyTenantHandshake checks a Tenant against the provider's nonce the way
// the provider's controller does (§6.2 step 5): the public key parses, the
// signature verifies over the nonce, and the CSR is well formed, for the
// Tenant's cluster ID, in organization liqo.io and of the same key.
func VerifyTenantHandshake(t *authv1beta1.Tenant, nonce string) error {
	if err := authcrypto.ValidateClusterID(t.Spec.ClusterID); err != nil {
		return handshakeErr(ReasonInvalidTenant, "tenant %q: spec.clusterID: %w", t.Name, err)
	}
	pub, err := authcrypto.ParsePublicKey(t.Spec.PublicKey)
	if err != nil {
		return handshakeErr(ReasonInvalidPublicKey, "failed to parse public key in Tenant resource %q: %w", t.Name, err)
	}
	if err := authcrypto.VerifyNonce(pub, []byte(nonce), t.Spec.Signature); err != nil {
		return handshakeErr(ReasonSignatureVerificationFailed, "signature verification failed for Tenant %q: %w", t.Name, err)
	}
	if err := authcrypto.CheckCSR(t.Spec.CSR, t.Spec.ClusterID, pub); err != nil {
		return handshakeErr(ReasonInvalidCSR, "tenant %q: %w", t.Name, err)
	}
	return nil
}

// CheckTenantPlacement enforces what Liqo's admission webhook checks (§6.1),
// since clusters without Liqo have no webhook: the Tenant lives in the
// tenant namespace of its cluster ID and its label matches its spec.
func CheckTenantPlacement(t *authv1beta1.Tenant, namespaceLabels map[string]string) error {
	if namespaceLabels[TenantNamespaceLabel] != "true" {
		return handshakeErr(ReasonInvalidTenant, "resources Tenant must be created in a tenant namespace (namespace %s is not one)", t.Namespace)
	}
	if t.Labels[RemoteClusterIDLabel] != t.Spec.ClusterID {
		return handshakeErr(ReasonInvalidTenant, "the %q label must match the cluster ID in the specs", RemoteClusterIDLabel)
	}
	if namespaceLabels[RemoteClusterIDLabel] != t.Spec.ClusterID {
		return handshakeErr(ReasonInvalidTenant, "the Tenant must have the same cluster ID of its tenant namespace (%s is for cluster %s, the Tenant for %s)",
			t.Namespace, namespaceLabels[RemoteClusterIDLabel], t.Spec.ClusterID)
	}
	return nil
}

// TenantFor finds the Tenant of a consumer by label in namespace ("" = all).
func (c *Cluster) TenantFor(ctx context.Context, namespace, consumerID string) (*authv1beta1.Tenant, error) {
	list, err := c.Liqo.Tenants(namespace).List(ctx, metav1.ListOptions{LabelSelector: labels.Set{RemoteClusterIDLabel: consumerID}.String()})
	if err != nil {
		return nil, err
	}
	switch len(list.Items) {
	case 0:
		return nil, apierrors.NewNotFound(authv1beta1.Resource(authv1beta1.TenantResource), consumerID)
	case 1:
		return &list.Items[0], nil
	}
	return nil, fmt.Errorf("multiple resources of type {tenants} found for cluster {%s}, when only one was expected", consumerID)
}

// TenantToCreate is the Tenant as this tool creates it on the provider: t
// with the provider's finalizer already in place. The provider's controller
// (ours or Liqo's) adds it with an Update before anything else when it is
// missing; creating the Tenant with it saves that write. The artifact a
// consumer hands over stays as Liqo makes it (§5.1, no finalizers).
func TenantToCreate(t *authv1beta1.Tenant) *authv1beta1.Tenant {
	out := t.DeepCopy()
	if !slices.Contains(out.Finalizers, TenantFinalizer) {
		out.Finalizers = append(out.Finalizers, TenantFinalizer)
	}
	return out
}

// ApplyTenant creates the Tenant (see TenantToCreate) or replaces the
// labels, annotations and spec of the existing one (like liqoctl),
// reporting whether anything changed.
func (c *Cluster) ApplyTenant(ctx context.Context, t *authv1beta1.Tenant) (*authv1beta1.Tenant, Change, error) {
	return replaceObject(ctx, c.Liqo.Tenants(t.Namespace), authv1beta1.TenantKind, TenantToCreate(t), func(existing, want *authv1beta1.Tenant) {
		spec := want.Spec
		if spec.AuthzPolicy == "" { // keep server defaults: they are not a change
			spec.AuthzPolicy = existing.Spec.AuthzPolicy
		}
		if spec.TenantCondition == "" {
			// Liqo re-activates a cordoned Tenant here; keeping the admin's
			// condition is what re-running a handshake should do.
			spec.TenantCondition = existing.Spec.TenantCondition
		}
		existing.Spec = spec
	})
}

func mergeInto(dst, src map[string]string) map[string]string {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = map[string]string{}
	}
	for k, v := range src {
		dst[k] = v
	}
	return dst
}
