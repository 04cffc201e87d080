package crypto

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// benchKeys are the key types Liqo generates: Ed25519 and RSA-2048.
func benchKeys(b *testing.B) []testKey {
	return testKeys(b)[:2]
}

func BenchmarkSignNonce(b *testing.B) {
	nonce := readTestdata(b, "vector-nonce.txt")
	for _, k := range benchKeys(b) {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := SignNonce(k.priv, nonce); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkVerifyNonce(b *testing.B) {
	nonce := readTestdata(b, "vector-nonce.txt")
	for _, k := range benchKeys(b) {
		b.Run(k.name, func(b *testing.B) {
			sig, err := SignNonce(k.priv, nonce)
			require.NoError(b, err)
			pub := k.priv.Public()
			for b.Loop() {
				if err := VerifyNonce(pub, nonce, sig); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkNewCSR(b *testing.B) {
	for _, k := range benchKeys(b) {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := NewCSR(k.priv, vectorClusterID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCheckCSR(b *testing.B) {
	for _, k := range benchKeys(b) {
		b.Run(k.name, func(b *testing.B) {
			csr, err := NewCSR(k.priv, vectorClusterID)
			require.NoError(b, err)
			pub := k.priv.Public()
			for b.Loop() {
				if err := CheckCSR(csr, vectorClusterID, pub); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
