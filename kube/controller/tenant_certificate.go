package controller

import (
	"bytes"
	"context"
	"fmt"
	"time"

	certv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// authParams fills status.authParams (§6.2 step 7, §6.3, §6.4): the cached
// certificate of spec.csr, or a new one when there is none or it reached 2/3
// of its lifetime. It returns when to look again (renewal) and whether the
// certificate in the status was replaced by a newer one.
//
// When the status certificate is due, the cache is skipped and spec.csr
// signed, whatever CSR the cache holds (Liqo's EnsureCertificate with
// IsRenew): so a consumer re-installed with new keys under the same
// cluster ID gets its certificate at the latest at the old one's renewal
// (before, the cache's CSR mismatch is refused with its fix).
func (r *tenantReconciler) authParams(ctx context.Context, t *authv1beta1.Tenant, status *authv1beta1.TenantStatus) (time.Duration, bool, error) {
	now := r.clock()
	var old []byte
	renew := false
	if p := status.AuthParams; p != nil && len(p.SignedCRT) > 0 {
		old = p.SignedCRT
		due, _, err := renewalDue(old, now)
		if err != nil {
			r.events.warning(ctx, t, ReasonCertificateRenewalCheckFailed, err.Error())
			return 0, false, err
		}
		renew = due
	}
	var cert []byte
	var secret *corev1.Secret
	var err error
	if !renew {
		cert, secret, err = r.cachedCertificate(ctx, status.TenantNamespace, t.Spec.CSR, old, now)
	}
	if err != nil {
		r.events.warning(ctx, t, ReasonAuthParamsFailed, err.Error())
		return 0, false, err
	}
	// A cached certificate past its 2/3 point (or unreadable) is replaced.
	// The status one is only compared: after a lost status update the
	// cache may already hold its successor, which is then reused.
	if cert != nil {
		if due, _, err := renewalDue(cert, now); err != nil || due {
			cert = nil
		}
	}
	if cert == nil {
		if cert, err = r.issue(ctx, t, status.TenantNamespace, secret, renew); err != nil {
			r.events.warning(ctx, t, ReasonAuthParamsFailed, err.Error())
			return 0, false, err
		}
	}
	_, requeueAfter, err := renewalDue(cert, now)
	if err != nil {
		return 0, false, err // not a certificate: the CA answered garbage
	}
	if parsed, err := authcrypto.ParseCertificatePEM(cert); err == nil {
		observeCertificate(t.Spec.ClusterID, parsed.NotAfter)
	}
	params, err := r.adv.forTenant(ctx, t, cert)
	if err != nil {
		r.events.warning(ctx, t, ReasonAuthParamsFailed, err.Error())
		return 0, false, err
	}
	status.AuthParams = params
	renewed := old != nil && !bytes.Equal(old, cert)
	return requeueAfter, renewed, nil
}

// issue has the Tenant's CSR signed by the cluster's CA (§6.3 steps 2–5)
// and stores the certificate in the cache Secret: created when there was
// none (current nil), else updated from current; on a renewal (replace)
// written over whatever CSR it held, as Liqo's CreateOrUpdate does. The wait for the signer
// is served by the shared CSR informer, and the CSR object is deleted with
// the others of its batch once the certificate is stored.
func (r *tenantReconciler) issue(ctx context.Context, t *authv1beta1.Tenant, namespace string, current *corev1.Secret, replace bool) (_ []byte, err error) {
	// written: the certificate is in the cache Secret. An issuance the
	// stopping run gives up before that leaves its CSR to the next run.
	written := false
	req := kube.CSRRequest{PEM: t.Spec.CSR, GenerateName: kube.IdentityCSRGenerateName,
		Reason: kube.IdentityApprovalReason, Message: kube.IdentityApprovalMessage, KeepObject: r.o.KeepCSRs}
	if r.caches != nil && r.caches.csrs != nil {
		batch, labels := r.caches.csrs.begin()
		defer r.caches.csrs.finish(ctx, batch)
		req.Labels, req.KeepObject, req.Wait = labels, true, r.caches.csrs.wait
		var csrName string
		req.Created = func(name string) { csrName = name; r.caches.csrs.created(batch, name) }
		req.Reused = func(name string) { csrName = name; r.caches.csrs.adopted(batch, name) }
		now := r.clock()
		req.Reuse = func() *certv1.CertificateSigningRequest { return r.caches.csrs.reusable(t.Spec.CSR, now) }
		defer func() {
			if ctx.Err() != nil && csrName != "" && !written {
				r.caches.csrs.leave(batch, csrName)
			}
		}()
	} else {
		req.Labels = map[string]string{kube.RemoteTenantCSRLabel: "true"}
	}
	issueCtx, cancel := context.WithTimeout(ctx, r.o.CertificateTimeout)
	defer cancel()
	cert, err := r.c.IssueCertificate(issueCtx, req)
	if err != nil {
		return nil, fmt.Errorf("issuing the certificate of cluster %s: %w", t.Spec.ClusterID, err)
	}
	var stored *corev1.Secret
	switch {
	case replace:
		_, err = r.c.StoreCertificateIn(ctx, namespace, kube.RemoteCertSecretName, t.Spec.ClusterID, t.Spec.CSR, cert)
	case current == nil:
		stored, err = r.c.CreateCertificateSecret(ctx, namespace, t.Spec.ClusterID, t.Spec.CSR, cert)
	case isCertSkeleton(current): // the cache's: the update starts from the Secret as it is
		stored, err = r.c.UpdateCertificateSecret(ctx, namespace, t.Spec.ClusterID, t.Spec.CSR, cert, nil)
	default:
		stored, err = r.c.UpdateCertificateSecret(ctx, namespace, t.Spec.ClusterID, t.Spec.CSR, cert, current)
	}
	if err != nil {
		return nil, err
	}
	written = true
	if r.caches != nil && r.caches.certs != nil && stored != nil {
		if cached, err := certSecretSkeleton(stored); err == nil {
			r.caches.certs.wrote(cached.(*corev1.Secret))
		}
	}
	return cert, nil
}

// renewalDue tells whether a certificate reached the 2/3 point of its
// validity, when Liqo renews it, and otherwise when to look again: 1.1 ×
// the time left to that point, so that the check lands just after it.
func renewalDue(certPEM []byte, now time.Time) (due bool, requeueAfter time.Duration, err error) {
	at, err := kube.CertificateRenewalTime(certPEM)
	if err != nil {
		return false, 0, fmt.Errorf("checking the certificate for renewal: %w", err)
	}
	due, requeueAfter = renewalSchedule(at, now)
	return due, requeueAfter, nil
}

func renewalSchedule(at, now time.Time) (due bool, requeueAfter time.Duration) {
	left := at.Sub(now)
	if left <= 0 {
		return true, 0
	}
	return false, left + left/10
}

func (r *tenantReconciler) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}
