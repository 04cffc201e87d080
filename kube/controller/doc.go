// Package controller runs the background reconcilers of Liqo's
// authentication, kubernetes/sample-controller style: shared informers feed
// rate-limited work queues, and each worker runs one level-triggered,
// idempotent sync per object key.
//
// On a provider it fills nonce Secrets (§3.3) and accepts Tenants (§6.2–§6.5);
// on a consumer it signs nonces (§4.3) and turns Identities into kubeconfig
// Secrets (§8). Status goes through the status subresource and humans learn
// what happened from Events carrying the reasons real Liqo uses.
package controller
