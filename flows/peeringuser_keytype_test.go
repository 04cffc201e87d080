package flows_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
)

// A peering user's key type: auto (or unset) leaves the choice to the
// provider's TLS compatibility mode; a wrong value names the three.
func TestParsePeeringUserKeyType(t *testing.T) {
	for s, want := range map[string]authcrypto.KeyType{"": "", "auto": "", "ed25519": authcrypto.KeyEd25519, "rsa": authcrypto.KeyRSA} {
		got, err := flows.ParsePeeringUserKeyType(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, got, s)
	}
	for _, s := range []string{"RSA", "dsa", "Auto"} {
		_, err := flows.ParsePeeringUserKeyType(s)
		assert.EqualError(t, err, `unknown key type "`+s+`": allowed values are "auto", "ed25519" and "rsa"`)
	}
}
