// Package liqorenewal proves the provider-driven certificate renewal
// (protocol spec §10.2, Liqo v1.2.0+) across implementations, with REAL
// Liqo v1.2.0 reconcilers (liqo-peer) and crd-replicator on one side and
// this project's controllers on the other. Its tests (build tag cluster)
// run a lab of their own whose kube-controller-manager issues 3-minute
// certificates, so that renewals happen, bounded by the expiry of the old
// certificate, within one test; the other interoperability tests keep
// year-long certificates and never see a renewal under way.
package liqorenewal
