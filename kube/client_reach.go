package kube

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// FailureClass names why a cluster could not be used, for one-line reports.
type FailureClass string

const (
	FailureDNS          FailureClass = "DNS"
	FailureRefused      FailureClass = "connection refused"
	FailureLost         FailureClass = "connection lost"
	FailureTLS          FailureClass = "TLS"
	FailureUnauthorized FailureClass = "401 unauthorized"
	FailureForbidden    FailureClass = "403 forbidden"
	FailureTimeout      FailureClass = "timeout"
	FailureProxy        FailureClass = "proxy"
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
	case isProxyConnect(err):
		// First: a proxy that cannot be reached also looks refused or timed out.
		return FailureProxy, "is the proxy running? check its address: --proxy-url, or proxy-url in the kubeconfig"
	case errors.As(err, &dnsErr):
		return FailureDNS, "check the server address in the kubeconfig and your DNS"
	case errors.Is(err, syscall.ECONNREFUSED):
		return FailureRefused, "check that the API server is running and the address and port are right"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		// The server went away mid-request (restarted, crashed, a proxy cut).
		return FailureLost, "the API server closed the connection: is it restarting? run the command again once it answers"
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

// isProxyConnect tells whether err is net/http's failure to reach the
// proxy itself (dial or TLS to the proxy): a net.OpError "proxyconnect".
func isProxyConnect(err error) bool {
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "proxyconnect"
}

// ReachError wraps a failure to use a cluster with the server and the class.
type ReachError struct {
	Server string
	Proxy  string // the proxy on the way to Server, "" = direct or unknown
	Class  FailureClass
	Hint   string
	Err    error
}

func (e *ReachError) Error() string {
	var msg string
	switch {
	case e.Class == FailureProxy:
		proxy := "its proxy"
		if e.Proxy != "" {
			proxy = "the proxy " + e.Proxy
		}
		msg = fmt.Sprintf("cannot reach the API server %s through %s: %s", e.Server, proxy, RootCause(e.Err))
	case e.Proxy != "":
		msg = fmt.Sprintf("cannot use the API server %s through the proxy %s: %s: %s", e.Server, e.Proxy, e.Class, RootCause(e.Err))
	case strings.Contains(RootCause(e.Err), string(e.Class)):
		// "connection refused" once, not "connection refused: connect: connection refused"
		msg = fmt.Sprintf("cannot use the API server %s: %s", e.Server, RootCause(e.Err))
	default:
		msg = fmt.Sprintf("cannot use the API server %s: %s: %s", e.Server, e.Class, RootCause(e.Err))
	}
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

// RootCause strips the "Get \"https://...\": dial tcp ...:" chain that
// client-go builds, keeping the innermost message that still says something.
func RootCause(err error) string {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Err != nil {
		// "proxyconnect" wraps the dial to the proxy: keep its cause.
		for inner := opErr; errors.As(inner.Err, &inner) && inner.Err != nil; {
			opErr = inner
		}
		return opErr.Err.Error()
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().Message
	}
	return err.Error()
}
