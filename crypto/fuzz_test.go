package crypto

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"strings"
	"testing"
)

// The fuzz targets check that no parser panics on hostile input (Tenant
// fields and pasted text come from other clusters and users) and that
// whatever a parser accepts is well-formed.

func FuzzParsePrivateKeyPEM(f *testing.F) {
	for _, name := range []string{"vector-private-key.pem", "rsa-2048-private-key.pem", "ecdsa-p256-private-key.pem", "vector-public-key.pem"} {
		b := readTestdata(f, name)
		f.Add(b)
		f.Add(append(b, '\n'))
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte(""))
	f.Add([]byte("-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n"))
	nonce := readTestdata(f, "vector-nonce.txt")

	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := ParsePrivateKeyPEM(data)
		if err != nil {
			if k != nil {
				t.Fatal("key returned with an error")
			}
			return
		}
		if !bytes.HasPrefix(data, []byte("-----BEGIN PRIVATE KEY-----")) {
			t.Fatalf("accepted data not starting with the PEM header: %q", data)
		}
		again, err := EncodePrivateKeyPEM(k)
		if err != nil {
			t.Fatalf("accepted key cannot be re-encoded: %v", err)
		}
		k2, err := ParsePrivateKeyPEM(again)
		if err != nil || !SamePublicKey(k.Public(), k2.Public()) {
			t.Fatalf("re-encoded key does not round-trip: %v", err)
		}
		sig, err := SignNonce(k, nonce)
		if err != nil {
			t.Fatalf("accepted key cannot sign: %v", err)
		}
		if err := VerifyNonce(k.Public(), nonce, sig); err != nil {
			t.Fatalf("signature of an accepted key does not verify: %v", err)
		}
	})
}

func FuzzParsePublicKey(f *testing.F) {
	addPublicKeySeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		pub, err := ParsePublicKey(data)
		if err != nil {
			if pub != nil {
				t.Fatal("key returned with an error")
			}
			if len(data) == ed25519.PublicKeySize && !bytes.Contains(data, pemBegin) {
				t.Fatalf("32 raw bytes rejected: %v", err)
			}
			return
		}
		checkAcceptedPublicKey(t, pub)
	})
}

func FuzzParsePublicKeyPEM(f *testing.F) {
	addPublicKeySeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		pub, err := ParsePublicKeyPEM(data)
		if err != nil {
			if pub != nil {
				t.Fatal("key returned with an error")
			}
			return
		}
		checkAcceptedPublicKey(t, pub)
		pubPEM, err := EncodePublicKeyPEM(pub)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParsePublicKeyPEM(pubPEM)
		if err != nil || !SamePublicKey(pub, again) {
			t.Fatalf("re-encoded key does not round-trip: %v", err)
		}
	})
}

func addPublicKeySeeds(f *testing.F) {
	for _, k := range testKeys(f) {
		b, err := EncodePublicKeyPEM(k.priv.Public())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)-10])
	}
	raw := readBase64Testdata(f, "vector-public-key-raw.b64")
	f.Add(raw)
	f.Add(raw[:31])
	f.Add(append(raw[:32:32], 0))
	f.Add(readTestdata(f, "vector-private-key.pem"))
	f.Add([]byte(""))
}

func checkAcceptedPublicKey(t *testing.T, pub any) {
	t.Helper()
	if _, err := PublicKeyDER(pub); err != nil {
		t.Fatalf("accepted key has no PKIX encoding: %v", err)
	}
	if _, err := Fingerprint(pub); err != nil {
		t.Fatalf("accepted key has no fingerprint: %v", err)
	}
	if alg := KeyAlgorithm(pub); strings.HasPrefix(alg, "unsupported") {
		t.Fatalf("accepted key of unsupported type %s", alg)
	}
}

func FuzzValidateNonce(f *testing.F) {
	vector := string(readTestdata(f, "vector-nonce.txt"))
	f.Add(vector)
	f.Add(vector[:40])
	f.Add(vector + "\n")
	f.Add(vector[:85] + "B==")
	f.Add(base64.URLEncoding.EncodeToString(vectorNonceBytes()))
	f.Add(base64.StdEncoding.EncodeToString(make([]byte, 66)))
	f.Add("")

	f.Fuzz(func(t *testing.T, nonce string) {
		if err := ValidateNonce(nonce); err != nil {
			return
		}
		if len(nonce) != NonceLength {
			t.Fatalf("accepted a %d-character nonce", len(nonce))
		}
		raw, err := base64.StdEncoding.DecodeString(nonce)
		if err != nil || len(raw) != nonceBytes {
			t.Fatalf("accepted nonce does not decode to %d bytes: %v", nonceBytes, err)
		}
		if base64.StdEncoding.EncodeToString(raw) != nonce {
			t.Fatal("accepted a non-canonical nonce")
		}
	})
}

