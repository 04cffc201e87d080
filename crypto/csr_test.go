package crypto

import (
	stdcrypto "crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	oidOrganization = asn1.ObjectIdentifier{2, 5, 4, 10}
	oidCommonName   = asn1.ObjectIdentifier{2, 5, 4, 3}
)

// makeCSR builds a CSR with an arbitrary subject, bypassing NewCSR's rules.
func makeCSR(t *testing.T, k stdcrypto.Signer, subject pkix.Name) []byte {
	t.Helper()
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: subject}, k)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func TestNewCSRShape(t *testing.T) {
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	require.NoError(t, err)
	keys := append(testKeys(t), testKey{name: "ECDSA-P384", priv: p384})
	wantAlg := map[string]x509.SignatureAlgorithm{
		"Ed25519":    x509.PureEd25519,
		"RSA-2048":   x509.SHA256WithRSA,
		"ECDSA-P256": x509.ECDSAWithSHA256,
		"ECDSA-P384": x509.ECDSAWithSHA384,
	}
	for _, k := range keys {
		t.Run(k.name, func(t *testing.T) {
			csrPEM, err := NewCSR(k.priv, vectorClusterID)
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(string(csrPEM), "-----BEGIN CERTIFICATE REQUEST-----\n"))
			assert.True(t, strings.HasSuffix(string(csrPEM), "-----END CERTIFICATE REQUEST-----\n"))
			assert.False(t, strings.HasSuffix(string(csrPEM), "\n\n"))

			csr, err := ParseCSR(csrPEM)
			require.NoError(t, err)
			assert.Equal(t, 0, csr.Version)
			assert.Equal(t, wantAlg[k.name], csr.SignatureAlgorithm)
			assert.Empty(t, csr.Extensions)
			assert.Empty(t, csr.Attributes) //nolint:staticcheck // checking that none are set
			assert.True(t, SamePublicKey(k.priv.Public(), csr.PublicKey))

			// Subject: exactly O=liqo.io then CN=<clusterID> (§5.4).
			var rdns pkix.RDNSequence
			rest, err := asn1.Unmarshal(csr.RawSubject, &rdns)
			require.NoError(t, err)
			require.Empty(t, rest)
			require.Len(t, rdns, 2)
			require.Len(t, rdns[0], 1)
			require.Len(t, rdns[1], 1)
			assert.Equal(t, oidOrganization, rdns[0][0].Type)
			assert.Equal(t, "liqo.io", rdns[0][0].Value)
			assert.Equal(t, oidCommonName, rdns[1][0].Type)
			assert.Equal(t, vectorClusterID, rdns[1][0].Value)

			assert.NoError(t, CheckCSR(csrPEM, vectorClusterID, k.priv.Public()))
		})
	}
}

func TestNewCSRRejects(t *testing.T) {
	_, err := NewCSR(vectorKey(), "Consumer_Cluster")
	assert.EqualError(t, err, `invalid cluster ID "Consumer_Cluster": must be a DNS-1123 label (lowercase letters, digits, '-', at most 63 characters)`)
	_, err = NewCSR(vectorKey(), "")
	assert.ErrorContains(t, err, `invalid cluster ID ""`)
	_, err = NewCSR(nil, vectorClusterID)
	assert.EqualError(t, err, "creating CSR: no private key given")
}

// TestCheckCSROpenSSL accepts CSRs made by `openssl req` (README.md).
func TestCheckCSROpenSSL(t *testing.T) {
	for _, f := range []struct{ key, csr string }{
		{"rsa-2048-private-key.pem", "openssl-rsa-2048-csr.pem"},
		{"ecdsa-p256-private-key.pem", "openssl-ecdsa-p256-csr.pem"},
	} {
		k, err := ParsePrivateKeyPEM(readTestdata(t, f.key))
		require.NoError(t, err)
		assert.NoError(t, CheckCSR(readTestdata(t, f.csr), vectorClusterID, k.Public()), f.csr)
	}
}

func TestCheckCSRLegacyRawKey(t *testing.T) {
	pub, err := ParsePublicKey(readBase64Testdata(t, "vector-public-key-raw.b64"))
	require.NoError(t, err)
	assert.NoError(t, CheckCSR(readTestdata(t, "vector-csr.pem"), vectorClusterID, pub))
}

func TestParseCSRAccepts(t *testing.T) {
	vector := readTestdata(t, "vector-csr.pem")
	for name, in := range map[string][]byte{
		"as written":        vector,
		"no final newline":  vector[:len(vector)-1],
		"CRLF line endings": []byte(strings.ReplaceAll(string(vector), "\n", "\r\n")),
	} {
		t.Run(name, func(t *testing.T) {
			csr, err := ParseCSR(in)
			require.NoError(t, err)
			assert.Equal(t, vectorClusterID, csr.Subject.CommonName)
		})
	}
}

