package artifact

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// SliceRequest asks a provider for resources (§10.1), as `liqoctl create
// resourceslice` does.
type SliceRequest struct {
	Name, ProviderID, Class string
	CPU, Memory, Pods       string // Kubernetes quantities, "" = not asked
	CreateVirtualNode       bool
}

// quantityExample shows a valid amount of each resource.
var quantityExample = map[string]string{handshake.FieldCPU: "4 or 500m", handshake.FieldMemory: "8Gi or 512Mi", handshake.FieldPods: "110"}

// CheckSliceRequest validates a request without a cluster: its name,
// class and quantities, and its provider ID when set. Both front-ends call
// it before anything is written; a refusal is a *handshake.FieldError.
func CheckSliceRequest(req SliceRequest) error {
	if req.ProviderID == "" {
		req.ProviderID = "placeholder"
	}
	_, _, err := CheckedSlice(req)
	return err
}

// CheckedSlice validates the request alone and returns the class and the
// resources (nil: none asked) of the slice it asks for. The name is a
// DNS-1123 subdomain of at most 63 characters (it is also the value of the
// liqo.io/resourceslice-name label of the slice's Identity), the class a
// DNS-1123 subdomain, the amounts non-negative quantities, pods a whole
// number.
func CheckedSlice(req SliceRequest) (authv1beta1.ResourceSliceClass, corev1.ResourceList, error) {
	if errs := validation.IsDNS1123Subdomain(req.Name); len(errs) > 0 || len(req.Name) > validation.LabelValueMaxLength {
		return "", nil, &handshake.FieldError{Field: handshake.FieldSliceName, Reason: fmt.Sprintf("%q is not a valid ResourceSlice name: "+
			"at most 63 lowercase letters, digits, '-' and '.', starting and ending with a letter or digit", req.Name)}
	}
	if err := authcrypto.ValidateClusterID(req.ProviderID); err != nil {
		return "", nil, &handshake.FieldError{Field: handshake.FieldProvider, Reason: "provider cluster ID: " + err.Error()}
	}
	class := req.Class
	if class == "" {
		class = string(authv1beta1.ResourceSliceClassDefault)
	}
	if errs := validation.IsDNS1123Subdomain(class); len(errs) > 0 {
		return "", nil, &handshake.FieldError{Field: handshake.FieldClass, Reason: fmt.Sprintf("%q is not a valid class: "+
			"lowercase letters, digits, '-' and '.', starting and ending with a letter or digit (empty = default)", class)}
	}
	resources := corev1.ResourceList{}
	for _, q := range []struct {
		name  corev1.ResourceName
		field string
		value string
	}{{corev1.ResourceCPU, handshake.FieldCPU, req.CPU}, {corev1.ResourceMemory, handshake.FieldMemory, req.Memory}, {corev1.ResourcePods, handshake.FieldPods, req.Pods}} {
		if q.value == "" {
			continue
		}
		v, err := ParseQuantity(q.value)
		switch {
		case err != nil:
			return "", nil, &handshake.FieldError{Field: q.field, Reason: fmt.Sprintf("%s: %q is not a quantity (e.g. %s)", q.field, q.value, quantityExample[q.field])}
		case v.Sign() < 0:
			return "", nil, &handshake.FieldError{Field: q.field, Reason: fmt.Sprintf("%s: %q is negative", q.field, q.value)}
		case q.field == handshake.FieldPods && v.MilliValue()%1000 != 0:
			return "", nil, &handshake.FieldError{Field: q.field, Reason: fmt.Sprintf("%s: %q is not a whole number", q.field, q.value)}
		}
		resources[q.name] = v
	}
	if len(resources) == 0 {
		resources = nil
	}
	return authv1beta1.ResourceSliceClass(class), resources, nil
}

// maxQuantityExponent bounds the n of a quantity written "<number>e<n>".
// apimachinery computes 10^n in full to round such a value, so a large n
// (or one it truncates into 32 bits, as for "1e36854775807") takes minutes
// and gigabytes; Kubernetes caps quantities near 2^63 (about 10^19) and
// below 10^-9 anyway.
const maxQuantityExponent = 64

// ParseQuantity is resource.ParseQuantity for quantities typed by a
// person: it refuses an exponent beyond ±maxQuantityExponent before
// apimachinery spends minutes on it.
func ParseQuantity(s string) (resource.Quantity, error) {
	if i := strings.LastIndexAny(s, "eE"); i >= 0 {
		if n, err := strconv.ParseInt(s[i+1:], 10, 64); err == nil && (n > maxQuantityExponent || n < -maxQuantityExponent) {
			return resource.Quantity{}, fmt.Errorf("quantity %q has an exponent beyond ±%d", s, maxQuantityExponent)
		}
	}
	return resource.ParseQuantity(s)
}
