package kube

import (
	"context"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube/legacypeer"
)

// Generation is which authentication a cluster runs: Liqo v1's (the
// authentication.liqo.io CRDs served by Liqo), Liqo 0.x's shared-token auth
// server, this tool's own (`init`: the same CRDs, no Liqo), or none.
type Generation string

const (
	// GenerationUnknown: the user may not even list the API groups.
	GenerationUnknown Generation = "unknown"
	GenerationNone    Generation = "none"
	GenerationOurs    Generation = "ours"
	GenerationV1      Generation = "v1"
	GenerationLegacy  Generation = "0.x"
)

// LegacyLine is a family of Liqo 0.x releases that share one identity
// request format (liqo-legacy-auth.md §5): only the same line interoperates.
type LegacyLine = legacypeer.Line

const (
	LegacyLineUnknown = legacypeer.LineUnknown
	// LegacyV02 issues ServiceAccount-token identities (§6): explained, not supported.
	LegacyV02 = legacypeer.V02
	// LegacyV03 sends "clusterID" at the top of the identity request.
	LegacyV03 = legacypeer.V03
	// LegacyV04 (v0.4.0 … v0.10.3) sends "cluster":{"clusterID","clusterName"}.
	LegacyV04 = legacypeer.V04
)

// Liqo 0.x names (liqo-legacy-auth.md §2.2, §3.3, §6).
const (
	LegacyForeignClusterCRDName = "foreignclusters.discovery.liqo.io"
	LegacyDiscoveryGroupVersion = "discovery.liqo.io/v1alpha1"
	// LegacyAuthName is the auth server's Deployment and Service.
	LegacyAuthName = "liqo-auth"
	// legacyClusterConfigGroupVersion exists only up to v0.2.x (v0.3.0 has no apis/config).
	legacyClusterConfigGroupVersion = "config.liqo.io/v1alpha1"
	v1CoreGroupVersion              = "core.liqo.io/v1beta1"
	authenticationGroupVersion      = "authentication.liqo.io/v1beta1"
)

// LiqoRelease is what a probe learns about the cluster's Liqo.
type LiqoRelease struct {
	Generation Generation `json:"liqoGeneration"`
	// Version is the liqo-auth image tag (0.x), "" when unknown.
	Version string     `json:"liqoVersion,omitempty"`
	Line    LegacyLine `json:"liqoLine,omitempty"`
	// AuthenticationDisabled: the 0.x liqo-auth Deployment runs with
	// --enable-authentication=false, so anyone who reaches it can peer.
	AuthenticationDisabled bool `json:"liqoAuthenticationDisabled,omitempty"`
}

// String names the release for messages: "Liqo 0.x (v0.10.3)".
func (r LiqoRelease) String() string {
	switch r.Generation {
	case GenerationV1:
		return "Liqo v1"
	case GenerationLegacy:
		switch {
		case r.Version != "":
			return "Liqo 0.x (" + r.Version + ")"
		case r.Line != LegacyLineUnknown:
			return "Liqo 0.x (" + string(r.Line) + ")"
		}
		return "Liqo 0.x"
	case GenerationOurs:
		return "liqo-auth-tui's authentication (init), no Liqo"
	case GenerationNone:
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
		return LiqoRelease{Generation: GenerationUnknown}, nil
	}
	if p.v1Err != nil {
		return r, p.v1Err
	}
	if p.v1 {
		// Helm keeps CRDs on uninstall: 0.x leftovers beside v1 do not count.
		return LiqoRelease{Generation: GenerationV1}, nil
	}
	if p.legacyErr != nil && !apierrors.IsForbidden(p.legacyErr) {
		return r, p.legacyErr
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
	if p.legacyCRD || deploy != nil || service {
		r.Generation = GenerationLegacy
		if deploy != nil {
			r.Version = legacyAuthVersion(deploy)
			r.AuthenticationDisabled = LegacyAuthenticationDisabled(deploy)
		}
		r.Line = LegacyLineOf(r.Version)
		if r.Line == LegacyLineUnknown {
			if r.Line, err = c.legacyLineFromAPIs(ctx); err != nil {
				return r, err
			}
		}
		return r, nil
	}
	if p.oursErr != nil && !apierrors.IsForbidden(p.oursErr) {
		return r, p.oursErr
	}
	if p.ours {
		return LiqoRelease{Generation: GenerationOurs}, nil
	}
	return LiqoRelease{Generation: GenerationNone}, nil
}

// releaseProbes are what DetectRelease reads, each with its error.
type releaseProbes struct {
	v1, legacyCRD, ours       bool
	v1Err, legacyErr, oursErr error
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
		p.v1, err = c.servesResource(v1CoreGroupVersion, "foreignclusters")
		return err
	})
	probe(&p.legacyErr, func() (err error) {
		p.legacyCRD, err = c.servesResource(LegacyDiscoveryGroupVersion, "foreignclusters")
		return err
	})
	probe(&p.oursErr, func() (err error) {
		p.ours, err = c.servesResource(authenticationGroupVersion, "tenants")
		return err
	})
	probe(&p.deployErr, func() (err error) {
		p.deploy, err = c.Kube.AppsV1().Deployments(c.Namespace).Get(ctx, LegacyAuthName, metav1.GetOptions{})
		return err
	})
	probe(&p.serviceErr, func() error {
		_, err := c.Kube.CoreV1().Services(c.Namespace).Get(ctx, LegacyAuthName, metav1.GetOptions{})
		return err
	})
	wg.Wait()
	return p
}

