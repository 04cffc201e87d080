package crypto

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewUserCSR(t *testing.T) {
	// A peering user's name is longer than a cluster ID may be (§9.4).
	name := "liqo-peer-user-" + string(bytes.Repeat([]byte("c"), 63)) + "-0123456789abcdef0123456789abcdef"
	for _, k := range testKeys(t) {
		csrPEM, err := NewUserCSR(k.priv, name)
		require.NoError(t, err, k.name)
		csr, err := ParseCSR(csrPEM)
		require.NoError(t, err, k.name)
		assert.Equal(t, name, csr.Subject.CommonName, k.name)
		assert.Equal(t, []string{"liqo.io"}, csr.Subject.Organization, k.name)
		require.NoError(t, csr.CheckSignature(), k.name)
		assert.True(t, SamePublicKey(k.priv.Public(), csr.PublicKey), k.name)
	}
	_, err := NewUserCSR(testKeys(t)[0].priv, "")
	assert.ErrorContains(t, err, "empty user name")
}
