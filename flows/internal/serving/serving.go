// Package serving tells who does a cluster's controller work for the
// handshake (real Liqo, this tool's in-cluster controller, or nothing yet):
// what the flows ask before they write and doctor asks to say why an
// object was left undone.
package serving

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Detect finds what serves c now, writing nothing: "" when nothing does
// (the flows then run the reconcilers in-process), an error for a Liqo 0.x
// cluster, whose token authentication the v1 flows do not do.
func Detect(ctx context.Context, c *kube.Cluster) (handshake.Engine, error) {
	// Three probes of one cluster at once: each handshake waits for them.
	var (
		liqo, running       bool
		release             kube.LiqoRelease
		liqoErr, runningErr error
		releaseErr          error
		g                   sync.WaitGroup
	)
	g.Go(func() {
		defer kube.RecoverAsError(&liqoErr, "looking for Liqo")
		liqo, liqoErr = c.LiqoInstalled(ctx)
	})
	g.Go(func() {
		defer kube.RecoverAsError(&releaseErr, "probing the Liqo release")
		release, releaseErr = c.DetectRelease(ctx)
	})
	g.Go(func() {
		defer kube.RecoverAsError(&runningErr, "looking for the controller")
		running, runningErr = c.ControllerRunning(ctx)
	})
	g.Wait()
	if liqoErr != nil {
		return "", liqoErr
	}
	if liqo {
		return handshake.EngineLiqo, nil
	}
	// A Liqo 0.x cluster authenticates with tokens (issue 15): writing v1
	// objects or running v1 controllers there would only add confusion.
	if releaseErr == nil && release.Flavor == kube.FlavorLiqo0x {
		return "", fmt.Errorf("%s runs %s, whose token authentication this command does not do: use liqoctl 0.x (`liqoctl generate peer-command` on the provider), or upgrade both clusters to Liqo v1", c.Server, release)
	}
	if apierrors.IsForbidden(runningErr) {
		return handshake.EngineControllerAssumed, nil
	}
	if runningErr != nil {
		return "", runningErr
	}
	if running {
		return handshake.EngineController, nil
	}
	return "", nil
}
