// Package liqopods runs REAL Liqo v1 as Pods on the lab's Nodes, as Liqo's
// chart runs it: liqo-peer (Liqo's authentication reconcilers) as
// liqo-controller-manager and Liqo's crd-replicator, from images wrapped
// from their cached binaries (realliqov1.LoadImages), under ServiceAccounts
// bound to Liqo's own ClusterRoles. What it adds over liqointerop's
// processes is what only Pods show: Liqo's in-cluster credentials and RBAC,
// and that what this project's provider advertises works from the
// consumer's Pods. Liqo's CRDs make a cluster look like Liqo, so it has a
// lab of its own (a provider and a consumer, each with a Node).
package liqopods
