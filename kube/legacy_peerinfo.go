package kube

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube/legacypeer"
)

// Liqo 0.x marks its virtual nodes with this label; their addresses are not
// reachable from other clusters, so the auth URL never uses them (§2.2).
const (
	legacyNodeTypeLabel   = "liqo.io/type"
	legacyVirtualNodeType = "virtual-node"
	legacyEnableAuthFlag  = "enable-authentication"
)

// legacyNodeAddressOrder is the order in which Liqo 0.x picks a node's
// address for a NodePort auth Service (§2.2).
var legacyNodeAddressOrder = []corev1.NodeAddressType{
	corev1.NodeExternalDNS, corev1.NodeExternalIP, corev1.NodeInternalDNS, corev1.NodeInternalIP, corev1.NodeHostName,
}

// LegacyPeerInfo gathers, on a 0.x provider (c.Namespace = Liqo namespace),
// what `liqoctl generate peer-command` prints (§4): the cluster ID and name,
// the auth-token and the auth URL (authURLOverride wins, as --auth-url does).
// Errors are one line with what to do.
func (c *Cluster) LegacyPeerInfo(ctx context.Context, authURLOverride string) (*LegacyPeerInfo, error) {
	info := &LegacyPeerInfo{}
	release, err := c.DetectRelease(ctx)
	if err != nil {
		return nil, err
	}
	if release.Generation != GenerationLegacy && release.Generation != GenerationUnknown {
		return nil, fmt.Errorf("this cluster runs %s, not Liqo 0.x (namespace %s): peer info is for 0.x providers; use the v1 handshake", release, c.Namespace)
	}
	info.Version, info.Line = release.Version, release.Line
	cm, err := c.ClusterIDConfigMap(ctx)
	if IsNotFoundOrNoID(err) {
		return nil, fmt.Errorf("no cluster-ID ConfigMap (label %s) in namespace %s: is Liqo 0.x installed there? Give its namespace", ClusterIDSelector, c.Namespace)
	}
	if err != nil {
		return nil, err
	}
	info.ClusterID = cm.Data[ClusterIDKey]
	if info.ClusterID == "" {
		return nil, fmt.Errorf("the cluster-ID ConfigMap %s/%s has no %s: is Liqo 0.x installed correctly?", cm.Namespace, cm.Name, ClusterIDKey)
	}
	info.ClusterName = cm.Data[LegacyClusterNameKey]
	if info.ClusterName == "" {
		info.ClusterName = info.ClusterID
	}

	if info.Token, err = c.legacyAuthToken(ctx); err != nil {
		return nil, err
	}
	if info.AuthURL, err = c.legacyAuthURL(ctx, authURLOverride); err != nil {
		return nil, err
	}

	deploy, err := c.Kube.AppsV1().Deployments(c.Namespace).Get(ctx, LegacyAuthName, metav1.GetOptions{})
	switch {
	case err == nil:
		info.AuthenticationDisabled = LegacyAuthenticationDisabled(deploy)
	case !IsNotFound(err) && !apierrors.IsForbidden(err):
		return nil, Reach(c.Server, err)
	default:
		info.AuthenticationUnknown = true
	}
	return info, nil
}

func (c *Cluster) legacyAuthToken(ctx context.Context) (string, error) {
	s, err := c.Kube.CoreV1().Secrets(c.Namespace).Get(ctx, LegacyAuthTokenSecretName, metav1.GetOptions{})
	switch {
	case IsNotFound(err):
		return "", fmt.Errorf("no Secret %s/%s: the auth server has not created it: is liqo-auth running?", c.Namespace, LegacyAuthTokenSecretName)
	case apierrors.IsForbidden(err):
		return "", fmt.Errorf("reading Secret %s/%s is forbidden: use a kubeconfig that may read Secrets in namespace %s", c.Namespace, LegacyAuthTokenSecretName, c.Namespace)
	case err != nil:
		return "", Reach(c.Server, err)
	}
	token := string(s.Data[LegacyAuthTokenField])
	if token == "" {
		return "", fmt.Errorf("Secret %s/%s has no %q: delete it so that the auth server creates a new one", c.Namespace, LegacyAuthTokenSecretName, LegacyAuthTokenField)
	}
	return token, nil
}

