package peerinfo_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// An --auth-url must be https with only a host and a port.
func TestValidateAuthURL(t *testing.T) {
	got, err := peerinfo.ValidateAuthURL(" https://auth.example.com:8443/ ")
	require.NoError(t, err)
	assert.Equal(t, "https://auth.example.com:8443", got)
	for _, bad := range []string{"http://auth.example.com", "auth.example.com", "https://", "https://a.example.com/path", "https://u:p@a.example.com", "ftp://a"} {
		_, err := peerinfo.ValidateAuthURL(bad)
		assert.Error(t, err, bad)
	}
}

// Screens show a token's ends only; a short one not at all.
func TestMaskToken(t *testing.T) {
	token := strings.Repeat("ab", peerinfo.TokenLength/2)
	assert.Equal(t, "abab••••••••abab", peerinfo.MaskToken(token))
	assert.Equal(t, "•••", peerinfo.MaskToken("abc"))
	info := &peerinfo.Info{Token: token}
	assert.Equal(t, peerinfo.MaskToken(token), info.MaskedToken())
}
