// Package crypto holds the cryptography of Liqo's inter-cluster
// authentication (protocol spec §1.2, §3.2, §4.1, §5.4, §6.2):
//
//   - the cluster key pair ("authentication-keys"): Ed25519 by default,
//     RSA-2048 in Liqo's TLS-compatibility mode, ECDSA accepted when found;
//   - the provider's nonce and the consumer's signature over it;
//   - the control-plane CSR the consumer puts in its Tenant, and the checks a
//     provider runs on it;
//   - fingerprints shown to humans so they can compare keys out of band.
//
// Everything here must stay byte-compatible with real Liqo v1.x: the test
// vectors of spec §13 pin the exact encodings.
package crypto
