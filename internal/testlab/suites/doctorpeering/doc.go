// Package doctorpeering proves doctor's per-peering checks of the v1
// handshake objects and of the consumer's credentials (issue 25 points 2
// and 3): each test (build tag cluster) authenticates a pair with this
// project's flows between two lab clusters, provokes one failure for real
// (a kubeconfig Secret deleted with no controller to write it again, a
// provider binding deleted, the consumer's keys rotated, the kubeconfig
// pointed at a dead address or through a proxy that is down, a
// certificate from another CA, a handshake left at a step, a Tenant no
// controller accepts, a consumer controller that fails), and checks the
// failed check's ID, cause and fix, then
// applies the fix or doctor's Repair and checks that the check passes.
package doctorpeering
