package controller

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// SliceOffer is what the provider tells a granted slice of the default
// class it offers besides resources, as Liqo's provider does from its
// flags: Liqo's VirtualNode creator copies it to the consumer's
// VirtualNode (storage classes, ingress and load balancer classes,
// labels).
type SliceOffer struct {
	// EnableStorage lists the cluster's StorageClasses (Liqo's
	// --enable-storage); off, none.
	EnableStorage bool
	// RealStorageClassName is the StorageClass marked default (Liqo's
	// --real-storage-class-name); "" = the cluster's default StorageClass.
	RealStorageClassName string
	// IngressClasses and LoadBalancerClasses are Liqo's --ingress-classes
	// and --load-balancer-classes.
	IngressClasses, LoadBalancerClasses []ClassName
	// ClusterLabels are the labels of the consumer's VirtualNode (Liqo's
	// --cluster-labels).
	ClusterLabels map[string]string
}

// ClassName is one class of Liqo's class lists.
type ClassName struct {
	Name    string
	Default bool
}

// Flags of the offer, Liqo's names (liqo-controller-manager).
const (
	EnableStorageFlag        = "enable-storage"
	RealStorageClassNameFlag = "real-storage-class-name"
	IngressClassesFlag       = "ingress-classes"
	LoadBalancerClassesFlag  = "load-balancer-classes"
	ClusterLabelsFlag        = "cluster-labels"
	// DefaultSliceClassEnabledFlag is Liqo's next release's switch of the
	// default class (Options.DefaultSliceClassDisabled).
	DefaultSliceClassEnabledFlag = "default-resource-slice-class-enabled"
)

// isDefaultStorageClassAnnotation marks the cluster's default StorageClass.
const isDefaultStorageClassAnnotation = "storageclass.kubernetes.io/is-default-class"

// ParseClassNames reads Liqo's class list syntax, "nginx;default,traefik"
// (a class with ";default" is the default one).
func ParseClassNames(s string) ([]ClassName, error) {
	var classes []ClassName
	for _, item := range strings.Split(s, ",") {
		if item == "" {
			continue
		}
		name, mark, isDefault := strings.Cut(item, ";")
		if name == "" || (isDefault && mark != "default") {
			return nil, fmt.Errorf("invalid class %q: want name or name;default", item)
		}
		classes = append(classes, ClassName{Name: name, Default: isDefault})
	}
	return classes, nil
}

// FormatClassNames writes classes as ParseClassNames reads them.
func FormatClassNames(classes []ClassName) string {
	items := make([]string, len(classes))
	for i, c := range classes {
		items[i] = c.Name
		if c.Default {
			items[i] += ";default"
		}
	}
	return strings.Join(items, ",")
}

// ParseLabels reads Liqo's --cluster-labels syntax, "key=value,key=value"
// (a value may hold "=": the first one separates).
func ParseLabels(s string) (map[string]string, error) {
	labels := map[string]string{}
	if s == "" {
		return labels, nil
	}
	for _, pair := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(pair, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("invalid label %q: want key=value", pair)
		}
		labels[k] = v
	}
	return labels, nil
}

// FormatLabels writes labels as ParseLabels reads them, sorted by key.
func FormatLabels(labels map[string]string) string {
	items := make([]string, 0, len(labels))
	for k, v := range labels {
		items = append(items, k+"="+v)
	}
	sort.Strings(items)
	return strings.Join(items, ",")
}

// sliceOffer is the offer in a slice's status fields.
type sliceOffer struct {
	storage       []authv1beta1.StorageType
	ingress       []authv1beta1.IngressType
	loadBalancers []authv1beta1.LoadBalancerType
	nodeLabels    map[string]string
}

// offer is what a granted slice's status says the provider offers, read
// now: the StorageClasses are listed on every grant, as Liqo lists them.
func (r *sliceProvider) offer(ctx context.Context) (*sliceOffer, error) {
	o := r.o.SliceOffer
	out := &sliceOffer{nodeLabels: maps.Clone(o.ClusterLabels)}
	for _, c := range o.IngressClasses {
		out.ingress = append(out.ingress, authv1beta1.IngressType{IngressClassName: c.Name, Default: c.Default})
	}
	for _, c := range o.LoadBalancerClasses {
		out.loadBalancers = append(out.loadBalancers, authv1beta1.LoadBalancerType{LoadBalancerClassName: c.Name, Default: c.Default})
	}
	if !o.EnableStorage {
		return out, nil
	}
	list, err := r.c.Kube.StorageV1().StorageClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing the StorageClasses offered to ResourceSlices (--%s): %w", EnableStorageFlag, err)
	}
	for _, sc := range list.Items {
		isDefault := sc.Name == o.RealStorageClassName
		if o.RealStorageClassName == "" {
			isDefault = sc.Annotations[isDefaultStorageClassAnnotation] == "true"
		}
		out.storage = append(out.storage, authv1beta1.StorageType{StorageClassName: sc.Name, Default: isDefault})
	}
	sort.Slice(out.storage, func(i, j int) bool { return out.storage[i].StorageClassName < out.storage[j].StorageClassName })
	return out, nil
}

// apply writes the offer in a slice's status, replacing the last one.
func (o *sliceOffer) apply(status *authv1beta1.ResourceSliceStatus) {
	status.StorageClasses, status.IngressClasses, status.LoadBalancerClasses = o.storage, o.ingress, o.loadBalancers
	status.NodeLabels = o.nodeLabels
}
