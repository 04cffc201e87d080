package controller

import (
	"context"
	"sync"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// advertiser builds the authParams the provider hands to a consumer (§6.4):
// the issued certificate plus the API server address and CA it advertises,
// by kube.Advertise's rules, a Tenant's advertise annotations winning over
// Options. One per Manager, shared by the Tenant and ResourceSlice
// reconcilers.
type advertiser struct {
	c    *kube.Cluster
	o    Options
	node nodeAddress // the last control-plane Node address found
}

func newAdvertiser(c *kube.Cluster, o Options) *advertiser { return &advertiser{c: c, o: o} }

// authParams returns the authParams for cert; proxyURL is the consumer's
// (Tenant spec.proxyURL), "" for none. It ignores Tenant annotations: use
// forTenant where the Tenant is known.
func (a *advertiser) authParams(ctx context.Context, cert []byte, proxyURL string) (*authv1beta1.AuthParams, error) {
	return a.build(ctx, nil, cert, proxyURL)
}

// forTenant returns the authParams for cert issued to t's consumer,
// honouring t's advertise annotations (kube.AdvertiseAPIServerAnnotation…).
func (a *advertiser) forTenant(ctx context.Context, t *authv1beta1.Tenant, cert []byte) (*authv1beta1.AuthParams, error) {
	return a.build(ctx, t.Annotations, cert, t.Spec.ProxyURL)
}

func (a *advertiser) build(ctx context.Context, annotations map[string]string, cert []byte, proxyURL string) (*authv1beta1.AuthParams, error) {
	o, err := a.options().WithTenantAnnotations(annotations)
	if err != nil {
		return nil, err
	}
	adv, err := a.c.Advertise(ctx, o)
	if err != nil {
		return nil, err
	}
	return kube.NewAuthParams(cert, adv.CA, adv.APIServer, proxyURL), nil
}

func (a *advertiser) options() kube.AdvertiseOptions {
	o := kube.AdvertiseOptions{
		APIServerOverride: a.o.APIServerOverride, CAOverride: a.o.CAOverride, TrustedCA: a.o.TrustedCA,
		NodeAddress: a.o.AdvertiseNodeAddress, KubeconfigWithoutNode: a.o.AdvertiseKubeconfigWithoutNode,
	}
	if o.NodeAddress {
		o.LookupNode = a.nodeAddress
	}
	return o
}

// nodeAddressTTL is how long a control-plane Node's address is reused: the
// reconcilers build authParams on every pass, Nodes rarely change address.
const nodeAddressTTL = time.Minute

type nodeAddress struct {
	mu      sync.Mutex
	address string
	at      time.Time
}

// nodeAddress returns the control-plane Node's address, from the cache for
// nodeAddressTTL. Failures are not cached.
func (a *advertiser) nodeAddress(ctx context.Context) (string, error) {
	a.node.mu.Lock()
	defer a.node.mu.Unlock()
	if a.node.address != "" && time.Since(a.node.at) < nodeAddressTTL {
		return a.node.address, nil
	}
	address, err := a.c.ControlPlaneAddress(ctx)
	if err != nil {
		return "", err
	}
	a.node.address, a.node.at = address, time.Now()
	return address, nil
}
