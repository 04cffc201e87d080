package kube

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// The objects of Liqo's networking module that in-band peering reads
// (liqoctl authenticate --in-band): the provider's IP api-server-proxy,
// the ClusterIP of its liqo-proxy Service (app.kubernetes.io/name=proxy,
// port 8118) remapped into the provider's external CIDR by Liqo's IPAM,
// and the consumer's Configuration for the provider, which says how the
// consumer sees the provider's CIDRs across the tunnel.
var (
	LiqoIPs            = schema.GroupVersionResource{Group: "ipam.liqo.io", Version: "v1alpha1", Resource: "ips"}
	LiqoConfigurations = schema.GroupVersionResource{Group: "networking.liqo.io", Version: "v1beta1", Resource: "configurations"}
)

const (
	// APIServerProxyIPName is the name of the IP that Liqo's
	// controller-manager keeps, in its namespace, for the API server proxy.
	APIServerProxyIPName = "api-server-proxy"
	// InBandProxyPort is the port of Liqo's API server proxy (the chart's
	// proxy.config.listeningPort, which liqoctl writes as is).
	InBandProxyPort = "8118"
	// NetworkCIDRsConfigured is the condition Liqo v1.2 sets on a
	// Configuration whose status holds the remapped CIDRs of its generation.
	NetworkCIDRsConfigured = "NetworkCIDRsConfigured"
)

// APIServerProxyIP is what the provider's IP api-server-proxy holds: the
// proxy Service's ClusterIP (Local) and the address Liqo's IPAM remapped it
// to (Remapped, "" until it did), the one other clusters reach.
type APIServerProxyIP struct {
	Local, Remapped string
}

// APIServerProxyIP reads the IP api-server-proxy in c's Liqo namespace. A
// cluster without Liqo's IPAM (no ipam.liqo.io IPs) or without the object
// gives a NotFound error.
func (c *Cluster) APIServerProxyIP(ctx context.Context) (APIServerProxyIP, error) {
	ips, err := c.dynamicResource(LiqoIPs)
	if err != nil {
		return APIServerProxyIP{}, err
	}
	u, err := ips.Namespace(c.Namespace).Get(ctx, APIServerProxyIPName, metav1.GetOptions{})
	if err != nil {
		return APIServerProxyIP{}, err
	}
	var ip struct {
		Spec struct {
			IP string `json:"ip"`
		} `json:"spec"`
		Status struct {
			IP string `json:"ip"`
		} `json:"status"`
	}
	if err := decodeUnstructured(u.Object, &ip); err != nil {
		return APIServerProxyIP{}, fmt.Errorf("IP %s/%s: %w", c.Namespace, APIServerProxyIPName, err)
	}
	return APIServerProxyIP{Local: ip.Spec.IP, Remapped: ip.Status.IP}, nil
}

// NetworkCIDRs are the pod and external CIDRs of a cluster, primary first.
type NetworkCIDRs struct {
	Pod      []string `json:"pod,omitempty"`
	External []string `json:"external,omitempty"`
}

// NetworkConfiguration is what this tool reads of a Liqo Configuration
// (networking.liqo.io/v1beta1): the remote cluster's CIDRs as it declares
// them (Remote) and as the local cluster sees them (Remapped, nil until
// Liqo's IPAM remapped them).
type NetworkConfiguration struct {
	Namespace, Name string
	Generation      int64
	Remote          NetworkCIDRs
	Remapped        *NetworkCIDRs
	Conditions      []metav1.Condition
}

// Ready tells whether Liqo has remapped the remote CIDRs of this
// generation: Liqo v1.2's NetworkCIDRsConfigured condition, True for the
// current generation, when the Configuration has it; before v1.2, which
// sets no condition, remapped CIDRs for every declared one.
func (n *NetworkConfiguration) Ready() bool {
	if cond := meta.FindStatusCondition(n.Conditions, NetworkCIDRsConfigured); cond != nil {
		return cond.Status == metav1.ConditionTrue && cond.ObservedGeneration == n.Generation
	}
	return n.Remapped != nil && len(n.Remapped.Pod) >= len(n.Remote.Pod) && len(n.Remapped.External) >= len(n.Remote.External) &&
		len(n.Remote.Pod)+len(n.Remote.External) > 0
}

// NetworkConfigurationFor reads c's Configuration for the remote cluster,
// as liqoctl does: in the tenant namespace of remoteID, labelled
// liqo.io/remote-cluster-id=remoteID. No tenant namespace, no Configuration
// or no networking.liqo.io API is a NotFound error; more than one, an error.
func (c *Cluster) NetworkConfigurationFor(ctx context.Context, remoteID string) (*NetworkConfiguration, error) {
	ns, err := c.TenantNamespace(ctx, remoteID)
	if err != nil {
		return nil, err
	}
	confs, err := c.dynamicResource(LiqoConfigurations)
	if err != nil {
		return nil, err
	}
	list, err := confs.Namespace(ns.Name).List(ctx, metav1.ListOptions{LabelSelector: labels.Set{RemoteClusterIDLabel: remoteID}.String()})
	if err != nil {
		return nil, err
	}
	switch len(list.Items) {
	case 0:
		return nil, apierrors.NewNotFound(LiqoConfigurations.GroupResource(), "of cluster "+remoteID)
	case 1:
	default:
		return nil, fmt.Errorf("multiple Configurations for cluster %s in namespace %s", remoteID, ns.Name)
	}
	var conf struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
		Spec     struct {
			Remote struct {
				CIDR NetworkCIDRs `json:"cidr"`
			} `json:"remote"`
		} `json:"spec"`
		Status struct {
			Conditions []metav1.Condition `json:"conditions"`
			Remote     *struct {
				CIDR NetworkCIDRs `json:"cidr"`
			} `json:"remote"`
		} `json:"status"`
	}
	item := list.Items[0]
	if err := decodeUnstructured(item.Object, &conf); err != nil {
		return nil, fmt.Errorf("Configuration %s/%s: %w", item.GetNamespace(), item.GetName(), err)
	}
	n := &NetworkConfiguration{Namespace: conf.Metadata.Namespace, Name: conf.Metadata.Name, Generation: conf.Metadata.Generation,
		Remote: conf.Spec.Remote.CIDR, Conditions: conf.Status.Conditions}
	if conf.Status.Remote != nil {
		n.Remapped = &conf.Status.Remote.CIDR
	}
	return n, nil
}

func (c *Cluster) dynamicResource(gvr schema.GroupVersionResource) (dynamic.NamespaceableResourceInterface, error) {
	dc, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		return nil, fmt.Errorf("building a client for %s: %w", c.Server, err)
	}
	return dc.Resource(gvr), nil
}

// decodeUnstructured reads an unstructured object into out through JSON.
func decodeUnstructured(obj map[string]any, out any) error {
	raw, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}
