package controller

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	certlisters "k8s.io/client-go/listers/certificates/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The CSR cleaner on each kind of Tenant CSR, at a fixed time: another
// issuer's pending ones, ones still within the grace period and ones an
// issuance waits for stay (looked at again when the period ends); finished
// ones past it, issued, denied or failed, and this controller's own
// pending ones (its batch label) past it are deleted, with the UID as
// precondition so that a namesake created meanwhile is never deleted
// instead (a conflict, retried).
func TestFakeCSRCleaner(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const grace = time.Minute
	condition := func(c certv1.RequestConditionType) func(*certv1.CertificateSigningRequest) {
		return func(csr *certv1.CertificateSigningRequest) {
			csr.Status.Conditions = append(csr.Status.Conditions, certv1.CertificateSigningRequestCondition{Type: c, Status: corev1.ConditionTrue})
		}
	}
	issued := func(csr *certv1.CertificateSigningRequest) {
		condition(certv1.CertificateApproved)(csr)
		csr.Status.Certificate = []byte("-----BEGIN CERTIFICATE-----")
	}
	for _, tc := range []struct {
		name       string
		age        time.Duration
		batch      string // the tracker's batch label; "": issued by another (Liqo)
		waited     bool   // an issuance of this run waits for it
		status     func(*certv1.CertificateSigningRequest)
		inAPI      bool  // false: already gone from the API server
		deleteErr  error // what the API server answers the delete
		wantAfter  time.Duration
		wantDelete bool
		wantErr    func(error) bool
	}{
		{name: "pending, another issuer's", age: time.Hour, status: condition(certv1.CertificateApproved), inAPI: true},
		{name: "pending, ours, within the grace period", age: 20 * time.Second, batch: "run-1", status: func(*certv1.CertificateSigningRequest) {}, inAPI: true, wantAfter: 40 * time.Second},
		{name: "pending, ours, abandoned", age: 2 * time.Minute, batch: "run-1", status: func(*certv1.CertificateSigningRequest) {}, inAPI: true, wantDelete: true},
		{name: "approved, ours, abandoned", age: 2 * time.Minute, batch: "run-1", status: condition(certv1.CertificateApproved), inAPI: true, wantDelete: true},
		{name: "pending, ours, waited for", age: 2 * time.Minute, batch: "run-1", waited: true, status: func(*certv1.CertificateSigningRequest) {}, inAPI: true, wantAfter: grace},
		{name: "issued within the grace period", age: 20 * time.Second, status: issued, inAPI: true, wantAfter: 40 * time.Second},
		{name: "issued", age: 2 * time.Minute, status: issued, inAPI: true, wantDelete: true},
		{name: "denied", age: 2 * time.Minute, status: condition(certv1.CertificateDenied), inAPI: true, wantDelete: true},
		{name: "failed", age: 2 * time.Minute, status: condition(certv1.CertificateFailed), inAPI: true, wantDelete: true},
		{name: "already deleted", age: 2 * time.Minute, status: issued, wantDelete: true},
		{name: "replaced by a namesake", age: 2 * time.Minute, status: issued, inAPI: true, wantDelete: true,
			deleteErr: apierrors.NewConflict(certv1.Resource("certificatesigningrequests"), "liqo-identity-x",
				errors.New("Precondition failed: UID in precondition: uid-x, UID in object meta: uid-other")),
			wantErr: apierrors.IsConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			csr := &certv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "liqo-identity-x", UID: types.UID("uid-x"),
				CreationTimestamp: metav1.NewTime(now.Add(-tc.age)), Labels: map[string]string{kube.RemoteTenantCSRLabel: "true"}}}
			tc.status(csr)
			if tc.batch != "" {
				csr.Labels[csrBatchLabel] = tc.batch
			}
			idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			require.NoError(t, idx.Add(csr))
			if tc.inAPI {
				require.NoError(t, f.kube.Tracker().Add(csr))
			}
			if tc.deleteErr != nil {
				f.kube.PrependReactor("delete", "certificatesigningrequests", failing(-1, tc.deleteErr, nil))
			}
			r := &csrCleaner{c: f.cluster, csrs: certlisters.NewCertificateSigningRequestLister(idx), grace: grace, now: func() time.Time { return now },
				tracker: newCSRTracker(f.cluster, nil, nil, false)}
			if tc.waited { // as tracker.wait registers
				r.tracker.waiters[csr.Name] = map[chan struct{}]struct{}{make(chan struct{}, 1): {}}
			}

			after, err := r.sync(t.Context(), csr.Name)
			if tc.wantErr != nil {
				require.True(t, tc.wantErr(err), "%v", err)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.wantAfter, after)
			var deletes []k8stesting.DeleteActionImpl
			for _, a := range f.kube.Actions() {
				if d, ok := a.(k8stesting.DeleteActionImpl); ok {
					deletes = append(deletes, d)
				}
			}
			if !tc.wantDelete {
				assert.Empty(t, deletes)
				return
			}
			require.Len(t, deletes, 1)
			assert.Equal(t, csr.Name, deletes[0].Name)
			require.NotNil(t, deletes[0].DeleteOptions.Preconditions)
			assert.Equal(t, csr.UID, *deletes[0].DeleteOptions.Preconditions.UID)
		})
	}

	// A key whose CSR is not in the cache (deleted meanwhile) is done.
	f := newFixture(t)
	r := &csrCleaner{c: f.cluster, csrs: certlisters.NewCertificateSigningRequestLister(cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})), grace: grace}
	after, err := r.sync(t.Context(), "liqo-identity-gone")
	require.NoError(t, err)
	assert.Zero(t, after)
	assert.Empty(t, f.kube.Actions())
}
