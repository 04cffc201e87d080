// Package kube holds what the tool knows about Kubernetes and Liqo v1, one
// concern per file-name prefix (the handshake's methods all hang on *Cluster,
// so the concerns share one package):
//
//	client_*     connecting (kubeconfig, proxy), reach errors, waits and
//	             watches, server-side apply, and the plain reads, list/
//	             watches, writes and deletes flows makes (core objects in
//	             client_objects.go and client_reads.go, Liqo's in
//	             client_liqo.go)
//	names*.go    Liqo's names, labels and keys, byte for byte
//	keys*        the cluster ID and the authentication key pair
//	handshake_*  the handshake's objects: nonce, tenant namespace, Tenant,
//	             Identity and its kubeconfig, CSR and certificate,
//	             ResourceSlice
//	lifecycle_*  after the handshake: the Tenant's condition (cordon,
//	             drain) and a slice's cordon
//	rbac*        tenant RBAC, the peering user, access checks
//	install_*    `init` and the controller's install
//	detect_*     which Liqo a cluster runs (LiqoFlavor) and the probe
//	advertise*   the API server address a peer is given
//
// Elsewhere: Liqo 0.x's token authentication is kube/liqo0x (its
// client-free peer info kube/liqo0x/peerinfo), the controller
// kube/controller, the real control planes of the tests internal/testlab/lab.
package kube
