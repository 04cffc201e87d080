package tui

import (
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// liqo0xFake is the Liqo 0.x part of the fake backend: what it answers,
// scripted errors, and the options it was called with.
type liqo0xFake struct {
	// errs are returned, first to last, by the next calls of a method
	// (by name); then failOp's, then success.
	errs map[string][]error
	// authDisabled: the provider accepts any token (Warning, result).
	authDisabled bool
	// result is what ApplyPeerInfo and AuthenticateLiqo0x return (nil:
	// fakeLiqo0xResult).
	result *Liqo0xResult
	// opts are the options of every ApplyPeerInfo/AuthenticateLiqo0x call.
	opts []Liqo0xOptions
}

// The fake provider's token and peer info: Data encodes the token, the
// Preview masks it, Equivalent carries it, MaskedEquivalent masks it.
var (
	fakeToken        = strings.Repeat("0123456789abcdef", 8)
	fakeTokenMasked  = "0123••••••••cdef"
	fakeAuthURL      = "https://172.18.0.2:30443"
	fakePeerInfoData = handshake.PeerInfoPrefix + base64.RawURLEncoding.EncodeToString(
		[]byte(`{"clusterID":"provider-1","clusterName":"provider-one","authURL":"`+fakeAuthURL+`","token":"`+fakeToken+`","version":"v0.10.3","line":"v0.4+"}`)) + ".1a2b3c4d"
	fakePeerInfoPreview = "provider provider-1 (provider-one), Liqo v0.10.3\nauth URL: " + fakeAuthURL + "\ntoken:    " + fakeTokenMasked
	fakeLiqoctl         = "liqoctl peer out-of-band provider-one --auth-url " + fakeAuthURL + " --cluster-id provider-1 --auth-token " + fakeToken
	fakeLiqoctlMasked   = "liqoctl peer out-of-band provider-one --auth-url " + fakeAuthURL + " --cluster-id provider-1 --auth-token " + fakeTokenMasked
	fakeDisabledWarning = "authentication is disabled on provider provider-1: anyone who reaches its auth server can peer with it"
)

func (f *fakeBackend) liqo0xCall(format string, args ...any) error {
	name, _, _ := strings.Cut(format, " ")
	f.mu.Lock()
	if q := f.liqo0x.errs[name]; len(q) > 0 {
		f.liqo0x.errs[name] = q[1:]
		f.calls = append(f.calls, fmt.Sprintf(format, args...))
		f.mu.Unlock()
		return q[0]
	}
	f.mu.Unlock()
	return f.record(format, args...)
}

func (f *fakeBackend) peerInfoArtifact() *Artifact {
	f.mu.Lock()
	defer f.mu.Unlock()
	art := &Artifact{Kind: handshake.KindPeerInfo, Data: []byte(fakePeerInfoData + "\n"), Preview: fakePeerInfoPreview, Masked: true,
		FromID: "provider-1", APIServer: fakeAuthURL, Equivalent: fakeLiqoctl, MaskedEquivalent: fakeLiqoctlMasked}
	if f.liqo0x.authDisabled {
		art.Warning = fakeDisabledWarning
	}
	return art
}

var fakeIssued = time.Date(2025, 12, 1, 9, 30, 0, 0, time.UTC)

func (f *fakeBackend) liqo0xResult() *Liqo0xResult {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.liqo0x.result != nil {
		cp := *f.liqo0x.result
		return &cp
	}
	return &Liqo0xResult{ConsumerID: "consumer-1", ProviderID: "provider-1", ByTool: true,
		IdentitySecret: "liqo-tenant-provider-1/kubeconfig-controlplane-provider-1", User: "consumer-1",
		Groups: []string{"liqo.io", "system:authenticated"}, Issued: fakeIssued, NotAfter: fakeExpiry,
		AuthenticationDisabled: f.liqo0x.authDisabled}
}

// liqo0xOpts are the options the fake was called with, in order.
func (f *fakeBackend) liqo0xOpts() []Liqo0xOptions {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Liqo0xOptions(nil), f.liqo0x.opts...)
}
