package peerings

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The slices of a row, what flows' resourceslice commands show too.

// SliceStatusOf summarises a slice and its Identity (nil: none).
func SliceStatusOf(rs *authv1beta1.ResourceSlice, id *authv1beta1.Identity) handshake.SliceStatus {
	st := handshake.SliceStatus{Name: rs.Name, ProviderID: rs.Spec.ProviderClusterID, Class: string(rs.Spec.Class),
		Authentication: string(kube.SliceConditionStatus(rs, authv1beta1.ResourceSliceConditionTypeAuthentication)),
		Resources:      string(kube.SliceConditionStatus(rs, authv1beta1.ResourceSliceConditionTypeResources)),
		Requested:      Quantities(rs.Spec.Resources), Granted: Quantities(rs.Status.Resources)}
	if st.ProviderID == "" {
		st.ProviderID = rs.Labels[kube.RemoteClusterIDLabel]
	}
	// The message that explains: a denial first, else the latest word.
	for _, t := range []authv1beta1.ResourceSliceConditionType{authv1beta1.ResourceSliceConditionTypeAuthentication, authv1beta1.ResourceSliceConditionTypeResources} {
		if c := kube.SliceCondition(rs, t); c != nil && c.Status == authv1beta1.ResourceSliceConditionDenied {
			st.Message, st.Reason = c.Message, c.Reason
			break
		}
	}
	if p := rs.Status.AuthParams; p != nil {
		if cert, err := authcrypto.ParseCertificatePEM(p.SignedCRT); err == nil {
			st.NotAfter = cert.NotAfter
		}
	}
	if id != nil {
		st.Identity = id.Namespace + "/" + id.Name
		if ref := id.Status.KubeconfigSecretRef; ref != nil && ref.Name != "" {
			st.KubeconfigSecret = id.Namespace + "/" + ref.Name
		}
	}
	return st
}

// Quantities are a resource list as strings.
func Quantities(l corev1.ResourceList) map[string]string {
	if len(l) == 0 {
		return nil
	}
	out := make(map[string]string, len(l))
	for k, v := range l {
		out[string(k)] = v.String()
	}
	return out
}

// sumQuantities adds up quantity maps, key by key (a value that does not
// parse is left out); nil when there is nothing.
func sumQuantities(maps []map[string]string) map[string]string {
	sums := map[string]resource.Quantity{}
	for _, m := range maps {
		for k, v := range m {
			q, err := resource.ParseQuantity(v)
			if err != nil {
				continue
			}
			sum := sums[k]
			sum.Add(q)
			sums[k] = sum
		}
	}
	if len(sums) == 0 {
		return nil
	}
	out := make(map[string]string, len(sums))
	for k, q := range sums {
		out[k] = q.String()
	}
	return out
}