func TestParseCSRErrorsSayInvalidCSR(t *testing.T) {
	for _, in := range []string{"", "garbage", string(readTestdata(t, "vector-csr.pem")) + "x"} {
		csr, err := ParseCSR([]byte(in))
		assert.Nil(t, csr)
		assert.ErrorContains(t, err, "invalid CSR: ")
	}
}

func TestCheckCSRRejects(t *testing.T) {
	vector := string(readTestdata(t, "vector-csr.pem"))
	k := vectorKey()
	pub := k.Public()
	keys := testKeys(t)
	otherKey, err := GenerateKey(KeyEd25519)
	require.NoError(t, err)
	otherFP, err := Fingerprint(otherKey.Public())
	require.NoError(t, err)
	vectorFP, err := Fingerprint(pub)
	require.NoError(t, err)

	block, _ := pem.Decode([]byte(vector))
	tampered := append([]byte(nil), block.Bytes...)
	tampered[len(tampered)-1] ^= 1 // last byte of the signature
	badSig := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: tampered}))

	tests := []struct {
		name      string
		csr       string
		clusterID string
		pub       stdcrypto.PublicKey
		wantErr   string
	}{
		{"trailing data", vector + "junk", vectorClusterID, pub, "invalid CSR: trailing data after PEM block: 4 extra bytes"},
		{"two newlines", vector + "\n", vectorClusterID, pub, `invalid CSR: trailing data after PEM block: 1 extra byte ("\n")`},
		{"two PEM blocks", vector + vector, vectorClusterID, pub, `invalid CSR: trailing data after PEM block: a second PEM block ("CERTIFICATE REQUEST")`},
		{"data before", "csr: |\n" + vector, vectorClusterID, pub, "invalid CSR: unexpected data before PEM block"},
		{"garbage", "garbage", vectorClusterID, pub, "invalid CSR: no PEM block found"},
		{"empty", "", vectorClusterID, pub, "invalid CSR: no PEM block found"},
		{"base64 of the PEM", "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K", vectorClusterID, pub, "invalid CSR: no PEM block found"},
		{"truncated", vector[:100], vectorClusterID, pub, "invalid CSR: no PEM block found: the data contains a malformed PEM block"},
		{"public key PEM", string(readTestdata(t, "vector-public-key.pem")), vectorClusterID, pub, `invalid CSR: unexpected PEM block type "PUBLIC KEY", want CERTIFICATE REQUEST`},
		{"legacy block type", strings.ReplaceAll(vector, "CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST"), vectorClusterID, pub, `invalid CSR: unexpected PEM block type "NEW CERTIFICATE REQUEST", want CERTIFICATE REQUEST`},
		{"certificate", string(selfSignedCertPEM(t)), vectorClusterID, pub, `invalid CSR: unexpected PEM block type "CERTIFICATE", want CERTIFICATE REQUEST`},
		{"garbage DER", "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n", vectorClusterID, pub, "invalid CSR: "},
		{"wrong CN", vector, "other-cluster", pub, `invalid common name: CSR is for "consumer-cluster", want "other-cluster"`},
		{"empty CN", string(makeCSR(t, k, pkix.Name{Organization: []string{"liqo.io"}})), vectorClusterID, pub, `invalid common name: CSR is for "", want "consumer-cluster"`},
		{"wrong O", string(makeCSR(t, k, pkix.Name{Organization: []string{"example.com"}, CommonName: vectorClusterID})), vectorClusterID, pub, `invalid organization: CSR organization is "example.com", want "liqo.io"`},
		// Both values share one DER SET, sorted by encoding: same length, so "example" comes first.
		{"liqo.io not first", string(makeCSR(t, k, pkix.Name{Organization: []string{"liqo.io", "example"}, CommonName: vectorClusterID})), vectorClusterID, pub, `invalid organization: CSR organization is "example", want "liqo.io"`},
		{"missing O", string(makeCSR(t, k, pkix.Name{CommonName: vectorClusterID})), vectorClusterID, pub, `invalid organization: CSR has no organization, want "liqo.io"`},
		{"another key", vector, vectorClusterID, otherKey.Public(), "invalid public key: the CSR key (Ed25519 " + vectorFP + ") is not the expected key (Ed25519 " + otherFP + ")"},
		{"RSA key expected", vector, vectorClusterID, keys[1].priv.Public(), "invalid public key: the CSR key (Ed25519 " + vectorFP + ") is not the expected key (RSA-2048 "},
		{"no key", vector, vectorClusterID, nil, "invalid public key: expected key: no public key given"},
		{"bad self-signature", badSig, vectorClusterID, pub, "invalid CSR: bad self-signature: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckCSR([]byte(tt.csr), tt.clusterID, tt.pub)
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), tt.wantErr), "got %q, want prefix %q", err, tt.wantErr)
		})
	}
}
