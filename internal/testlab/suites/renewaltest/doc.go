// Package renewaltest proves the provider-driven certificate renewal
// (protocol spec §10.2) for real: its tests (build tag cluster) run a lab
// whose kube-controller-manager issues 3-minute certificates, so that
// renewals happen, and the old certificate expires, within one test.
package renewaltest
