package kube

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
)

// Annotations on a Tenant (provider side) that change, for that consumer
// only, what this project's provider controllers advertise in its
// authParams (§6.4). They win over the controller's flags and survive
// renewals, which copy the Tenant's status again. Real Liqo ignores them.
const (
	// AdvertiseAPIServerAnnotation: the API server URL (or host[:port]),
	// https:// prefixed like --api-server-address-override.
	AdvertiseAPIServerAnnotation = "liqo-auth-tui.io/api-server-address"
	// AdvertiseCAAnnotation: base64 of the CA PEM, like Liqo's --ca-override.
	AdvertiseCAAnnotation = "liqo-auth-tui.io/ca"
	// AdvertiseTrustedCAAnnotation: "true" advertises no CA (publicly
	// trusted certificate), "false" the default one despite --trusted-ca.
	AdvertiseTrustedCAAnnotation = "liqo-auth-tui.io/trusted-ca"
)

// Control-plane node labels Liqo looks for, in its order (§6.4).
var controlPlaneNodeLabels = []string{
	"node-role.kubernetes.io/control-plane",
	"node-role.kubernetes.io/master",
	"node-role.kubernetes.io/controlplane",
}

// Node address types by Liqo's preference (§6.4).
var nodeAddressPreference = []corev1.NodeAddressType{
	corev1.NodeExternalDNS, corev1.NodeExternalIP, corev1.NodeInternalDNS, corev1.NodeInternalIP, corev1.NodeHostName,
}

// controlPlanePort is the port Liqo always puts after a node's address.
const controlPlanePort = "6443"

// ErrNoControlPlaneNode is Liqo's error when nothing tells the API server
// address: no override and no control-plane node.
var ErrNoControlPlaneNode = errors.New("no ApiServer.Address variable provided and no master node found, one of the two values must be present")

// AdvertiseSource tells where an advertised value comes from.
type AdvertiseSource string

const (
	AdvertiseFromOverride   AdvertiseSource = "override"   // a flag or a Tenant annotation
	AdvertiseFromNode       AdvertiseSource = "node"       // a control-plane Node's address
	AdvertiseFromKubeconfig AdvertiseSource = "kubeconfig" // the client's own server or CA
	AdvertiseFromTrusted    AdvertiseSource = "trusted"    // no CA: publicly trusted
)

// AdvertiseOptions are the provider's settings for authParams (§6.4).
type AdvertiseOptions struct {
	APIServerOverride string
	CAOverride        []byte
	TrustedCA         bool
	// NodeAddress, without APIServerOverride, advertises a control-plane
	// Node's address (the in-cluster controller, whose own server is a
	// Service VIP); otherwise the client's server is advertised.
	NodeAddress bool
	// KubeconfigWithoutNode, with NodeAddress, advertises the client's
	// server when the cluster has no control-plane Node (a bare control
	// plane, as the lab's) or this client may not list Nodes, instead of
	// failing: the in-process controllers, which run beside the admin.
	KubeconfigWithoutNode bool
	// LookupNode replaces ControlPlaneAddress (a cache); nil = list Nodes.
	LookupNode func(context.Context) (string, error)
}

// Advertised is what a provider puts in authParams besides the certificate.
type Advertised struct {
	APIServer       string
	APIServerSource AdvertiseSource
	CA              []byte // nil: none advertised (publicly trusted)
	CASource        AdvertiseSource
}

// Advertise applies Liqo's rules (§6.4). API server: the override
// (https:// prefixed), else a control-plane Node's address with
// o.NodeAddress, else the client's server. CA: the override, else none with
// TrustedCA, else the client's CA (inline, file, or in a Pod the service
// account's ca.crt, which is rest.InClusterConfig's CAFile).
func (c *Cluster) Advertise(ctx context.Context, o AdvertiseOptions) (Advertised, error) {
	var a Advertised
	switch {
	case o.APIServerOverride != "":
		server, err := NormalizeAPIServer(o.APIServerOverride)
		if err != nil {
			return a, err
		}
		a.APIServer, a.APIServerSource = server, AdvertiseFromOverride
	case o.NodeAddress:
		lookup := o.LookupNode
		if lookup == nil {
			lookup = c.ControlPlaneAddress
		}
		server, err := lookup(ctx)
		switch {
		case err == nil:
			a.APIServer, a.APIServerSource = server, AdvertiseFromNode
		case o.KubeconfigWithoutNode && (errors.Is(err, ErrNoControlPlaneNode) || apierrors.IsForbidden(err)):
			a.APIServer, a.APIServerSource = strings.TrimSuffix(withHTTPS(c.Config.Host), "/"), AdvertiseFromKubeconfig
		default:
			return a, err
		}
	default:
		a.APIServer, a.APIServerSource = strings.TrimSuffix(withHTTPS(c.Config.Host), "/"), AdvertiseFromKubeconfig
	}
	switch {
	case len(o.CAOverride) > 0:
		a.CA, a.CASource = o.CAOverride, AdvertiseFromOverride
	case o.TrustedCA:
		a.CASource = AdvertiseFromTrusted
	default:
		ca, err := c.clientCA()
		if err != nil {
			return a, err
		}
		a.CA, a.CASource = ca, AdvertiseFromKubeconfig
	}
	return a, nil
}

