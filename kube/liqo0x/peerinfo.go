package liqo0x

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// Liqo 0.x marks its virtual nodes with this label; their addresses are not
// reachable from other clusters, so the auth URL never uses them (§2.2).
const (
	nodeTypeLabel   = "liqo.io/type"
	virtualNodeType = "virtual-node"
)

// nodeAddressOrder is the order in which Liqo 0.x picks a node's
// address for a NodePort auth Service (§2.2).
var nodeAddressOrder = []corev1.NodeAddressType{
	corev1.NodeExternalDNS, corev1.NodeExternalIP, corev1.NodeInternalDNS, corev1.NodeInternalIP, corev1.NodeHostName,
}

// PeerInfo gathers, on a 0.x provider (c.Namespace = Liqo namespace),
// what `liqoctl generate peer-command` prints (§4): the cluster ID and name,
// the auth-token and the auth URL (authURLOverride wins, as --auth-url does).
// Errors are one line with what to do.
func (c *Cluster) PeerInfo(ctx context.Context, authURLOverride string) (*peerinfo.Info, error) {
	info := &peerinfo.Info{}
	release, err := c.DetectRelease(ctx)
	if err != nil {
		return nil, err
	}
	if release.Flavor != kube.FlavorLiqo0x && release.Flavor != kube.FlavorUnknown {
		return nil, fmt.Errorf("this cluster runs %s, not Liqo 0.x (namespace %s): peer info is for 0.x providers; use the v1 handshake", release, c.Namespace)
	}
	info.Version, info.Line = release.Version, release.Line
	cm, err := c.ClusterIDConfigMap(ctx)
	if kube.IsNotFoundOrNoID(err) {
		return nil, fmt.Errorf("no cluster-ID ConfigMap (label %s) in namespace %s: is Liqo 0.x installed there? Give its namespace", kube.ClusterIDSelector, c.Namespace)
	}
	if err != nil {
		return nil, err
	}
	info.ClusterID = cm.Data[kube.ClusterIDKey]
	if info.ClusterID == "" {
		return nil, fmt.Errorf("the cluster-ID ConfigMap %s/%s has no %s: is Liqo 0.x installed correctly?", cm.Namespace, cm.Name, kube.ClusterIDKey)
	}
	info.ClusterName = cm.Data[ClusterNameKey]
	if info.ClusterName == "" {
		info.ClusterName = info.ClusterID
	}

	if info.Token, err = c.authToken(ctx); err != nil {
		return nil, err
	}
	if info.AuthURL, err = c.discoverAuthURL(ctx, authURLOverride); err != nil {
		return nil, err
	}

	deploy, err := c.Kube.AppsV1().Deployments(c.Namespace).Get(ctx, kube.Liqo0xAuthName, metav1.GetOptions{})
	switch {
	case err == nil:
		info.AuthenticationDisabled = kube.Liqo0xAuthenticationDisabled(deploy)
	case !kube.IsNotFound(err) && !apierrors.IsForbidden(err):
		return nil, kube.Reach(c.Server, err)
	default:
		info.AuthenticationUnknown = true
	}
	return info, nil
}

func (c *Cluster) authToken(ctx context.Context) (string, error) {
	s, err := c.Kube.CoreV1().Secrets(c.Namespace).Get(ctx, AuthTokenSecretName, metav1.GetOptions{})
	switch {
	case kube.IsNotFound(err):
		return "", fmt.Errorf("no Secret %s/%s: the auth server has not created it: is liqo-auth running?", c.Namespace, AuthTokenSecretName)
	case apierrors.IsForbidden(err):
		return "", fmt.Errorf("reading Secret %s/%s is forbidden: use a kubeconfig that may read Secrets in namespace %s", c.Namespace, AuthTokenSecretName, c.Namespace)
	case err != nil:
		return "", kube.Reach(c.Server, err)
	}
	token := string(s.Data[AuthTokenField])
	if token == "" {
		return "", fmt.Errorf("Secret %s/%s has no %q: delete it so that the auth server creates a new one", c.Namespace, AuthTokenSecretName, AuthTokenField)
	}
	return token, nil
}

