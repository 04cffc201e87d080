package kube

import (
	"fmt"

	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// Typed clients of one namespace ("" = all namespaces).
type (
	TenantClient        = gentype.ClientWithList[*authv1beta1.Tenant, *authv1beta1.TenantList]
	IdentityClient      = gentype.ClientWithList[*authv1beta1.Identity, *authv1beta1.IdentityList]
	ResourceSliceClient = gentype.ClientWithList[*authv1beta1.ResourceSlice, *authv1beta1.ResourceSliceList]
	RenewClient         = gentype.ClientWithList[*authv1beta1.Renew, *authv1beta1.RenewList]
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
	return liqoClient[authv1beta1.Tenant, authv1beta1.TenantList](c, authv1beta1.TenantResource, namespace)
}

// Identities returns a client of the Identities in namespace ("" = all namespaces).
func (c *LiqoClient) Identities(namespace string) *IdentityClient {
	return liqoClient[authv1beta1.Identity, authv1beta1.IdentityList](c, authv1beta1.IdentityResource, namespace)
}

// ResourceSlices returns a client of the ResourceSlices in namespace ("" = all).
func (c *LiqoClient) ResourceSlices(namespace string) *ResourceSliceClient {
	return liqoClient[authv1beta1.ResourceSlice, authv1beta1.ResourceSliceList](c, authv1beta1.ResourceSliceResource, namespace)
}

// Renews returns a client of the Renews in namespace ("" = all).
func (c *LiqoClient) Renews(namespace string) *RenewClient {
	return liqoClient[authv1beta1.Renew, authv1beta1.RenewList](c, authv1beta1.RenewResource, namespace)
}

// liqoClient builds the generic typed client of one Liqo kind.
func liqoClient[T, L any, PT interface {
	*T
	runtime.Object
	metav1.Object
}, PL interface {
	*L
	runtime.Object
	metav1.ListInterface
}](c *LiqoClient, resource, namespace string) *gentype.ClientWithList[PT, PL] {
	return gentype.NewClientWithList(resource, c.rest, c.codec, namespace,
		func() PT { return PT(new(T)) }, func() PL { return PL(new(L)) })
}

// WithProtobuf is c whose built-in kinds (Secrets, Namespaces, CSRs, RBAC,
// Events) travel as protobuf, in requests and in watches: cheaper than JSON
// to encode and decode, for the API server as for the client. The Liqo
// kinds, custom resources, stay JSON (their own client).
func (c *Cluster) WithProtobuf() (*Cluster, error) {
	pcfg := rest.CopyConfig(c.Config)
	pcfg.ContentType = runtime.ContentTypeProtobuf
	pcfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	kc, err := kubernetes.NewForConfig(pcfg)
	if err != nil {
		return nil, fmt.Errorf("building a client for %s: %w", c.Server, err)
	}
	own := *c
	own.Kube = kc
	return &own, nil
}
