package flows

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The operations below are one step each, on the cluster of the one
// kubeconfig given (local). The wizard and the commands run them alike.

// Init prepares a cluster without Liqo for the handshake; each object it
// created, updated or found is a Note.
func Init(ctx context.Context, c *kube.Cluster, o kube.InitOptions, sink handshake.Sink) (*kube.InitResult, error) {
	sink = step.OrDiscard(sink)
	var res *kube.InitResult
	err := RunStep(ctx, sink, Step{ID: "init", Scope: handshake.Local,
		Title:   "Creating namespace, cluster ID, keys, CRDs and roles",
		Failure: "Unable to prepare the cluster", Command: "liqo-auth-tui init",
		Run: func(ctx context.Context) (err error) {
			if res, err = c.Init(ctx, o); err != nil {
				return err
			}
			for _, ch := range res.Changes {
				sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Local, Message: ch.String()})
			}
			return nil
		},
		Outcome: func() string {
			switch {
			case res.LiqoInstalled:
				return fmt.Sprintf("Liqo is installed on this cluster (cluster ID %s): nothing to do", res.ClusterID)
			case !step.Changed(res.Changes):
				return fmt.Sprintf("Cluster %s was already ready for the handshake: nothing changed", res.ClusterID)
			}
			return fmt.Sprintf("Cluster %s is ready for the handshake", res.ClusterID)
		}})
	return res, err
}

// ControllerInstall is what installing the controller did; the changes
// made before a failure come back with it.
type ControllerInstall = handshake.ControllerInstall

// InstallControllerOptions choose the controller's image ("" =
// ControllerImage) and whether to wait for its Pods.
type InstallControllerOptions struct {
	Image  string
	NoWait bool
}

// InstallController applies the in-cluster controller's manifests; each
// object is a Note. A failure is a *ControllerInstallError, which says
// what was applied before it. Then, unless NoWait, it waits (watching) for
// a Ready Pod holding the controller's Lease, to which in-process runs hand
// over; a cluster without a Ready Node is not waited for. Pods that cannot
// run (an image the Node does not have, no Node that fits) fail with one
// line, and the install is undone.
func InstallController(ctx context.Context, c *kube.Cluster, o InstallControllerOptions, sink handshake.Sink) (*ControllerInstall, error) {
	sink = step.OrDiscard(sink)
	image := o.Image
	if image == "" {
		image = ControllerImage
	}
	res := &ControllerInstall{Image: image}
	var previous string
	var changes []kube.Change
	steps := []Step{{ID: "install-controller", Scope: handshake.Local,
		Title:   "Applying the controller manifests (CRDs, ClusterRoles, ServiceAccount, RBAC, Deployment)",
		Failure: "Installing the controller failed", Command: "liqo-auth-tui install controller --image " + image,
		Run: func(ctx context.Context) (err error) {
			if !o.NoWait {
				if previous, err = c.InstalledControllerImage(ctx); err != nil {
					return &ControllerInstallError{Err: Reached(c, err)}
				}
			}
			changes, err = c.InstallController(ctx, image)
			for _, ch := range changes {
				if ch.Action == kube.Unchanged {
					res.Unchanged = append(res.Unchanged, ch.Object)
				} else {
					res.Changed = append(res.Changed, ch.String())
					sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Local, Message: ch.String()})
				}
			}
			if len(res.Unchanged) > 0 {
				sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Local,
					Message: fmt.Sprintf("%d unchanged: %s", len(res.Unchanged), strings.Join(res.Unchanged, ", "))})
			}
			if err != nil {
				return &ControllerInstallError{Applied: len(changes), Err: Reached(c, err)}
			}
			return nil
		},
		// The image's last path element: the whole reference is in the
		// step's command.
		Outcome: func() string { return "Controller installed (" + image[strings.LastIndex(image, "/")+1:] + ")" }}}
	if !o.NoWait {
		steps = append(steps, waitControllerStep(c, image, res, func(ctx context.Context) string {
			if previous == image {
				return "it ran this image before the install too: nothing undone"
			}
			return undoInstall(ctx, c, changes, previous, sink)
		}))
	}
	return res, step.Run(ctx, sink, steps)
}

