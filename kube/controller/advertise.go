package controller

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// advertiser builds the authParams the provider hands to a consumer (§6.4):
// the issued certificate plus the API server address and CA it advertises.
// The Tenant and ResourceSlice reconcilers share it.
type advertiser struct {
	c *kube.Cluster
	o Options
}

// authParams returns the authParams for cert; proxyURL is the consumer's
// (Tenant spec.proxyURL), "" for none.
func (a advertiser) authParams(ctx context.Context, cert []byte, proxyURL string) (*authv1beta1.AuthParams, error) {
	ca, err := a.c.AdvertisedCA(a.o.CAOverride)
	if err != nil {
		return nil, err
	}
	return kube.NewAuthParams(cert, ca, a.c.AdvertisedAPIServer(a.o.APIServerOverride), proxyURL), nil
}