func (c *Cluster) clientCA() ([]byte, error) {
	switch {
	case len(c.Config.CAData) > 0:
		return c.Config.CAData, nil
	case c.Config.CAFile != "":
		ca, err := os.ReadFile(c.Config.CAFile)
		if err != nil {
			return nil, fmt.Errorf("reading the API server CA: %w", err)
		}
		return ca, nil
	}
	return nil, nil
}

// withHTTPS is Liqo's rule: https:// is prefixed unless already there.
func withHTTPS(s string) string {
	if strings.HasPrefix(s, "https://") {
		return s
	}
	return "https://" + s
}

// NormalizeAPIServer turns an API server override (URL or host[:port])
// into the URL advertised, refusing what a consumer could not use.
func NormalizeAPIServer(s string) (string, error) {
	s = strings.TrimSpace(s)
	if scheme, _, ok := strings.Cut(s, "://"); ok && scheme != "https" {
		return "", fmt.Errorf("API server address %q: only https is served; give host[:port] or https://host[:port]", s)
	}
	server := strings.TrimSuffix(withHTTPS(s), "/")
	u, err := url.Parse(server)
	if err != nil || u.Host == "" || u.Hostname() == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("API server address %q is not host[:port] or https://host[:port]", s)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("API server address %q: port %q is not 1-65535", s, p)
		}
	}
	return server, nil
}

// ControlPlaneAddress is the API server URL Liqo derives from the Nodes
// (§6.4): https://<address>:6443 of the first control-plane node address by
// type preference. Unlike Liqo, an IPv6 address is bracketed.
func (c *Cluster) ControlPlaneAddress(ctx context.Context) (string, error) {
	for _, label := range controlPlaneNodeLabels {
		nodes, err := c.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: label})
		if err != nil {
			return "", fmt.Errorf("listing the control-plane nodes to advertise their address: %w", c.Reach(err))
		}
		if len(nodes.Items) == 0 {
			continue
		}
		if addr, ok := NodeAPIServer(nodes.Items); ok {
			return addr, nil
		}
	}
	return "", fmt.Errorf("%w (set --api-server-address-override to the address consumers reach this API server at)", ErrNoControlPlaneNode)
}

// NodeAPIServer picks the address of nodes Liqo advertises: by type
// preference first (outer loop), then by node.
func NodeAPIServer(nodes []corev1.Node) (string, bool) {
	for _, t := range nodeAddressPreference {
		for _, n := range nodes {
			for _, a := range n.Status.Addresses {
				if a.Type == t && a.Address != "" {
					return "https://" + net.JoinHostPort(a.Address, controlPlanePort), true
				}
			}
		}
	}
	return "", false
}

// WithTenantAnnotations returns o changed by a Tenant's advertise
// annotations, which win over it. A bad annotation is an error naming it.
func (o AdvertiseOptions) WithTenantAnnotations(annotations map[string]string) (AdvertiseOptions, error) {
	if v, ok := annotations[AdvertiseAPIServerAnnotation]; ok && v != "" {
		server, err := NormalizeAPIServer(v)
		if err != nil {
			return o, fmt.Errorf("annotation %s: %w", AdvertiseAPIServerAnnotation, err)
		}
		o.APIServerOverride = server
	}
	if v, ok := annotations[AdvertiseTrustedCAAnnotation]; ok && v != "" {
		trusted, err := strconv.ParseBool(v)
		if err != nil {
			return o, fmt.Errorf("annotation %s: %q is not true or false", AdvertiseTrustedCAAnnotation, v)
		}
		o.TrustedCA = trusted
		if trusted {
			o.CAOverride = nil // the Tenant's choice beats the flags' CA
		}
	}
	if v, ok := annotations[AdvertiseCAAnnotation]; ok && v != "" {
		ca, err := DecodeCAOverride(v)
		if err != nil {
			return o, fmt.Errorf("annotation %s: %w", AdvertiseCAAnnotation, err)
		}
		o.CAOverride = ca
	}
	return o, nil
}

// DecodeCAOverride reads a CA given as base64 of its PEM (Liqo's
// --ca-override and the Tenant annotation), checking it holds a certificate.
func DecodeCAOverride(b64 string) ([]byte, error) {
	ca, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return nil, fmt.Errorf("not base64 of a CA PEM: %w", err)
	}
	if _, err := authcrypto.CertificateFingerprint(ca); err != nil {
		return nil, fmt.Errorf("not base64 of a CA PEM: %w", err)
	}
	return ca, nil
}

// AdvertiseAnnotations are the Tenant annotations that make the provider
// advertise apiServer ("" = its default), ca (nil = its default) and, with
// trustedCA, no CA.
func AdvertiseAnnotations(apiServer string, ca []byte, trustedCA bool) map[string]string {
	a := map[string]string{}
	if apiServer != "" {
		a[AdvertiseAPIServerAnnotation] = apiServer
	}
	if len(ca) > 0 {
		a[AdvertiseCAAnnotation] = base64.StdEncoding.EncodeToString(ca)
	}
	if trustedCA {
		a[AdvertiseTrustedCAAnnotation] = "true"
	}
	return a
}

// LoopbackHost returns the host of server (a URL or host:port) when it is
// a loopback address (127.0.0.0/8, ::1, localhost): an address that only
// the machine the client runs on reaches. "" otherwise.
func LoopbackHost(server string) string {
	u, err := url.Parse(withHTTPS(server))
	if err != nil {
		return ""
	}
	host := u.Hostname()
	if host == "localhost" {
		return host
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return host
	}
	return ""
}
