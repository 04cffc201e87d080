package wizardbackend

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

const liqo0xToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" +
	"fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

func liqo0xInfo() *peerinfo.Info {
	return &peerinfo.Info{ClusterID: "p1", ClusterName: "milan", AuthURL: "https://10.0.0.5:30443", Token: liqo0xToken, Line: peerinfo.V04}
}

// The artifact hands over the line; what the screen shows never holds the
// token, the liqoctl equivalent carries it like Data, and a provider that
// accepts any token comes with a loud warning.
func TestPeerInfoArtifact(t *testing.T) {
	info := liqo0xInfo()
	a, err := peerInfoArtifact(info, "c1")
	require.NoError(t, err)
	back, err := artifact.ParsePeerInfo(a.Data)
	require.NoError(t, err)
	assert.Equal(t, info, back)
	assert.Equal(t, handshake.KindPeerInfo, a.Kind)
	assert.True(t, a.Masked)
	assert.False(t, a.Sensitive, "the line may go on the clipboard")
	assert.NotContains(t, a.Preview, liqo0xToken)
	assert.Contains(t, a.Preview, peerinfo.MaskToken(liqo0xToken))
	assert.Equal(t, a.Preview, a.Shown())
	assert.Equal(t, liqo0x.LiqoctlPeerCommand(info), a.Equivalent)
	assert.NotContains(t, a.MaskedEquivalent, liqo0xToken)
	assert.Contains(t, a.MaskedEquivalent, peerinfo.MaskToken(liqo0xToken))
	assert.Equal(t, "p1", a.FromID)
	assert.Equal(t, "c1", a.ForID)
	assert.Empty(t, a.Warning)

	info.AuthenticationDisabled = true
	a, err = peerInfoArtifact(info, "")
	require.NoError(t, err)
	assert.Equal(t, handshake.AuthenticationDisabledWarning(info.AuthURL), a.Warning)
}

func TestLiqo0xResultMapping(t *testing.T) {
	now := time.Now()
	r := &liqo0x.Result{ConsumerID: "c1", ProviderID: "p1", ByTool: true, AlreadyAuthenticated: true, IdentitySecret: "ns/s",
		User: "c1", Groups: []string{"liqo.io"}, Issued: now, NotAfter: now.Add(time.Hour), TLSVerified: true, AuthenticationDisabled: true,
		Kubeconfig: []byte("secret")}
	assert.Equal(t, &tui.Liqo0xResult{ConsumerID: "c1", ProviderID: "p1", ByTool: true, AlreadyAuthenticated: true, IdentitySecret: "ns/s",
		User: "c1", Groups: []string{"liqo.io"}, Issued: now, NotAfter: now.Add(time.Hour), TLSVerified: true, AuthenticationDisabled: true},
		liqo0xResult(r))
}

// A bad paste is refused before any cluster is dialed, in one line.
func TestCheckPeerInfoBadInput(t *testing.T) {
	b := New(time.Minute, flows.EngineOptions{})
	line, err := artifact.EncodePeerInfo(liqo0xInfo())
	require.NoError(t, err)
	ref := tui.ClusterRef{Kubeconfig: filepath.Join(t.TempDir(), "none")}
	_, err = b.CheckPeerInfo(context.Background(), ref, []byte(line[:len(line)-2]))
	f := failure(t, err)
	assert.Contains(t, f.Reason, "truncated")
	assert.NotContains(t, f.Reason, "\n")
	_, err = b.ApplyPeerInfo(context.Background(), ref, []byte("hello"), tui.Liqo0xOptions{}, nil)
	assert.Contains(t, failure(t, err).Reason, "not a peer info")
	// A good paste checks out even when the consumer is not reachable yet.
	a, err := b.CheckPeerInfo(context.Background(), ref, []byte(" "+line+"\n"))
	require.NoError(t, err)
	assert.Equal(t, line, strings.TrimSpace(string(a.Data)))
}
