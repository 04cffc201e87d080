// Package artifact encodes, decodes and validates what travels between the
// two clusters' admins: the nonce, the Tenant, the Identity, the Liqo 0.x
// peer info, and the ResourceSlice request flags. It holds parsers of
// outside input only, without a Kubernetes client, so that its fuzz
// targets build into a small test binary and run fast.
package artifact
