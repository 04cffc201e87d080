package liqo0x

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

func authService(typ corev1.ServiceType, annotations map[string]string, ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: kube.Liqo0xAuthName, Namespace: "liqo", Annotations: annotations},
		Spec:       corev1.ServiceSpec{Type: typ, Ports: ports},
	}
}

func node(name string, labels map[string]string, addrs ...corev1.NodeAddress) corev1.Node {
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Status: corev1.NodeStatus{Addresses: addrs}}
}

// AuthURL follows liqoctl's GetHomeAuthURL (§2.2): override
// annotations first, then the LoadBalancer's ingress, then a NodePort on the
// first physical node's preferred address; port 443 is left out.
func TestAuthURL(t *testing.T) {
	https := corev1.ServicePort{Name: "https", Port: 443, NodePort: 30443}
	lb := func(ing ...corev1.LoadBalancerIngress) *corev1.Service {
		s := authService(corev1.ServiceTypeLoadBalancer, nil, https)
		s.Status.LoadBalancer.Ingress = ing
		return s
	}
	internal := corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.5"}
	external := corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "203.0.113.9"}
	hostname := corev1.NodeAddress{Type: corev1.NodeHostName, Address: "worker-1"}
	virtual := node("liqo-remote", map[string]string{"liqo.io/type": "virtual-node"}, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "198.51.100.1"})

	for _, tc := range []struct {
		name  string
		svc   *corev1.Service
		nodes []corev1.Node
		want  string
	}{
		{"override address and port", authService(corev1.ServiceTypeClusterIP,
			map[string]string{OverrideAddressAnnotation: "auth.example.com", OverridePortAnnotation: "8443"}, https),
			nil, "https://auth.example.com:8443"},
		{"override address with scheme and slash, port 443 left out", authService(corev1.ServiceTypeClusterIP,
			map[string]string{OverrideAddressAnnotation: "https://auth.example.com/", OverridePortAnnotation: "443"}, https),
			nil, "https://auth.example.com"},
		{"override address, LoadBalancer port", func() *corev1.Service {
			s := lb()
			s.Annotations = map[string]string{OverrideAddressAnnotation: "ingress.example.com"}
			return s
		}(), nil, "https://ingress.example.com"},
		{"LoadBalancer hostname before IP", lb(corev1.LoadBalancerIngress{Hostname: "lb.example.com", IP: "192.0.2.1"}), nil, "https://lb.example.com"},
		{"LoadBalancer IP", lb(corev1.LoadBalancerIngress{IP: "192.0.2.1"}), nil, "https://192.0.2.1"},
		{"LoadBalancer other port", func() *corev1.Service {
			s := lb(corev1.LoadBalancerIngress{IP: "192.0.2.1"})
			s.Spec.Ports[0].Port = 8443
			return s
		}(), nil, "https://192.0.2.1:8443"},
		{"override port on a LoadBalancer", func() *corev1.Service {
			s := lb(corev1.LoadBalancerIngress{IP: "192.0.2.1"})
			s.Annotations = map[string]string{OverridePortAnnotation: "9443"}
			return s
		}(), nil, "https://192.0.2.1:9443"},
		{"NodePort on the external IP", authService(corev1.ServiceTypeNodePort, nil, https),
			[]corev1.Node{node("worker-1", nil, hostname, internal, external)}, "https://203.0.113.9:30443"},
		{"NodePort skips virtual nodes", authService(corev1.ServiceTypeNodePort, nil, https),
			[]corev1.Node{virtual, node("worker-1", nil, internal)}, "https://10.0.0.5:30443"},
		{"NodePort, hostname as a last resort", authService(corev1.ServiceTypeNodePort, nil, https),
			[]corev1.Node{node("worker-1", nil, hostname)}, "https://worker-1:30443"},
		{"IPv6 node address is bracketed", authService(corev1.ServiceTypeNodePort, nil, https),
			[]corev1.Node{node("worker-1", nil, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "fd00::5"})}, "https://[fd00::5]:30443"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AuthURL(tc.svc, tc.nodes)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// Where liqoctl fails, AuthURL says in one line what to do.
func TestAuthURLErrors(t *testing.T) {
	https := corev1.ServicePort{Name: "https", Port: 443, NodePort: 30443}
	for _, tc := range []struct {
		name  string
		svc   *corev1.Service
		nodes []corev1.Node
		want  string
	}{
		{"LoadBalancer without ingress", authService(corev1.ServiceTypeLoadBalancer, nil, https), nil, "no external address yet"},
		{"LoadBalancer ingress without address", func() *corev1.Service {
			s := authService(corev1.ServiceTypeLoadBalancer, nil, https)
			s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{}}
			return s
		}(), nil, "no external address yet"},
		{"NodePort without nodes", authService(corev1.ServiceTypeNodePort, nil, https), nil, "no Node"},
		{"NodePort on a node without address", authService(corev1.ServiceTypeNodePort, nil, https), []corev1.Node{node("worker-1", nil)}, "has no address"},
		{"ClusterIP without override", authService(corev1.ServiceTypeClusterIP, nil, https),
			[]corev1.Node{node("worker-1", nil, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.5"})}, "type ClusterIP"},
		{"no port", authService(corev1.ServiceTypeNodePort, nil), []corev1.Node{node("worker-1", nil, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.5"})}, "has no port"},
		{"bad override port", authService(corev1.ServiceTypeClusterIP,
			map[string]string{OverrideAddressAnnotation: "a.example.com", OverridePortAnnotation: "https"}), nil, "is not a port"},
		{"empty override address", authService(corev1.ServiceTypeClusterIP,
			map[string]string{OverrideAddressAnnotation: "", OverridePortAnnotation: "443"}), nil, "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := AuthURL(tc.svc, tc.nodes)
			require.ErrorContains(t, err, tc.want)
			assert.Contains(t, err.Error(), "--auth-url", "says what to do")
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// The chart's --enable-authentication={{…}} arg, as Go's flag package reads it.
func TestAuthenticationDisabled(t *testing.T) {
	deploy := func(args ...string) *appsv1.Deployment {
		d := &appsv1.Deployment{}
		d.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "cert-creator", Args: []string{"--enable-authentication=false"}}}
		d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "auth-service", Image: "ghcr.io/liqotech/auth-service:v0.10.3",
			Command: []string{"/usr/bin/auth-service"}, Args: args}}
		return d
	}
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--cluster-id=x", "--enable-authentication=false", "--enable-tls"}, true},
		{[]string{"-enable-authentication=0"}, true},
		{[]string{"--enable-authentication=False"}, true},
		{[]string{"--enable-authentication=true"}, false},
		{[]string{"--enable-authentication"}, false},
		{[]string{"--enable-authentication=false", "--enable-authentication=true"}, false},
		{[]string{"--cluster-id=x"}, false},
		{[]string{"--enable-authentication=nope"}, false},
	} {
		assert.Equal(t, tc.want, kube.Liqo0xAuthenticationDisabled(deploy(tc.args...)), "%v", tc.args)
	}
}
