// Package doctorcert proves doctor's certificate and replication checks
// (flows/doctor: certificate.go, replication.go) on real API
// servers: pairs authenticated with this project's flows and controllers,
// and one with a real Liqo v1.1.2 provider, whose failures are provoked
// for real (a controller stopped, a certificate left to pass its renewal
// point or to expire, a consumer's rights taken away on the provider).
// Its tests (build tag cluster) run a lab of their own whose
// kube-controller-manager issues 3-minute certificates, so that renewal
// points pass and certificates expire within a test.
package doctorcert
