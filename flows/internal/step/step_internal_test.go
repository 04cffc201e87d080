package step

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// A step whose request got no answer fails with the server, the class and
// a hint, and what it was doing, not client-go's URL chain.
func TestShortenRequestError(t *testing.T) {
	request := func(cause error) error {
		return &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/api/v1/namespaces?labelSelector=liqo.io%2Fremote-cluster-id%3Dx",
			Err: &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: cause}}}
	}
	refused := fmt.Errorf("looking up the tenant namespace of cluster x: %w", request(syscall.ECONNREFUSED))
	got := shortenRequestError(refused)
	assert.Equal(t, "looking up the tenant namespace of cluster x: cannot use the API server https://127.0.0.1:6443: connect: connection refused"+
		" (check that the API server is running and the address and port are right)", got.Error())
	assert.ErrorIs(t, got, syscall.ECONNREFUSED, "the cause stays reachable")
	var reach *kube.ReachError
	assert.True(t, errors.As(got, &reach))

	lost := shortenRequestError(request(syscall.ECONNRESET))
	assert.Contains(t, lost.Error(), "cannot use the API server https://127.0.0.1:6443: connection lost: connect: connection reset by peer")

	broken := shortenRequestError(request(syscall.EPIPE))
	assert.Contains(t, broken.Error(), "connection lost: connect: broken pipe")

	// An error that says it in its own words (a Liqo 0.x auth server
	// unreachable) is not glued to an "API server" line.
	own := &liqo0x.AuthError{URL: "https://10.0.0.5:31443", Refusal: liqo0x.Unreachable, Err: request(syscall.ECONNREFUSED)}
	assert.Same(t, error(own), shortenRequestError(own))

	plain := errors.New("nonce secret already exists with a different nonce")
	assert.Same(t, plain, shortenRequestError(plain), "other errors are kept as they are")
	assert.NoError(t, shortenRequestError(nil))
}