// waitControllerStep waits for the controller's Pods (kube.WaitControllerServing);
// undo runs when they cannot run and says what it undid.
func waitControllerStep(c *kube.Cluster, image string, res *ControllerInstall, undo func(context.Context) string) Step {
	return Step{ID: "wait-controller", Scope: handshake.Local,
		Title:   "Waiting for the controller's Pods to be Ready and to hold its Lease",
		Failure: "The controller does not run", Command: "kubectl -n " + c.Namespace + " rollout status deployment/" + kube.ControllerLeaseName,
		Run: func(ctx context.Context) error {
			s, err := c.WaitControllerServing(ctx, image)
			var cannot *kube.PodCannotRunError
			if errors.As(err, &cannot) {
				return fmt.Errorf("%w; %s", err, undo(ctx))
			}
			if err != nil {
				return Reached(c, err)
			}
			if s.NoReadyNode {
				res.NoReadyNode = true
				return nil
			}
			res.ServedBy = s.Pod + " on " + s.Node
			return nil
		},
		Outcome: func() string {
			if res.NoReadyNode {
				return "No Ready Node: the controller's Pods cannot run until a Node joins; until then in-process runs serve the cluster"
			}
			return "The controller serves the cluster from Pod " + res.ServedBy
		}}
}

// undoInstall undoes an install whose Pods cannot run and says so in a
// clause of the failure's line.
func undoInstall(ctx context.Context, c *kube.Cluster, installed []kube.Change, previous string, sink handshake.Sink) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	undone, err := c.UndoControllerInstall(ctx, installed, previous)
	for _, ch := range undone {
		if ch.Action != kube.Unchanged {
			sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Local, Message: "undo: " + ch.String()})
		}
	}
	switch {
	case err != nil:
		return "undoing the install failed too (" + err.Error() + "): liqo-auth-tui uninstall controller removes it"
	case previous != "":
		return "the install was undone: the Deployment runs " + previous + " again"
	}
	return "the install was undone: the objects it created are deleted (the CRDs stay)"
}

// ControllerInstallError is an install of the controller that failed after
// Applied objects were applied: its message ends with what to know then,
// which Explain gives apart as the hint.
type ControllerInstallError struct {
	Applied int
	Err     error
}

func (e *ControllerInstallError) Error() string {
	return e.Err.Error() + hintSeparator + e.afterwards()
}

func (e *ControllerInstallError) Unwrap() error { return e.Err }

// Hint is the cause's own advice, then what was applied.
func (e *ControllerInstallError) Hint() string {
	if cause := Explain(e.Err).Hint; cause != "" {
		return cause + "; " + e.afterwards()
	}
	return e.afterwards()
}

// afterwards says what was applied and that installing again is safe; a
// cause that advises nothing gets the rights installing needs (a cause's
// own advice is in its message already).
func (e *ControllerInstallError) afterwards() string {
	partial := fmt.Sprintf("%d object(s) were applied before the failure (listed above); installing again applies the rest and leaves those unchanged", e.Applied)
	if Explain(e.Err).Hint == "" {
		return partial + ". Installing needs the rights to create CRDs, ClusterRoles, RBAC and a Deployment"
	}
	return partial
}

// Change is one object created, updated, deleted or found unchanged.
type Change = kube.Change

// InitOptions choose the cluster ID and key type of Init.
type InitOptions = kube.InitOptions

// RemoveController removes the in-cluster controller (CRDs, cluster ID,
// keys and peerings stay).
func RemoveController(ctx context.Context, c *Cluster) ([]Change, error) {
	return c.UninstallController(ctx)
}
