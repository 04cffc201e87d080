package liqo0x

import (
	"context"
	"fmt"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The auth server's flags that say what it answers (§2.2, §2.4 step 6).
const (
	advertiseAddressFlag   = "--advertise-api-server-address"
	advertiseTrustedCAFlag = "--advertise-api-server-trusted-ca"
	rootCAConfigMap        = "kube-root-ca.crt"
	rootCAKey              = "ca.crt"
	controlPlanePort       = "6443"
)

// controlPlaneLabels are the node labels the auth server looks for, in order (§2.4).
var controlPlaneLabels = []string{"node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master", "node-role.kubernetes.io/controlplane"}

// apiServerAddressOrder is the order the auth server takes a control-plane
// Node's addresses in (§2.4).
var apiServerAddressOrder = []corev1.NodeAddressType{corev1.NodeExternalDNS, corev1.NodeExternalIP, corev1.NodeInternalDNS, corev1.NodeInternalIP}

// Advertised is the API server a 0.x provider's auth server hands out with
// an identity, and where each value was read.
type Advertised struct {
	URL     string
	CA      []byte // nil: the consumer trusts its system roots
	URLFrom string // where each was read, for the run's notes
	CAFrom  string
}

// AdvertisedAPIServer is what this provider's auth server answers as
// apiServerUrl and apiServerCA (§2.4 step 6), for a consumer whose answer
// was lost: the URL is the liqo-auth Deployment's
// --advertise-api-server-address, else the first control-plane Node's
// address on 6443; the CA is the auth pod's in-cluster CA (ConfigMap
// kube-root-ca.crt of the Liqo namespace), none with
// --advertise-api-server-trusted-ca. What cannot be read falls back to the
// admin's kubeconfig (its CA read from its certificate-authority file when
// it names one).
func (c *Cluster) AdvertisedAPIServer(ctx context.Context) (*Advertised, error) {
	a := &Advertised{}
	trustedCA := false
	deploy, err := c.Kube.AppsV1().Deployments(c.Namespace).Get(ctx, kube.Liqo0xAuthName, metav1.GetOptions{})
	if err == nil {
		for _, ct := range deploy.Spec.Template.Spec.Containers {
			args := append(append([]string{}, ct.Command...), ct.Args...)
			if v, ok := flagValue(args, advertiseAddressFlag); ok && v != "" {
				a.URL, a.URLFrom = v, "Deployment "+c.Namespace+"/"+kube.Liqo0xAuthName+" "+advertiseAddressFlag
			}
			if v, ok := flagValue(args, advertiseTrustedCAFlag); ok && (v == "" || v == "true") {
				trustedCA = true
			}
		}
	}
	if a.URL == "" {
		if addr := c.controlPlaneAddress(ctx); addr != "" {
			a.URL, a.URLFrom = "https://"+addr+":"+controlPlanePort, "control-plane Node "+addr
		}
	}
	if a.URL == "" {
		a.URL, a.URLFrom = c.Config.Host, "the provider's kubeconfig (no "+advertiseAddressFlag+" nor control-plane Node found)"
	}
	if !strings.HasPrefix(a.URL, "https://") && !strings.HasPrefix(a.URL, "http://") {
		a.URL = "https://" + a.URL
	}
	if trustedCA {
		a.CAFrom = advertiseTrustedCAFlag + ": the system roots"
		return a, nil
	}
	cm, err := c.Kube.CoreV1().ConfigMaps(c.Namespace).Get(ctx, rootCAConfigMap, metav1.GetOptions{})
	if err == nil && cm.Data[rootCAKey] != "" {
		a.CA, a.CAFrom = []byte(cm.Data[rootCAKey]), "ConfigMap "+c.Namespace+"/"+rootCAConfigMap
		return a, nil
	}
	a.CA, a.CAFrom = c.Config.CAData, "the provider's kubeconfig"
	if len(a.CA) == 0 && c.Config.CAFile != "" {
		if a.CA, err = os.ReadFile(c.Config.CAFile); err != nil {
			return nil, fmt.Errorf("reading the provider's CA file %s: %w", c.Config.CAFile, err)
		}
		a.CAFrom = "the provider's kubeconfig (" + c.Config.CAFile + ")"
	}
	return a, nil
}

// flagValue finds --name=value or --name value in args.
func flagValue(args []string, name string) (string, bool) {
	for i, arg := range args {
		if v, ok := strings.CutPrefix(arg, name+"="); ok {
			return v, true
		}
		if arg == name {
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				return args[i+1], true
			}
			return "", true
		}
	}
	return "", false
}

// controlPlaneAddress is the address of the first control-plane Node, "" when none.
func (c *Cluster) controlPlaneAddress(ctx context.Context) string {
	for _, label := range controlPlaneLabels {
		nodes, err := c.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: label})
		if err != nil || len(nodes.Items) == 0 {
			continue
		}
		for _, t := range apiServerAddressOrder {
			for _, addr := range nodes.Items[0].Status.Addresses {
				if addr.Type == t && addr.Address != "" {
					return addr.Address
				}
			}
		}
	}
	return ""
}
