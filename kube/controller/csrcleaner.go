package controller

import (
	"context"
	"time"

	certv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	certlisters "k8s.io/client-go/listers/certificates/v1"
	"k8s.io/client-go/tools/cache"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// csrCleanupMargin is added to the certificate timeout before a finished
// CSR counts as abandoned.
const csrCleanupMargin = 30 * time.Second

// csrCleaner deletes the finished Tenant CSRs (labelled
// liqo.io/remote-tenant-csr) that nobody will read any more, and those of
// its own issuances still pending once nobody waits for them: issuance
// deletes its own CSR once the certificate is stored, so these are the
// leftovers of timed-out or interrupted attempts, and of Liqo, which keeps
// them. It only runs when Options.KeepCSRs is false.
type csrCleaner struct {
	c     *kube.Cluster
	csrs  certlisters.CertificateSigningRequestLister
	certs cache.Store // certificate cache Secrets (skeletons); nil: always wait
	// namespaces finds a consumer's tenant namespace, where its cache
	// Secret is (zero: the default name, liqo-tenant-<ID>).
	namespaces tenantNamespaces
	grace      time.Duration // how long a reader may still need a finished CSR
	now        func() time.Time
	// tracker, when set, deletes its own CSRs in batches: those are left
	// to it (one request per batch instead of one per CSR).
	tracker *csrTracker
}

func (r *csrCleaner) sync(ctx context.Context, key string) (time.Duration, error) {
	_, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return 0, nil
	}
	csr, err := r.csrs.Get(name)
	if kube.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	done := finished(csr)
	if !done && !tracked(csr) {
		return 0, nil // its update will bring it back here
	}
	if r.tracker != nil && (r.tracker.pendingDeletion(csr) || r.tracker.waited(csr.Name)) {
		return r.grace, nil // its issuance waits for it, or its batch's deletion removes it: looked at again in case that failed
	}
	now := time.Now()
	if r.now != nil {
		now = r.now()
	}
	// Its certificate already stored, nobody reads it any more: the
	// leftover of a run killed before it deleted its CSRs.
	if wait := csr.CreationTimestamp.Add(r.grace).Sub(now); wait > 0 && (!done || !r.stored(csr)) {
		return wait, nil
	}
	err = r.c.Kube.CertificatesV1().CertificateSigningRequests().Delete(ctx, name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &csr.UID}})
	if kube.IsNotFound(err) {
		return 0, nil
	}
	return 0, err
}

// tracked tells whether this controller's tracker issued the CSR (its batch
// label). One of ours still pending past the grace period is abandoned:
// its issuance gave up without deleting it, as when the API server
// restarted and the create's answer was lost (the CSR made, its name
// unknown) or the approval or the deletion failed. A pending CSR of
// another issuer (Liqo's) may still be waited for: left to the API
// server, which removes pending ones after a day.
func tracked(csr *certv1.CertificateSigningRequest) bool {
	_, ok := csr.Labels[csrBatchLabel]
	return ok
}

// stored tells whether the CSR's certificate is the one in the cache
// Secret of its consumer (the CN of the certificate).
func (r *csrCleaner) stored(csr *certv1.CertificateSigningRequest) bool {
	if r.certs == nil || len(csr.Status.Certificate) == 0 {
		return false
	}
	cert, err := authcrypto.ParseCertificatePEM(csr.Status.Certificate)
	if err != nil {
		return false
	}
	namespace := kube.TenantNamespaceName(cert.Subject.CommonName)
	if r.namespaces.index != nil {
		if ns := r.namespaces.cached(cert.Subject.CommonName); ns != nil {
			namespace = ns.Name
		}
	}
	obj, ok, err := r.certs.GetByKey(namespace + "/" + kube.RemoteCertSecretName)
	if err != nil || !ok {
		return false
	}
	s, ok := obj.(*corev1.Secret)
	return ok && skeletonHolds(s, certSkeletonCertKey, csr.Status.Certificate)
}

// finished tells whether a CSR got its certificate or was refused.
func finished(csr *certv1.CertificateSigningRequest) bool {
	if len(csr.Status.Certificate) > 0 {
		return true
	}
	for _, c := range csr.Status.Conditions {
		if c.Type == certv1.CertificateDenied || c.Type == certv1.CertificateFailed {
			return true
		}
	}
	return false
}
