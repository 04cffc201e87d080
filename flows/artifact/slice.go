package artifact

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// SliceRequest asks a provider for resources (§10.1), as `liqoctl create
// resourceslice` does.
type SliceRequest struct {
	Name, ProviderID, Class string
	CPU, Memory, Pods       string // Kubernetes quantities, "" = not asked
	CreateVirtualNode       bool
}

// CheckSliceRequest validates a request without a cluster: its name,
// class and quantities, and its provider ID when set. --batch checks it
// before the handshake, so that a bad request writes nothing.
func CheckSliceRequest(req SliceRequest) error {
	if req.ProviderID == "" {
		req.ProviderID = "placeholder"
	}
	_, _, err := CheckedSlice(req)
	return err
}

// CheckedSlice validates the request alone and returns the class and the
// resources (nil: none asked) of the slice it asks for.
func CheckedSlice(req SliceRequest) (authv1beta1.ResourceSliceClass, corev1.ResourceList, error) {
	if errs := validation.IsDNS1123Subdomain(req.Name); len(errs) > 0 || len(req.Name) > validation.LabelValueMaxLength {
		return "", nil, fmt.Errorf("invalid ResourceSlice name %q: use at most 63 lowercase letters, digits, '-' and '.', starting and ending with a letter or digit", req.Name)
	}
	if err := authcrypto.ValidateClusterID(req.ProviderID); err != nil {
		return "", nil, fmt.Errorf("--remote-cluster-id: %w", err)
	}
	class := req.Class
	if class == "" {
		class = string(authv1beta1.ResourceSliceClassDefault)
	}
	if errs := validation.IsDNS1123Subdomain(class); len(errs) > 0 {
		return "", nil, fmt.Errorf("invalid class %q: %s", class, errs[0])
	}
	resources := corev1.ResourceList{}
	for _, q := range []struct {
		name  corev1.ResourceName
		flag  string
		value string
	}{{corev1.ResourceCPU, "--cpu", req.CPU}, {corev1.ResourceMemory, "--memory", req.Memory}, {corev1.ResourcePods, "--pods", req.Pods}} {
		if q.value == "" {
			continue
		}
		v, err := ParseQuantity(q.value)
		if err != nil {
			return "", nil, fmt.Errorf("%s %q is not a Kubernetes quantity (e.g. 2, 500m, 4Gi)", q.flag, q.value)
		}
		if v.Sign() < 0 {
			return "", nil, fmt.Errorf("%s %q is negative", q.flag, q.value)
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
