package flows

import (
	"context"
	"fmt"
	"strings"

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

// InstallController applies the in-cluster controller's manifests with
// image ("" = ControllerImage); each object is a Note. A failure is a
// *ControllerInstallError, which says what was applied before it.
func InstallController(ctx context.Context, c *kube.Cluster, image string, sink handshake.Sink) (*ControllerInstall, error) {
	sink = step.OrDiscard(sink)
	if image == "" {
		image = ControllerImage
	}
	res := &ControllerInstall{Image: image}
	err := RunStep(ctx, sink, Step{ID: "install-controller", Scope: handshake.Local,
		Title:   "Applying the controller manifests (CRDs, ClusterRoles, ServiceAccount, RBAC, Deployment)",
		Failure: "Installing the controller failed", Command: "liqo-auth-tui install controller --image " + image,
		Run: func(ctx context.Context) error {
			changes, err := c.InstallController(ctx, image)
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
		Outcome: func() string { return "Controller installed (" + image[strings.LastIndex(image, "/")+1:] + ")" }})
	return res, err
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
