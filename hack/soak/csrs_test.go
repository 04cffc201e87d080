package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	certv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A CSR left behind is told by name, state, age and requestor.
func TestDescribeCSRs(t *testing.T) {
	now := time.Date(2026, 11, 27, 22, 0, 0, 0, time.UTC)
	csr := func(name string, age time.Duration, status certv1.CertificateSigningRequestStatus) *certv1.CertificateSigningRequest {
		return &certv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(now.Add(-age)),
			Labels: map[string]string{"liqo.io/remote-tenant-csr": "true"}},
			Spec: certv1.CertificateSigningRequestSpec{Username: "system:serviceaccount:liqo:liqo-auth-controller"}, Status: status}
	}
	got := describeCSRs(map[string]*certv1.CertificateSigningRequest{
		"b": csr("b", 4*time.Minute, certv1.CertificateSigningRequestStatus{Conditions: []certv1.CertificateSigningRequestCondition{{Type: certv1.CertificateApproved}}}),
		"a": csr("a", 90*time.Second, certv1.CertificateSigningRequestStatus{}),
		"c": csr("c", time.Minute, certv1.CertificateSigningRequestStatus{Certificate: []byte("x")}),
	}, now)
	assert.Equal(t, []string{
		"a (pending, 1m30s old, by system:serviceaccount:liqo:liqo-auth-controller, labels map[liqo.io/remote-tenant-csr:true])",
		"b (Approved, 4m0s old, by system:serviceaccount:liqo:liqo-auth-controller, labels map[liqo.io/remote-tenant-csr:true])",
		"c (issued, 1m0s old, by system:serviceaccount:liqo:liqo-auth-controller, labels map[liqo.io/remote-tenant-csr:true])",
	}, got)
}
