package kube

// Liqo 0.x seen by detection: the evidence DetectRelease reads on a cluster
// running Liqo 0.x (its API group, its auth server's Deployment and
// Service), kept here because Probe needs it and package kube cannot import
// kube/liqo0x, which builds Liqo 0.x's token authentication on *Cluster.

import (
	"context"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// Liqo 0.x names (liqo-legacy-auth.md §2.2, §3.3, §6).
const (
	Liqo0xForeignClusterCRDName = "foreignclusters.discovery.liqo.io"
	Liqo0xDiscoveryGroupVersion = "discovery.liqo.io/v1alpha1"
	// Liqo0xAuthName is the auth server's Deployment and Service.
	Liqo0xAuthName = "liqo-auth"
	// Liqo0xClientLabel marks what this tool made as a Liqo 0.x consumer
	// without Liqo (its kubeconfig Secret, its pending key Secret): no v1
	// component selects a Secret carrying it.
	Liqo0xClientLabel = "liqo-auth-tui.io/liqo-0x-identity"
	// liqo0xClusterConfigGroupVersion exists only up to v0.2.x (v0.3.0 has no apis/config).
	liqo0xClusterConfigGroupVersion = "config.liqo.io/v1alpha1"
)

// liqo0xEnableAuthFlag is the auth server's flag that --enable-authentication=false turns off (§2.7).
const liqo0xEnableAuthFlag = "enable-authentication"

// liqo0xLineFromAPIs tells the 0.x line without an image tag: v0.2 has the
// ClusterConfig API and its ForeignCluster says authUrl, not foreignAuthUrl;
// only v0.4+ has peeringType (§2.7, §3.3, §6). Unreadable = unknown.
func (c *Cluster) liqo0xLineFromAPIs(ctx context.Context) (peerinfo.Line, error) {
	crd, err := c.APIExt.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, Liqo0xForeignClusterCRDName, metav1.GetOptions{})
	switch {
	case err == nil:
		if line := Liqo0xLineOfCRD(crd); line != peerinfo.LineUnknown {
			return line, nil
		}
	case !IsNotFound(err) && !apierrors.IsForbidden(err):
		return peerinfo.LineUnknown, Reach(c.Server, err)
	}
	v02, err := c.ServesResource(liqo0xClusterConfigGroupVersion, "clusterconfigs")
	if err != nil && !apierrors.IsForbidden(err) {
		return peerinfo.LineUnknown, err
	}
	if v02 {
		return peerinfo.V02, nil
	}
	return peerinfo.LineUnknown, nil
}

func Liqo0xLineOfCRD(crd *apiextv1.CustomResourceDefinition) peerinfo.Line {
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
			return peerinfo.V04
		case authURL && !foreignAuthURL:
			return peerinfo.V02
		}
	}
	return peerinfo.LineUnknown
}

// liqo0xAuthVersion is the version in the auth server's image tag
// (ghcr.io/liqotech/auth-service:v0.10.3 → v0.10.3), "" when the tag is not a
// version (a commit, latest, a digest only).
func liqo0xAuthVersion(d *appsv1.Deployment) string {
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

// Liqo0xLineOf is the 0.x line of a version ("" if not a version).
func Liqo0xLineOf(version string) peerinfo.Line {
	v, err := utilversion.ParseSemantic(version)
	if err != nil || v.Major() != 0 {
		return peerinfo.LineUnknown
	}
	switch {
	case v.Minor() < 3:
		return peerinfo.V02
	case v.Minor() == 3:
		return peerinfo.V03
	}
	return peerinfo.V04
}

// Liqo0xAuthenticationDisabled tells whether the liqo-auth Deployment runs
// the auth server with --enable-authentication=false (§2.7): then it accepts
// any token. As Go's flag package reads it: one or two dashes, any
// strconv.ParseBool spelling, the last occurrence wins.
func Liqo0xAuthenticationDisabled(d *appsv1.Deployment) bool {
	disabled := false
	for _, ctr := range d.Spec.Template.Spec.Containers {
		for _, arg := range append(append([]string{}, ctr.Command...), ctr.Args...) {
			name, value, ok := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-"), "=")
			if name != liqo0xEnableAuthFlag {
				continue
			}
			enabled := true
			if ok {
				var err error
				if enabled, err = strconv.ParseBool(value); err != nil {
					continue // the server would not even start
				}
			}
			disabled = !enabled
		}
	}
	return disabled
}
