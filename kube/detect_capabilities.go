package kube

import (
	"context"

	utilversion "k8s.io/apimachinery/pkg/util/version"
)

// LiqoVersionLabel is the label Liqo's chart puts on its objects (the
// cluster-ID ConfigMap among them) with the release installed.
const LiqoVersionLabel = "app.kubernetes.io/version"

// LiqoV1Capabilities is what a Liqo v1 release does differently, in the
// terms the rest of the tool decides on: one place knows which release did
// what, instead of release strings compared wherever a difference matters.
type LiqoV1Capabilities struct {
	// Version is the release ("v1.1.2"); "" when the chart's label is missing.
	Version string
	// ConsumerDrivenRenewal: Liqo v1.0–v1.1, whose consumer asks for
	// renewals, whose provider renews only once its certificate cache is
	// deleted, and whose consumer never applies a renewed control-plane
	// certificate (§10.2). v1.2 renews on the provider's side.
	ConsumerDrivenRenewal bool
}

// providerDrivenRenewalSince is the first release whose provider renews
// identities itself (§10.2).
var providerDrivenRenewalSince = utilversion.MustParseSemantic("v1.2.0")

// LiqoV1CapabilitiesOf reads what release version is and does; an unknown
// or unparsable version is taken as the newest behaviour.
func LiqoV1CapabilitiesOf(version string) LiqoV1Capabilities {
	caps := LiqoV1Capabilities{Version: version}
	if v, err := utilversion.ParseGeneric(version); err == nil {
		caps.ConsumerDrivenRenewal = v.LessThan(providerDrivenRenewalSince)
	}
	return caps
}

// LiqoV1Capabilities reads the Liqo v1 release installed on c from its
// chart's label on the cluster-ID ConfigMap.
func (c *Cluster) LiqoV1Capabilities(ctx context.Context) (LiqoV1Capabilities, error) {
	cm, err := c.ClusterIDConfigMap(ctx)
	if err != nil {
		return LiqoV1Capabilities{}, err
	}
	return LiqoV1CapabilitiesOf(cm.Labels[LiqoVersionLabel]), nil
}
