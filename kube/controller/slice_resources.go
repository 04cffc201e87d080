package controller

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// DefaultNodeResourcesFlag is Liqo's flag (liqo-controller-manager) and
// ours for what a slice is granted of the resources it does not ask for.
const DefaultNodeResourcesFlag = "default-node-resources"

// DefaultNodeResources is Liqo's chart default of --default-node-resources
// (offloading.defaultNodeResources): what a consumer's VirtualNode gets of
// each resource its ResourceSlice does not ask for.
func DefaultNodeResources() corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("4"),
		corev1.ResourceMemory:           resource.MustParse("8Gi"),
		corev1.ResourcePods:             resource.MustParse("110"),
		corev1.ResourceEphemeralStorage: resource.MustParse("20Gi"),
	}
}

// grantedResources is the status.resources Liqo's provider writes on every
// pass over a slice of the default class on an Active Tenant: what the
// status held, then the defaults, then every key of spec.resources (a key
// the consumer no longer asks for keeps its last amount, as in Liqo).
func grantedResources(status, defaults, spec corev1.ResourceList) corev1.ResourceList {
	granted := status.DeepCopy()
	if granted == nil {
		granted = corev1.ResourceList{}
	}
	for k, v := range defaults {
		granted[k] = v.DeepCopy()
	}
	for k, v := range spec {
		granted[k] = v.DeepCopy()
	}
	return granted
}

// ParseResourceList parses Liqo's --default-node-resources syntax:
// name=quantity pairs separated by commas ("" = none).
func ParseResourceList(s string) (corev1.ResourceList, error) {
	list := corev1.ResourceList{}
	if s == "" {
		return list, nil
	}
	for _, pair := range strings.Split(s, ",") {
		name, value, ok := strings.Cut(pair, "=")
		if !ok || name == "" || strings.Contains(value, "=") {
			return nil, fmt.Errorf("invalid value %q: want name=quantity", pair)
		}
		q, err := resource.ParseQuantity(value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		list[corev1.ResourceName(name)] = q
	}
	return list, nil
}

// FormatResourceList writes a ResourceList as ParseResourceList reads it,
// sorted by name.
func FormatResourceList(list corev1.ResourceList) string {
	items := make([]string, 0, len(list))
	for k, v := range list {
		items = append(items, string(k)+"="+v.String())
	}
	sort.Strings(items)
	return strings.Join(items, ",")
}