// servesResource tells whether the API server serves resource in groupVersion.
func (c *Cluster) servesResource(groupVersion, resource string) (bool, error) {
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

// legacyLineFromAPIs tells the 0.x line without an image tag: v0.2 has the
// ClusterConfig API and its ForeignCluster says authUrl, not foreignAuthUrl;
// only v0.4+ has peeringType (§2.7, §3.3, §6). Unreadable = unknown.
func (c *Cluster) legacyLineFromAPIs(ctx context.Context) (LegacyLine, error) {
	crd, err := c.APIExt.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, LegacyForeignClusterCRDName, metav1.GetOptions{})
	switch {
	case err == nil:
		if line := legacyLineOfCRD(crd); line != LegacyLineUnknown {
			return line, nil
		}
	case !IsNotFound(err) && !apierrors.IsForbidden(err):
		return LegacyLineUnknown, Reach(c.Server, err)
	}
	v02, err := c.servesResource(legacyClusterConfigGroupVersion, "clusterconfigs")
	if err != nil && !apierrors.IsForbidden(err) {
		return LegacyLineUnknown, err
	}
	if v02 {
		return LegacyV02, nil
	}
	return LegacyLineUnknown, nil
}

func legacyLineOfCRD(crd *apiextv1.CustomResourceDefinition) LegacyLine {
	for _, v := range crd.Spec.Versions {
		if v.Name != "v1alpha1" || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		spec, ok := v.Schema.OpenAPIV3Schema.Properties["spec"]
		if !ok {
			continue
		}
		_, peeringType := spec.Properties["peeringType"]
		_, authURL := spec.Properties["authUrl"]
		_, foreignAuthURL := spec.Properties["foreignAuthUrl"]
		switch {
		case peeringType:
			return LegacyV04
		case authURL && !foreignAuthURL:
			return LegacyV02
		}
	}
	return LegacyLineUnknown
}

// legacyAuthVersion is the version in the auth server's image tag
// (ghcr.io/liqotech/auth-service:v0.10.3 → v0.10.3), "" when the tag is not a
// version (a commit, latest, a digest only).
func legacyAuthVersion(d *appsv1.Deployment) string {
	spec := d.Spec.Template.Spec
	containers := append(append([]corev1.Container{}, spec.Containers...), spec.InitContainers...)
	// The auth-service image first; the chart tags cert-creator the same.
	for _, preferAuth := range []bool{true, false} {
		for _, ctr := range containers {
			repo, tag := splitImage(ctr.Image)
			if preferAuth != strings.HasSuffix(repo, "auth-service") {
				continue
			}
			if _, err := utilversion.ParseSemantic(tag); err == nil {
				return "v" + strings.TrimPrefix(tag, "v")
			}
		}
	}
	return ""
}

// splitImage splits an image reference into repository and tag ("" if
// none); a digest is dropped.
func splitImage(image string) (repo, tag string) {
	image, _, _ = strings.Cut(image, "@")
	slash := strings.LastIndex(image, "/")
	if colon := strings.LastIndex(image, ":"); colon > slash {
		return image[:colon], image[colon+1:]
	}
	return image, ""
}

// LegacyLineOf is the 0.x line of a version ("" if not a version).
func LegacyLineOf(version string) LegacyLine {
	v, err := utilversion.ParseSemantic(version)
	if err != nil || v.Major() != 0 {
		return LegacyLineUnknown
	}
	switch {
	case v.Minor() < 3:
		return LegacyV02
	case v.Minor() == 3:
		return LegacyV03
	}
	return LegacyV04
}
