package kube

import (
	"context"

	certv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The reads doctor makes of core objects, so that flows calls no
// clientset itself (client_objects.go holds the flows' others).

// Lease reads a Lease of c's namespace.
func (c *Cluster) Lease(ctx context.Context, name string) (*coordinationv1.Lease, error) {
	return c.Kube.CoordinationV1().Leases(c.Namespace).Get(ctx, name, metav1.GetOptions{})
}

// ClusterIDConfigMaps lists the ConfigMaps of c's namespace labelled as
// Liqo's cluster ID.
func (c *Cluster) ClusterIDConfigMaps(ctx context.Context) (*corev1.ConfigMapList, error) {
	return c.Kube.CoreV1().ConfigMaps(c.Namespace).List(ctx, metav1.ListOptions{LabelSelector: ClusterIDSelector})
}

// ConfigMap reads one of c's ConfigMaps.
func (c *Cluster) ConfigMap(ctx context.Context, namespace, name string) (*corev1.ConfigMap, error) {
	return c.Kube.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
}

// CSRs lists c's CertificateSigningRequests.
func (c *Cluster) CSRs(ctx context.Context) (*certv1.CertificateSigningRequestList, error) {
	return c.Kube.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{})
}

// DeleteCSR deletes the CertificateSigningRequest csr, not another made
// since under its name (a Conflict error then; a NotFound one when gone).
func (c *Cluster) DeleteCSR(ctx context.Context, csr *certv1.CertificateSigningRequest) error {
	return c.Kube.CertificatesV1().CertificateSigningRequests().Delete(ctx, csr.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &csr.UID}})
}

// TenantBindings lists c's RoleBindings (every namespace) and
// ClusterRoleBindings labelled with a remote cluster ID: the bindings made
// for tenants.
func (c *Cluster) TenantBindings(ctx context.Context) (*rbacv1.RoleBindingList, *rbacv1.ClusterRoleBindingList, error) {
	labelled := metav1.ListOptions{LabelSelector: RemoteClusterIDLabel}
	rbs, err := c.Kube.RbacV1().RoleBindings("").List(ctx, labelled)
	if err != nil {
		return nil, nil, err
	}
	crbs, err := c.Kube.RbacV1().ClusterRoleBindings().List(ctx, labelled)
	if err != nil {
		return nil, nil, err
	}
	return rbs, crbs, nil
}

// RoleBinding reads one of c's RoleBindings.
func (c *Cluster) RoleBinding(ctx context.Context, namespace, name string) (*rbacv1.RoleBinding, error) {
	return c.Kube.RbacV1().RoleBindings(namespace).Get(ctx, name, metav1.GetOptions{})
}

// ClusterRoleBinding reads one of c's ClusterRoleBindings.
func (c *Cluster) ClusterRoleBinding(ctx context.Context, name string) (*rbacv1.ClusterRoleBinding, error) {
	return c.Kube.RbacV1().ClusterRoleBindings().Get(ctx, name, metav1.GetOptions{})
}
