package kube

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// LiqoFlavor is which authentication a cluster runs: Liqo v1's (the
// authentication.liqo.io CRDs served by Liqo), Liqo 0.x's shared-token auth
// server, this tool's own (`init`: the same CRDs, no Liqo), or none.
type LiqoFlavor string

const (
	// FlavorUnknown: the user may not even list the API groups.
	FlavorUnknown  LiqoFlavor = "unknown"
	FlavorNone     LiqoFlavor = "none"
	FlavorToolInit LiqoFlavor = "ours"
	FlavorV1       LiqoFlavor = "v1"
	FlavorLiqo0x   LiqoFlavor = "0.x"
)

// The API groups that tell Liqo v1 and this tool's `init` apart.
const (
	v1CoreGroupVersion         = "core.liqo.io/v1beta1"
	authenticationGroupVersion = "authentication.liqo.io/v1beta1"
)

// LiqoRelease is what a probe learns about the cluster's Liqo.
type LiqoRelease struct {
	Flavor LiqoFlavor `json:"liqoGeneration"`
	// Version is the liqo-auth image tag (0.x), "" when unknown.
	Version string        `json:"liqoVersion,omitempty"`
	Line    peerinfo.Line `json:"liqoLine,omitempty"`
	// AuthenticationDisabled: the 0.x liqo-auth Deployment runs with
	// --enable-authentication=false, so anyone who reaches it can peer.
	AuthenticationDisabled bool `json:"liqoAuthenticationDisabled,omitempty"`
}

// String names the release for messages: "Liqo 0.x (v0.10.3)".
func (r LiqoRelease) String() string {
	switch r.Flavor {
	case FlavorV1:
		return "Liqo v1"
	case FlavorLiqo0x:
		switch {
		case r.Version != "":
			return "Liqo 0.x (" + r.Version + ")"
		case r.Line != peerinfo.LineUnknown:
			return "Liqo 0.x (" + string(r.Line) + ")"
		}
		return "Liqo 0.x"
	case FlavorToolInit:
		return "liqo-auth-tui's authentication (init), no Liqo"
	case FlavorNone:
		return "no Liqo"
	}
	return "an unknown Liqo generation"
}

// DetectRelease tells which generation the cluster runs. The API groups come
// from discovery, which every authenticated user may read; the 0.x version
// comes from the liqo-auth Deployment and the CRD's schema, which a
// restricted user may not read: the version then stays unknown.
func (c *Cluster) DetectRelease(ctx context.Context) (LiqoRelease, error) {
	var r LiqoRelease
	p := c.probeRelease(ctx)
	if apierrors.IsForbidden(p.v1Err) {
		return LiqoRelease{Flavor: FlavorUnknown}, nil
	}
	if p.v1Err != nil {
		return r, p.v1Err
	}
	if p.v1 {
		// Helm keeps CRDs on uninstall: 0.x leftovers beside v1 do not count.
		return LiqoRelease{Flavor: FlavorV1}, nil
	}
	if p.liqo0xErr != nil && !apierrors.IsForbidden(p.liqo0xErr) {
		return r, p.liqo0xErr
	}
	deploy, err := p.deploy, p.deployErr
	if err != nil && !IsNotFound(err) && !apierrors.IsForbidden(err) {
		return r, Reach(c.Server, err)
	}
	if err != nil {
		deploy = nil
	}
	if err := p.serviceErr; err != nil && !IsNotFound(err) && !apierrors.IsForbidden(err) {
		return r, Reach(c.Server, err)
	}
	service := p.serviceErr == nil
	if p.liqo0xCRD || deploy != nil || service {
		r.Flavor = FlavorLiqo0x
		if deploy != nil {
			r.Version = liqo0xAuthVersion(deploy)
			r.AuthenticationDisabled = Liqo0xAuthenticationDisabled(deploy)
		}
		r.Line = Liqo0xLineOf(r.Version)
		if r.Line == peerinfo.LineUnknown {
			if r.Line, err = c.liqo0xLineFromAPIs(ctx); err != nil {
				return r, err
			}
		}
		return r, nil
	}
	if p.oursErr != nil && !apierrors.IsForbidden(p.oursErr) {
		return r, p.oursErr
	}
	if p.ours {
		return LiqoRelease{Flavor: FlavorToolInit}, nil
	}
	return LiqoRelease{Flavor: FlavorNone}, nil
}

// releaseProbes are what DetectRelease reads, each with its error.
type releaseProbes struct {
	v1, liqo0xCRD, ours       bool
	v1Err, liqo0xErr, oursErr error
	deploy                    *appsv1.Deployment
	deployErr, serviceErr     error
}

// probeRelease reads all of DetectRelease's evidence at once: one round
// trip instead of five in a row (every handshake probes both clusters).
func (c *Cluster) probeRelease(ctx context.Context) releaseProbes {
	var p releaseProbes
	var wg sync.WaitGroup
	probe := func(errp *error, f func() error) {
		wg.Go(func() {
			defer RecoverAsError(errp, "probing the Liqo release")
			*errp = f()
		})
	}
	probe(&p.v1Err, func() (err error) {
		p.v1, err = c.ServesResource(v1CoreGroupVersion, "foreignclusters")
		return err
	})
	probe(&p.liqo0xErr, func() (err error) {
		p.liqo0xCRD, err = c.ServesResource(Liqo0xDiscoveryGroupVersion, "foreignclusters")
		return err
	})
	probe(&p.oursErr, func() (err error) {
		p.ours, err = c.ServesResource(authenticationGroupVersion, "tenants")
		return err
	})
	probe(&p.deployErr, func() (err error) {
		p.deploy, err = c.Kube.AppsV1().Deployments(c.Namespace).Get(ctx, Liqo0xAuthName, metav1.GetOptions{})
		return err
	})
	probe(&p.serviceErr, func() error {
		_, err := c.Kube.CoreV1().Services(c.Namespace).Get(ctx, Liqo0xAuthName, metav1.GetOptions{})
		return err
	})
	wg.Wait()
	return p
}

// ServesResource tells whether the API server serves resource in groupVersion
// ServesGroup tells whether c's API server serves the API group, from the
// list of groups at /apis: one request, without discovering each group's
// resources.
func (c *Cluster) ServesGroup(ctx context.Context, group string) (bool, error) {
	raw, err := c.Kube.Discovery().RESTClient().Get().AbsPath("/apis").SetHeader("Accept", "application/json").DoRaw(ctx)
	if err != nil {
		return false, err
	}
	var groups metav1.APIGroupList
	if err := json.Unmarshal(raw, &groups); err != nil {
		return false, err
	}
	return slices.ContainsFunc(groups.Groups, func(g metav1.APIGroup) bool { return g.Name == group }), nil
}

// (discovery, which every authenticated user may read).
func (c *Cluster) ServesResource(groupVersion, resource string) (bool, error) {
	list, err := c.Kube.Discovery().ServerResourcesForGroupVersion(groupVersion)
	switch {
	case IsNotFound(err):
		return false, nil
	case apierrors.IsForbidden(err):
		return false, err
	case err != nil:
		return false, Reach(c.Server, err)
	}
	for _, res := range list.APIResources {
		if res.Name == resource {
			return true, nil
		}
	}
	return false, nil
}
