package kube

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// FailureClass names why a cluster could not be used, for one-line reports.
type FailureClass string

const (
	FailureDNS          FailureClass = "DNS"
	FailureRefused      FailureClass = "connection refused"
	FailureTLS          FailureClass = "TLS"
	FailureUnauthorized FailureClass = "401 unauthorized"
	FailureForbidden    FailureClass = "403 forbidden"
	FailureTimeout      FailureClass = "timeout"
	FailureOther        FailureClass = "error"
)

// ClassifyError tells which kind of failure err is and what the admin can do.
func ClassifyError(err error) (FailureClass, string) {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recordErr tls.RecordHeaderError
	var netErr net.Error
	switch {
	case errors.As(err, &dnsErr):
		return FailureDNS, "check the server address in the kubeconfig and your DNS"
	case errors.Is(err, syscall.ECONNREFUSED):
		return FailureRefused, "check that the API server is running and the address and port are right"
	case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr), errors.As(err, &recordErr):
		return FailureTLS, "the server certificate does not match the kubeconfig's CA or server name"
	case apierrors.IsUnauthorized(err):
		return FailureUnauthorized, "the kubeconfig's credentials are not accepted: renew them"
	case apierrors.IsForbidden(err):
		return FailureForbidden, "the kubeconfig's user lacks the permission named above"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &netErr) && netErr.Timeout(), apierrors.IsTimeout(err), apierrors.IsServerTimeout(err):
		return FailureTimeout, "the API server did not answer in time: check the network path to it"
	}
	return FailureOther, ""
}

// ReachError wraps a failure to use a cluster with the server and the class.
type ReachError struct {
	Server string
	Class  FailureClass
	Hint   string
	Err    error
}

func (e *ReachError) Error() string {
	msg := fmt.Sprintf("cannot use the API server %s: %s: %s", e.Server, e.Class, rootCause(e.Err))
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

func (e *ReachError) Unwrap() error { return e.Err }

// Reach wraps err (from a request to server) in a classified ReachError.
func Reach(server string, err error) error {
	if err == nil {
		return nil
	}
	class, hint := ClassifyError(err)
	return &ReachError{Server: server, Class: class, Hint: hint, Err: err}
}

// rootCause strips the "Get \"https://...\": dial tcp ...:" chain that
// client-go builds, keeping the innermost message that still says something.
func rootCause(err error) string {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Err != nil {
		return opErr.Err.Error()
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().Message
	}
	return err.Error()
}