func (c *Cluster) legacyAuthURL(ctx context.Context, override string) (string, error) {
	if override != "" {
		return legacypeer.ValidateAuthURL(override)
	}
	svc, err := c.Kube.CoreV1().Services(c.Namespace).Get(ctx, LegacyAuthName, metav1.GetOptions{})
	switch {
	case IsNotFound(err):
		return "", fmt.Errorf("no Service %s/%s: is Liqo 0.x installed in namespace %s? Give the auth URL with --auth-url", c.Namespace, LegacyAuthName, c.Namespace)
	case err != nil:
		return "", Reach(c.Server, err)
	}
	var nodes []corev1.Node
	if legacyAuthURLNeedsNodes(svc) {
		list, err := c.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: legacyPhysicalNodeSelector()})
		if err != nil {
			return "", fmt.Errorf("listing the Nodes for the auth URL of NodePort Service %s/%s: %w (give the auth URL with --auth-url)", c.Namespace, LegacyAuthName, err)
		}
		nodes = list.Items
	}
	return LegacyAuthURL(svc, nodes)
}

func legacyAuthURLNeedsNodes(svc *corev1.Service) bool {
	_, override := svc.Annotations[LegacyOverrideAddressAnnotation]
	return !override && svc.Spec.Type != corev1.ServiceTypeLoadBalancer
}

func legacyPhysicalNodeSelector() string {
	req, err := labels.NewRequirement(legacyNodeTypeLabel, selection.NotIn, []string{legacyVirtualNodeType})
	if err != nil {
		panic(err) // constant arguments
	}
	return labels.NewSelector().Add(*req).String()
}

// LegacyAuthURL applies §2.2's rules to Service liqo-auth and the cluster's
// Nodes: the address is the override annotation, else the LoadBalancer's
// first ingress (hostname before IP), else the first physical node's address;
// the port is the override annotation, else the LoadBalancer port or the
// NodePort. Port 443 is left out, as liqoctl does.
func LegacyAuthURL(svc *corev1.Service, nodes []corev1.Node) (string, error) {
	host, err := legacyAuthHost(svc, nodes)
	if err != nil {
		return "", err
	}
	port, err := legacyAuthPort(svc)
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

func legacyAuthHost(svc *corev1.Service, nodes []corev1.Node) (string, error) {
	if addr, ok := svc.Annotations[LegacyOverrideAddressAnnotation]; ok {
		addr = strings.TrimPrefix(strings.TrimPrefix(addr, "https://"), "http://")
		addr = strings.TrimSuffix(addr, "/")
		if addr == "" {
			return "", fmt.Errorf("Service %s/%s has an empty %s annotation: set it to the auth server's address or give --auth-url", svc.Namespace, svc.Name, LegacyOverrideAddressAnnotation)
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
		if nodes[i].Labels[legacyNodeTypeLabel] == legacyVirtualNodeType {
			continue
		}
		// Liqo looks at the first physical node only.
		for _, t := range legacyNodeAddressOrder {
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

func legacyAuthPort(svc *corev1.Service) (string, error) {
	if port, ok := svc.Annotations[LegacyOverridePortAnnotation]; ok {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("Service %s/%s: annotation %s=%q is not a port: fix it or give --auth-url", svc.Namespace, svc.Name, LegacyOverridePortAnnotation, port)
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
		svc.Namespace, svc.Name, svc.Spec.Type, LegacyOverrideAddressAnnotation, LegacyOverridePortAnnotation)
}

// LegacyAuthenticationDisabled tells whether the liqo-auth Deployment runs
// the auth server with --enable-authentication=false (§2.7): then it accepts
// any token. As Go's flag package reads it: one or two dashes, any
// strconv.ParseBool spelling, the last occurrence wins.
func LegacyAuthenticationDisabled(d *appsv1.Deployment) bool {
	disabled := false
	for _, ctr := range d.Spec.Template.Spec.Containers {
		for _, arg := range append(append([]string{}, ctr.Command...), ctr.Args...) {
			name, value, ok := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-"), "=")
			if name != legacyEnableAuthFlag {
				continue
			}
			enabled := true
			if ok {
				var err error
				if enabled, err = strconv.ParseBool(value); err != nil {
					continue // the server would not even start
				}
			}
			disabled = !enabled
		}
	}
	return disabled
}