func (c *Cluster) discoverAuthURL(ctx context.Context, override string) (string, error) {
	if override != "" {
		return peerinfo.ValidateAuthURL(override)
	}
	svc, err := c.Kube.CoreV1().Services(c.Namespace).Get(ctx, kube.Liqo0xAuthName, metav1.GetOptions{})
	switch {
	case kube.IsNotFound(err):
		return "", fmt.Errorf("no Service %s/%s: is Liqo 0.x installed in namespace %s? Give the auth URL with --auth-url", c.Namespace, kube.Liqo0xAuthName, c.Namespace)
	case err != nil:
		return "", kube.Reach(c.Server, err)
	}
	var nodes []corev1.Node
	if authURLNeedsNodes(svc) {
		list, err := c.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: physicalNodeSelector()})
		if err != nil {
			return "", fmt.Errorf("listing the Nodes for the auth URL of NodePort Service %s/%s: %w (give the auth URL with --auth-url)", c.Namespace, kube.Liqo0xAuthName, err)
		}
		nodes = list.Items
	}
	return AuthURL(svc, nodes)
}

func authURLNeedsNodes(svc *corev1.Service) bool {
	_, override := svc.Annotations[OverrideAddressAnnotation]
	return !override && svc.Spec.Type != corev1.ServiceTypeLoadBalancer
}

func physicalNodeSelector() string {
	req, err := labels.NewRequirement(nodeTypeLabel, selection.NotIn, []string{virtualNodeType})
	if err != nil {
		panic(err) // constant arguments
	}
	return labels.NewSelector().Add(*req).String()
}

// AuthURL applies §2.2's rules to Service liqo-auth and the cluster's
// Nodes: the address is the override annotation, else the LoadBalancer's
// first ingress (hostname before IP), else the first physical node's address;
// the port is the override annotation, else the LoadBalancer port or the
// NodePort. Port 443 is left out, as liqoctl does.
func AuthURL(svc *corev1.Service, nodes []corev1.Node) (string, error) {
	host, err := authHost(svc, nodes)
	if err != nil {
		return "", err
	}
	port, err := authPort(svc)
	if err != nil {
		return "", err
	}
	if port == "443" {
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		return "https://" + host, nil
	}
	return "https://" + net.JoinHostPort(host, port), nil
}

func authHost(svc *corev1.Service, nodes []corev1.Node) (string, error) {
	if addr, ok := svc.Annotations[OverrideAddressAnnotation]; ok {
		addr = strings.TrimPrefix(strings.TrimPrefix(addr, "https://"), "http://")
		addr = strings.TrimSuffix(addr, "/")
		if addr == "" {
			return "", fmt.Errorf("Service %s/%s has an empty %s annotation: set it to the auth server's address or give --auth-url", svc.Namespace, svc.Name, OverrideAddressAnnotation)
		}
		return addr, nil
	}
	if svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
		for _, ing := range svc.Status.LoadBalancer.Ingress[:min(1, len(svc.Status.LoadBalancer.Ingress))] {
			if ing.Hostname != "" {
				return ing.Hostname, nil
			}
			if ing.IP != "" {
				return ing.IP, nil
			}
		}
		return "", fmt.Errorf("LoadBalancer Service %s/%s has no external address yet: wait for it or give --auth-url", svc.Namespace, svc.Name)
	}
	for i := range nodes {
		if nodes[i].Labels[nodeTypeLabel] == virtualNodeType {
			continue
		}
		// Liqo looks at the first physical node only.
		for _, t := range nodeAddressOrder {
			for _, a := range nodes[i].Status.Addresses {
				if a.Type == t && a.Address != "" {
					return a.Address, nil
				}
			}
		}
		return "", fmt.Errorf("node %s has no address for NodePort Service %s/%s: give --auth-url", nodes[i].Name, svc.Namespace, svc.Name)
	}
	return "", fmt.Errorf("no Node to reach NodePort Service %s/%s on: give --auth-url", svc.Namespace, svc.Name)
}

func authPort(svc *corev1.Service) (string, error) {
	if port, ok := svc.Annotations[OverridePortAnnotation]; ok {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("Service %s/%s: annotation %s=%q is not a port: fix it or give --auth-url", svc.Namespace, svc.Name, OverridePortAnnotation, port)
		}
		return port, nil
	}
	if len(svc.Spec.Ports) == 0 {
		return "", fmt.Errorf("Service %s/%s has no port: give --auth-url", svc.Namespace, svc.Name)
	}
	switch svc.Spec.Type {
	case corev1.ServiceTypeLoadBalancer:
		return strconv.Itoa(int(svc.Spec.Ports[0].Port)), nil
	case corev1.ServiceTypeNodePort:
		return strconv.Itoa(int(svc.Spec.Ports[0].NodePort)), nil
	}
	return "", fmt.Errorf("Service %s/%s is of type %s, which other clusters cannot reach: set its %s/%s annotations (e.g. for an Ingress) or give --auth-url",
		svc.Namespace, svc.Name, svc.Spec.Type, OverrideAddressAnnotation, OverridePortAnnotation)
}
