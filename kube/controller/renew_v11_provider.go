package controller

import (
	"context"
	stdcrypto "crypto"
	"fmt"
	"strings"
	"sync"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// Renewal for Liqo v1.0.x–v1.1.x consumers, the provider's side (protocol
// spec §10.2, §12).
//
// Such a consumer asks for a renewal itself: at 2/3 of its certificate's
// validity, or while its Identity carries liqo.io/renew=true, it makes a
// Renew carrying a CSR (made with its cluster key) and its public key (PKIX
// DER), which its crd-replicator copies here. Without the annotation it
// deletes that Renew at its next pass and makes it again, over and over,
// until its certificate changes.
//
// This provider answers such a Renew like any other (renew_provider.go):
// with the current authParams of the Tenant or ResourceSlice, whose
// certificate it renews by itself from 2/3 of the validity from their own
// CSR, which was verified when they were accepted. The Renew's CSR is
// checked, and a mismatch reported, but never signed: a Liqo v1.1 consumer's
// is byte for byte the Tenant's (same key, same subject); a Liqo v1.0
// consumer's names the provider in its CN (fixed in v1.1); and signing each
// ask would mint a certificate at every turn of that loop.
//
// What the consumer does with the answer is up to it. Liqo v1.0–v1.1 renew a
// ResourceSlice Identity from the slice's status, which this provider
// renews; but nothing in them reads a Renew's status, so their ControlPlane
// Identity keeps the certificate of the handshake whatever the provider does
// (re-running the authentication, which reads the Tenant's renewed status,
// renews it).

// renewCSRWarnings remembers the last CSR Warning per Renew (namespace/name):
// a Liqo v1.0–v1.1 consumer re-creates its Renew at every pass, each a new
// object the Event spam filter knows nothing about.
type renewCSRWarnings struct {
	mu   sync.Mutex
	last map[string]string
}

// first reports whether message is new for the Renew key.
func (w *renewCSRWarnings) first(key, message string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last == nil {
		w.last = map[string]string{}
	}
	if w.last[key] == message {
		return false
	}
	w.last[key] = message
	return true
}

// checkAskedRenewal checks the CSR and public key of a Renew that carries
// them against the consumer and its Tenant, as the Tenant's and slices' are
// (§6.2 step 5, §10.1), and warns once per Renew name about a mismatch. The
// answer does not depend on them.
func (w *renewStatusWriter) checkAskedRenewal(ctx context.Context, renew *authv1beta1.Renew, tenant *authv1beta1.Tenant, consumer string) {
	if len(renew.Spec.CSR) == 0 && len(renew.Spec.PublicKey) == 0 {
		return // a Liqo v1.2 Renew: nothing asked
	}
	err := askedRenewalError(renew, tenant, consumer)
	if err == nil {
		return
	}
	message := fmt.Sprintf("The CSR of this Renew is not used, and the answer is the certificate this provider renews by itself: %v", err)
	if w.warned.first(renew.Namespace+"/"+renew.Name, message) {
		w.events.warning(ctx, renew, ReasonInvalidCSR, message)
	}
}

// askedRenewalError is what is wrong with the CSR and public key of a Renew.
func askedRenewalError(renew *authv1beta1.Renew, tenant *authv1beta1.Tenant, consumer string) error {
	var tenantKey stdcrypto.PublicKey // nil: the Tenant tolerates no handshake
	if tenant.Spec.AuthzPolicy != authv1beta1.TolerateNoHandshake {
		k, err := authcrypto.ParsePublicKey(tenant.Spec.PublicKey)
		if err != nil {
			return fmt.Errorf("the Tenant's public key: %w", err)
		}
		tenantKey = k
	}
	if len(renew.Spec.PublicKey) > 0 {
		k, err := authcrypto.ParseRenewPublicKey(renew.Spec.PublicKey)
		if err != nil {
			return fmt.Errorf("spec.publicKey: %w", err)
		}
		if tenantKey != nil && !authcrypto.SamePublicKey(k, tenantKey) {
			return fmt.Errorf("spec.publicKey is not the key of consumer %s's Tenant: its key pair changed since the handshake (re-run the authentication)", consumer)
		}
	}
	if len(renew.Spec.CSR) == 0 {
		return nil
	}
	switch renew.Spec.IdentityType {
	case authv1beta1.ControlPlaneIdentityType:
		if tenantKey == nil {
			return nil
		}
		err := authcrypto.CheckCSR(renew.Spec.CSR, consumer, tenantKey)
		if err != nil && strings.HasPrefix(err.Error(), "invalid common name") {
			// Liqo v1.0's renewer puts the provider's cluster ID there.
			return fmt.Errorf("%w (a Liqo v1.0 consumer names its provider there, a bug fixed in v1.1)", err)
		}
		return err
	case authv1beta1.ResourceSliceIdentityType:
		if ref := renew.Spec.ResourceSliceRef; ref != nil {
			return authcrypto.CheckResourceSliceCSR(renew.Spec.CSR, ref.Name, consumer, tenantKey)
		}
	}
	return nil
}
