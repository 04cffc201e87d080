package kube

import (
	"fmt"

	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/gentype"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// Cluster bundles the clients of one cluster and where they point.
type Cluster struct {
	Config    *rest.Config
	Kube      kubernetes.Interface
	APIExt    apiextclient.Interface
	Liqo      *LiqoClient
	Server    string // API server URL
	Proxy     string // proxy on the way to Server (redacted), "" = direct
	Context   string // kubeconfig context, when loaded from a kubeconfig
	Namespace string // Liqo namespace
}

// NewCluster builds the clients for cfg; liqoNamespace "" means "liqo".
func NewCluster(cfg *rest.Config, liqoNamespace string) (*Cluster, error) {
	if liqoNamespace == "" {
		liqoNamespace = DefaultLiqoNamespace
	}
	if cfg.QPS == 0 {
		// A handshake or a verify issues bursts of small requests; client-go's
		// default 5 QPS would add seconds of client-side throttling.
		cfg = rest.CopyConfig(cfg)
		cfg.QPS, cfg.Burst = 50, 100
	}
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building a client for %s: %w", cfg.Host, err)
	}
	ext, err := apiextclient.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building a client for %s: %w", cfg.Host, err)
	}
	lc, err := NewLiqoClient(cfg)
	if err != nil {
		return nil, err
	}
	return &Cluster{Config: cfg, Kube: kc, APIExt: ext, Liqo: lc, Server: cfg.Host, Proxy: proxyOf(cfg), Namespace: liqoNamespace}, nil
}

// Scheme knows the authentication.liqo.io/v1beta1 types.
var Scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := authv1beta1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// TenantClient and IdentityClient are typed clients of one namespace.
type (
	TenantClient   = gentype.ClientWithList[*authv1beta1.Tenant, *authv1beta1.TenantList]
	IdentityClient = gentype.ClientWithList[*authv1beta1.Identity, *authv1beta1.IdentityList]
)

// LiqoClient is a typed client for authentication.liqo.io/v1beta1, built on
// client-go's generic typed client (there is no generated clientset).
type LiqoClient struct {
	rest  rest.Interface
	codec runtime.ParameterCodec
}

// NewLiqoClient returns a client for the Liqo authentication API group.
func NewLiqoClient(cfg *rest.Config) (*LiqoClient, error) {
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &authv1beta1.GroupVersion
	c.APIPath = "/apis"
	c.NegotiatedSerializer = serializer.NewCodecFactory(Scheme).WithoutConversion()
	if c.UserAgent == "" {
		c.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	rc, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("building a Liqo client for %s: %w", cfg.Host, err)
	}
	return &LiqoClient{rest: rc, codec: runtime.NewParameterCodec(Scheme)}, nil
}

// Tenants returns a client of the Tenants in namespace ("" = all namespaces).
func (c *LiqoClient) Tenants(namespace string) *TenantClient {
	return gentype.NewClientWithList(authv1beta1.TenantResource, c.rest, c.codec, namespace,
		func() *authv1beta1.Tenant { return &authv1beta1.Tenant{} },
		func() *authv1beta1.TenantList { return &authv1beta1.TenantList{} })
}

// Identities returns a client of the Identities in namespace ("" = all namespaces).
func (c *LiqoClient) Identities(namespace string) *IdentityClient {
	return gentype.NewClientWithList(authv1beta1.IdentityResource, c.rest, c.codec, namespace,
		func() *authv1beta1.Identity { return &authv1beta1.Identity{} },
		func() *authv1beta1.IdentityList { return &authv1beta1.IdentityList{} })
}