func FuzzParseCSR(f *testing.F) {
	addCSRSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		csr, err := ParseCSR(data)
		if err != nil {
			if csr != nil {
				t.Fatal("CSR returned with an error")
			}
			return
		}
		checkAcceptedPublicKey(t, csr.PublicKey)
		if _, err := ParseCSR(append(data[:len(data):len(data)], 'x')); err == nil {
			t.Fatal("accepted a CSR with trailing data")
		}
	})
}

func FuzzCheckCSR(f *testing.F) {
	vectorPub := vectorKey().Public()
	for _, seed := range csrSeeds(f) {
		f.Add(seed, vectorClusterID, readTestdata(f, "vector-public-key.pem"))
		f.Add(seed, "other", readBase64Testdata(f, "vector-public-key-raw.b64"))
	}

	f.Fuzz(func(t *testing.T, csrPEM []byte, clusterID string, pubBytes []byte) {
		pub, err := ParsePublicKey(pubBytes)
		if err != nil {
			pub = vectorPub
		}
		if err := CheckCSR(csrPEM, clusterID, pub); err != nil {
			return
		}
		csr, err := ParseCSR(csrPEM)
		switch {
		case err != nil:
			t.Fatalf("accepted an unparseable CSR: %v", err)
		case csr.Subject.CommonName != clusterID:
			t.Fatalf("accepted CN %q for cluster %q", csr.Subject.CommonName, clusterID)
		case len(csr.Subject.Organization) == 0 || csr.Subject.Organization[0] != "liqo.io":
			t.Fatalf("accepted organization %q", csr.Subject.Organization)
		case !SamePublicKey(csr.PublicKey, pub):
			t.Fatal("accepted a CSR for another key")
		case csr.CheckSignature() != nil:
			t.Fatal("accepted a CSR with a bad self-signature")
		}
	})
}

func addCSRSeeds(f *testing.F) {
	for _, seed := range csrSeeds(f) {
		f.Add(seed)
	}
}

func csrSeeds(f *testing.F) [][]byte {
	vector := readTestdata(f, "vector-csr.pem")
	return [][]byte{
		vector,
		append(vector[:len(vector):len(vector)], vector...),
		append(vector[:len(vector):len(vector)], '\n'),
		vector[:len(vector)/2],
		readTestdata(f, "openssl-rsa-2048-csr.pem"),
		readTestdata(f, "openssl-ecdsa-p256-csr.pem"),
		readTestdata(f, "vector-public-key.pem"),
		{},
	}
}

func FuzzVerifyNonce(f *testing.F) {
	nonce := readTestdata(f, "vector-nonce.txt")
	keys := testKeys(f)
	pubPEM := readTestdata(f, "vector-public-key.pem")
	f.Add(pubPEM, nonce, readTenantSpecTB(f).Signature)
	f.Add([]byte{1}, nonce, readBase64Testdata(f, "rsa-2048-nonce-signature.b64"))
	f.Add([]byte{2}, nonce, readBase64Testdata(f, "ecdsa-p256-nonce-signature.b64"))
	f.Add(readBase64Testdata(f, "vector-public-key-raw.b64"), nonce, readTenantSpecTB(f).Signature)
	f.Add(make([]byte, 32), nonce, make([]byte, 64))
	f.Add(pubPEM, []byte{}, []byte{})

	f.Fuzz(func(t *testing.T, pubBytes, nonce, signature []byte) {
		// A parseable key is used as is (raw 32 bytes need not be a valid
		// curve point); otherwise pick one of the fixture keys.
		pub, err := ParsePublicKey(pubBytes)
		if err != nil {
			pub = keys[len(pubBytes)%len(keys)].priv.Public()
		}
		if err := VerifyNonce(pub, nonce, signature); err != nil {
			if !strings.HasPrefix(err.Error(), "signature verification failed: ") {
				t.Fatalf("error without the expected prefix: %v", err)
			}
			return
		}
		if edPub, ok := pub.(ed25519.PublicKey); ok && !ed25519.Verify(edPub, nonce, signature) {
			t.Fatal("accepted an Ed25519 signature that ed25519.Verify rejects")
		}
	})
}

func FuzzCertificateFingerprint(f *testing.F) {
	cert := selfSignedCertPEM(f)
	f.Add(cert)
	f.Add(append(append([]byte("# CA\n"), readTestdata(f, "vector-private-key.pem")...), cert...))
	f.Add(cert[:len(cert)/2])
	f.Add(readTestdata(f, "vector-csr.pem"))
	f.Add([]byte(""))

	f.Fuzz(func(t *testing.T, data []byte) {
		fp, err := CertificateFingerprint(data)
		if err != nil {
			return
		}
		if !strings.HasPrefix(fp, "SHA256:") || len(fp) != len("SHA256:")+43 {
			t.Fatalf("malformed fingerprint %q", fp)
		}
	})
}
