package controller

import (
	"bytes"
	"crypto/sha256"
	"unique"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The informers' transforms: what the caches keep of each object. At
// 10,000 consumers the caches are most of the controller's heap, and the
// garbage collector's work per Tenant grows with it (the heap's soft limit
// comes from the container's memory limit), so each keeps what is read.

// stripManagedFields drops the managed fields of the objects the informers
// keep: nobody here reads them, and they are a good part of each object.
// (An update sent without them keeps the server's.) The strings that many
// objects repeat (namespace, label keys and values: a consumer's ID is in
// six of its objects) are shared.
func stripManagedFields(obj any) (any, error) {
	if o := objectMeta(obj); o != nil {
		o.SetManagedFields(nil)
		o.SetNamespace(intern(o.GetNamespace()))
		o.SetLabels(internLabels(o.GetLabels()))
	}
	return obj, nil
}

// intern returns the one shared copy of s (unique keeps it while used).
func intern(s string) string {
	if s == "" {
		return s
	}
	return unique.Make(s).Value()
}

func internLabels(in map[string]string) map[string]string {
	if len(in) == 0 {
		return in
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[intern(k)] = intern(v)
	}
	return out
}

// metaSkeleton is what a skeleton keeps of an object's metadata: enough to
// find it (name, namespace, labels), version it and see it going.
func metaSkeleton(m *metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: m.Name, Namespace: intern(m.Namespace), UID: m.UID, ResourceVersion: m.ResourceVersion,
		Labels: internLabels(m.Labels), DeletionTimestamp: m.DeletionTimestamp}
}

// bindingSkeleton keeps of a RoleBinding or ClusterRoleBinding what the
// Tenant reconciler reads: that it exists, whose it is (its labels) and its
// version. Subjects and roleRef stay on the server: at 10,000 consumers
// they would be megabytes of a cache nobody reads.
func bindingSkeleton(obj any) (any, error) {
	switch b := obj.(type) {
	case *rbacv1.RoleBinding:
		return &rbacv1.RoleBinding{ObjectMeta: metaSkeleton(&b.ObjectMeta)}, nil
	case *rbacv1.ClusterRoleBinding:
		return &rbacv1.ClusterRoleBinding{ObjectMeta: metaSkeleton(&b.ObjectMeta)}, nil
	}
	return stripManagedFields(obj) // a delete tombstone
}

// namespaceSkeleton keeps of a tenant namespace its name and labels (whose
// tenant namespace it is): nothing here reads or writes more of it.
func namespaceSkeleton(obj any) (any, error) {
	if ns, ok := obj.(*corev1.Namespace); ok {
		return &corev1.Namespace{ObjectMeta: metaSkeleton(&ns.ObjectMeta)}, nil
	}
	return stripManagedFields(obj)
}

// The certificate cache Secrets are kept as skeletons whose data are the
// SHA-256 sums of the two keys: the reconciler only compares them with the
// Tenant's CSR and status certificate (1–2 KB per consumer otherwise). A
// certificate to reuse, or a Secret to update, is read live (rare: a
// Tenant re-created, a renewal).
const (
	certSkeletonCSRKey  = kube.RemoteCertCSRField + ".sha256"
	certSkeletonCertKey = kube.RemoteCertCertificateField + ".sha256"
)

func certSecretSkeleton(obj any) (any, error) {
	s, ok := obj.(*corev1.Secret)
	if !ok {
		return stripManagedFields(obj) // a delete tombstone
	}
	if isCertSkeleton(s) {
		return s, nil
	}
	// Found by name, so without labels: nothing reads them.
	out := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: intern(s.Namespace), UID: s.UID,
		ResourceVersion: s.ResourceVersion, DeletionTimestamp: s.DeletionTimestamp}, Data: map[string][]byte{}}
	for from, to := range map[string]string{kube.RemoteCertCSRField: certSkeletonCSRKey, kube.RemoteCertCertificateField: certSkeletonCertKey} {
		if v, ok := s.Data[from]; ok {
			sum := sha256.Sum256(v)
			out.Data[to] = sum[:]
		}
	}
	return out, nil
}

// isCertSkeleton tells a cached skeleton from a Secret as the server has it.
func isCertSkeleton(s *corev1.Secret) bool {
	_, csr := s.Data[certSkeletonCSRKey]
	_, cert := s.Data[certSkeletonCertKey]
	return csr || cert
}

// skeletonHolds tells whether a skeleton's key is the sum of value.
func skeletonHolds(s *corev1.Secret, key string, value []byte) bool {
	sum, ok := s.Data[key]
	want := sha256.Sum256(value)
	return ok && bytes.Equal(sum, want[:])
}
