package kube

import (
	"context"
	"fmt"
	"time"

	certv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CSRRequest asks the cluster's CA for a client certificate.
type CSRRequest struct {
	// PEM is the PKCS#10 request, passed to the API unchanged.
	PEM []byte
	// GenerateName prefixes the CertificateSigningRequest name.
	GenerateName string
	// Name, when set, is the exact name of the CertificateSigningRequest
	// (GenerateName is then not used).
	Name   string
	Labels map[string]string
	// Approval reason and message recorded on the CSR.
	Reason, Message string
	// KeepObject leaves the CertificateSigningRequest in place once the
	// certificate is read (Liqo does; by default we delete it).
	KeepObject bool
	// Wait, when set, waits (bounded by ctx) for the named CSR to be signed
	// and returns it, typically from a shared informer; by default each
	// issuance watches its own CSR (a list and a watch request).
	Wait func(ctx context.Context, name string) (*certv1.CertificateSigningRequest, error)
	// Created, when set, is told the name of the CSR object once created.
	Created func(name string)
	// Reuse, when set, returns a CertificateSigningRequest an earlier,
	// interrupted issuance already made for PEM (nil: none). It is approved
	// when it is not yet and waited for instead of creating another, so
	// that a controller killed mid-issuance and started again does not
	// have a second certificate signed for the same request. Reused, when
	// set, is told its name.
	Reuse  func() *certv1.CertificateSigningRequest
	Reused func(name string)
}

// CSRSigned tells whether a CSR got its certificate; a Denied or Failed
// condition is an error.
func CSRSigned(csr *certv1.CertificateSigningRequest) (bool, error) {
	for _, cond := range csr.Status.Conditions {
		if cond.Type == certv1.CertificateDenied || cond.Type == certv1.CertificateFailed {
			return false, fmt.Errorf("CertificateSigningRequest %s %s: %s", csr.Name, cond.Type, cond.Message)
		}
	}
	return len(csr.Status.Certificate) > 0, nil
}

// CSRApproved tells whether a CSR carries the Approved condition.
func CSRApproved(csr *certv1.CertificateSigningRequest) bool {
	for _, cond := range csr.Status.Conditions {
		if cond.Type == certv1.CertificateApproved && cond.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// CSRWaitWhat is what waiting for a CSR's certificate waits for (error texts).
func CSRWaitWhat(name string) string {
	return "certificate of CertificateSigningRequest " + name + " (is kube-controller-manager's csrsigning controller running?)"
}

// IssueCertificate creates a kube-apiserver-client CertificateSigningRequest,
// approves it, waits (watching, bounded by ctx) for the certificate and
// returns it as PEM.
func (c *Cluster) IssueCertificate(ctx context.Context, r CSRRequest) ([]byte, error) {
	csrs := c.Kube.CertificatesV1().CertificateSigningRequests()
	obj := &certv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: r.Name, GenerateName: r.GenerateName, Labels: r.Labels},
		Spec: certv1.CertificateSigningRequestSpec{
			Request:    r.PEM,
			SignerName: KubeAPIServerClientSignerName,
			Usages:     []certv1.KeyUsage{certv1.UsageDigitalSignature, certv1.UsageKeyEncipherment, certv1.UsageClientAuth},
			Groups:     []string{"system:authenticated"},
		},
	}
	var created *certv1.CertificateSigningRequest
	if r.Reuse != nil {
		created = r.Reuse()
	}
	reused := created != nil
	if reused {
		created = created.DeepCopy()
		if r.Reused != nil {
			r.Reused(created.Name)
		}
	} else {
		var err error
		if created, err = csrs.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("creating CertificateSigningRequest: %w", err)
		}
		if r.Created != nil {
			r.Created(created.Name)
		}
	}
	if !CSRApproved(created) {
		// Sent without managed fields, the server keeps its own and does
		// not decode and check ours.
		created.ManagedFields = nil
		created.Status.Conditions = append(created.Status.Conditions, certv1.CertificateSigningRequestCondition{
			Type: certv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: r.Reason, Message: r.Message,
		})
		if _, err := csrs.UpdateApproval(ctx, created.Name, created, metav1.UpdateOptions{}); err != nil {
			if !reused { // a reused one is left to the next attempt
				c.deleteCSR(created.Name)
			}
			return nil, fmt.Errorf("approving CertificateSigningRequest %s: %w", created.Name, err)
		}
	}
	var (
		signed *certv1.CertificateSigningRequest
		err    error
	)
	if r.Wait != nil {
		signed, err = r.Wait(ctx, created.Name)
	} else {
		signed, err = WaitFor(ctx, ListWatch(csrs.List, csrs.Watch, ByName(created.Name)), CSRWaitWhat(created.Name), CSRSigned)
	}
	if err != nil {
		return nil, err
	}
	if !r.KeepObject {
		c.deleteCSR(created.Name)
	}
	return signed.Status.Certificate, nil
}

// deleteCSR removes a CSR object we created; failing to is not fatal (the
// API server garbage-collects issued CSRs after an hour).
func (c *Cluster) deleteCSR(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = c.Kube.CertificatesV1().CertificateSigningRequests().Delete(ctx, name, metav1.DeleteOptions{})
}
