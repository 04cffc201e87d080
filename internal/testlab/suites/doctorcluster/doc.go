// Package doctorcluster proves doctor's cluster checks (flows/doctor: cluster.go,
// controller.go, csr.go) on real API servers: each test
// provokes one failure for real (a cluster ID or key pair gone, a CRD
// missing, no controller, a Lease whose holder is gone, a denied, failed
// or stale CSR), asserts the check's line, then applies its fix and sees
// the check pass. Its tests (build tag cluster) run in a lab of their own.
package doctorcluster
