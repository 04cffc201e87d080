package crypto

import (
	stdcrypto "crypto"
	"crypto/ed25519"
	"crypto/x509/pkix"
	"encoding/asn1"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The hash suffix, checked against `printf consumer-cluster | openssl dgst
// -sha256` (first 12 hex characters).
func TestConsumerHashVector(t *testing.T) {
	assert.Equal(t, "82e62ffb9561", ConsumerHash(vectorClusterID))
	assert.Equal(t, "my-slice-82e62ffb9561", ResourceSliceCommonName("my-slice", vectorClusterID))
}

func TestNewResourceSliceCSRShape(t *testing.T) {
	for _, k := range testKeys(t) {
		t.Run(k.name, func(t *testing.T) {
			csrPEM, err := NewResourceSliceCSR(k.priv, "my-slice", vectorClusterID)
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(string(csrPEM), "-----BEGIN CERTIFICATE REQUEST-----\n"))
			assert.True(t, strings.HasSuffix(string(csrPEM), "-----END CERTIFICATE REQUEST-----\n"))
			assert.False(t, strings.HasSuffix(string(csrPEM), "\n\n"))
			assert.Equal(t, 1, strings.Count(string(csrPEM), "-----BEGIN "))

			csr, err := ParseCSR(csrPEM)
			require.NoError(t, err)
			assert.Equal(t, 0, csr.Version)
			assert.Empty(t, csr.Extensions)

			// Subject: exactly O=<consumerID> then CN=<slice>-<hash>.
			var rdns pkix.RDNSequence
			rest, err := asn1.Unmarshal(csr.RawSubject, &rdns)
			require.NoError(t, err)
			require.Empty(t, rest)
			require.Len(t, rdns, 2)
			assert.Equal(t, oidOrganization, rdns[0][0].Type)
			assert.Equal(t, vectorClusterID, rdns[0][0].Value)
			assert.Equal(t, oidCommonName, rdns[1][0].Type)
			assert.Equal(t, "my-slice-82e62ffb9561", rdns[1][0].Value)

			assert.NoError(t, CheckResourceSliceCSR(csrPEM, "my-slice", vectorClusterID, k.priv.Public()))
			assert.NoError(t, CheckResourceSliceCSR(csrPEM, "my-slice", vectorClusterID, nil), "no key to compare (TolerateNoHandshake)")
		})
	}
}

// Same key, slice and consumer: same bytes (Ed25519), so the provider's
// cache keyed on the CSR bytes is hit again.
func TestNewResourceSliceCSRDeterministicForEd25519(t *testing.T) {
	a, err := NewResourceSliceCSR(vectorKey(), "s", vectorClusterID)
	require.NoError(t, err)
	b, err := NewResourceSliceCSR(vectorKey(), "s", vectorClusterID)
	require.NoError(t, err)
	assert.Equal(t, a, b)
}

func TestNewResourceSliceCSRRejects(t *testing.T) {
	_, err := NewResourceSliceCSR(vectorKey(), "", vectorClusterID)
	assert.ErrorContains(t, err, "empty slice name")
	_, err = NewResourceSliceCSR(vectorKey(), "s", "Not_An_ID")
	assert.ErrorContains(t, err, "invalid cluster ID")
	_, err = NewResourceSliceCSR(ed25519.PrivateKey{1, 2}, "s", vectorClusterID)
	assert.ErrorContains(t, err, "invalid Ed25519 private key length")
}

func TestCheckResourceSliceCSRErrors(t *testing.T) {
	key := vectorKey()
	other := testKeys(t)[2].priv
	good, err := NewResourceSliceCSR(key, "s", vectorClusterID)
	require.NoError(t, err)
	cn := ResourceSliceCommonName("s", vectorClusterID)
	cases := []struct {
		name string
		csr  []byte
		pub  stdcrypto.PublicKey
		want string
	}{
		{"trailing data", append(append([]byte{}, good...), 'x'), key.Public(), "invalid CSR: trailing data"},
		{"wrong slice in CN", mustSliceCSR(t, key, "other", vectorClusterID), key.Public(), `invalid common name: CSR is for "other-82e62ffb9561", want "s-82e62ffb9561"`},
		{"hash of another consumer", makeCSR(t, key, pkix.Name{Organization: []string{vectorClusterID}, CommonName: ResourceSliceCommonName("s", "someone")}), key.Public(), "invalid common name"},
		{"control-plane O", makeCSR(t, key, pkix.Name{Organization: []string{"liqo.io"}, CommonName: cn}), key.Public(), `invalid organization: CSR organization is "liqo.io", want "consumer-cluster"`},
		{"no O", makeCSR(t, key, pkix.Name{CommonName: cn}), key.Public(), "invalid organization: CSR has no organization"},
		{"another key", mustSliceCSR(t, other, "s", vectorClusterID), key.Public(), "invalid public key: the CSR key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckResourceSliceCSR(tc.csr, "s", vectorClusterID, tc.pub)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func mustSliceCSR(t *testing.T, k stdcrypto.Signer, slice, consumer string) []byte {
	t.Helper()
	csr, err := NewResourceSliceCSR(k, slice, consumer)
	require.NoError(t, err)
	return csr
}
