package flows

import (
	"context"
	"fmt"
	"strings"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The operations below are one step each, on the cluster of the one
// kubeconfig given (local). The wizard and the commands run them alike.

// Init prepares a cluster without Liqo for the handshake; each object it
// created, updated or found is a Note.
func Init(ctx context.Context, c *kube.Cluster, o kube.InitOptions, sink handshake.Sink) (*kube.InitResult, error) {
	sink = orDiscard(sink)
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
			case !changed(res.Changes):
				return fmt.Sprintf("Cluster %s was already ready for the handshake: nothing changed", res.ClusterID)
			}
			return fmt.Sprintf("Cluster %s is ready for the handshake", res.ClusterID)
		}})
	return res, err
}

// InstallController applies the in-cluster controller's manifests with
// image; each object is a Note. The changes made before a failure come
// back with it.
func InstallController(ctx context.Context, c *kube.Cluster, image string, sink handshake.Sink) ([]kube.Change, error) {
	sink = orDiscard(sink)
	var changes []kube.Change
	err := RunStep(ctx, sink, Step{ID: "install-controller", Scope: handshake.Local,
		Title:   "Applying the controller manifests (CRDs, ClusterRoles, ServiceAccount, RBAC, Deployment)",
		Failure: "Installing the controller failed", Command: "liqo-auth-tui install controller --image " + image,
		Run: func(ctx context.Context) (err error) {
			changes, err = c.InstallController(ctx, image)
			var unchanged []string
			for _, ch := range changes {
				if ch.Action == kube.Unchanged {
					unchanged = append(unchanged, ch.Object)
				} else {
					sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Local, Message: ch.String()})
				}
			}
			if len(unchanged) > 0 {
				sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Local,
					Message: fmt.Sprintf("%d unchanged: %s", len(unchanged), strings.Join(unchanged, ", "))})
			}
			return err
		},
		// The image's last path element: the whole reference is in the
		// step's command.
		Outcome: func() string { return "Controller installed (" + image[strings.LastIndex(image, "/")+1:] + ")" }})
	return changes, err
}

// CheckAccess is Verify as a step: what the consumer's kubeconfig Secret
// for providerID may do on the provider.
func CheckAccess(ctx context.Context, consumer *kube.Cluster, providerID string, sink handshake.Sink) (*Verification, error) {
	var v *Verification
	err := RunStep(ctx, sink, Step{ID: "verify", Scope: handshake.Local, Title: "Reaching the provider with the kubeconfig Secret",
		Failure: "Unable to verify", Command: "liqo-auth-tui verify --remote-cluster-id " + providerID,
		Run: func(ctx context.Context) (err error) {
			v, err = Verify(ctx, consumer, providerID)
			return err
		},
		Outcome: func() string {
			return fmt.Sprintf("Authenticated as %s: %d allowed, %d denied", v.User, len(v.Allowed), len(v.Denied))
		}})
	return v, err
}

// GenerateIdentityStep is GenerateIdentity as a step.
func GenerateIdentityStep(ctx context.Context, provider *kube.Cluster, consumerID, consumerNamespace string, sink handshake.Sink) (*authv1beta1.Identity, error) {
	var id *authv1beta1.Identity
	err := RunStep(ctx, sink, Step{ID: "generate-identity", Scope: handshake.Local, Title: "Generating identity",
		Failure: "An error occurred while generating identity", Command: "liqoctl generate identity --remote-cluster-id " + consumerID,
		Run: func(ctx context.Context) (err error) {
			id, err = GenerateIdentity(ctx, provider, consumerID, consumerNamespace)
			return err
		},
		Outcome: func() string { return "Identity correctly generated (API server " + id.Spec.AuthParams.APIServer + ")" }})
	return id, err
}

func changed(changes []kube.Change) bool {
	for _, ch := range changes {
		if ch.Action != kube.Unchanged {
			return true
		}
	}
	return false
}

func orDiscard(sink handshake.Sink) handshake.Sink {
	if sink == nil {
		return handshake.Discard
	}
	return sink
}

// Change is one object created, updated, deleted or found unchanged.
type Change = kube.Change

// InitOptions choose the cluster ID and key type of Init.
type InitOptions = kube.InitOptions

// ApplyController applies the in-cluster controller's manifests with
// image, as `install controller` does, reporting nothing itself.
func ApplyController(ctx context.Context, c *Cluster, image string) ([]Change, error) {
	return c.InstallController(ctx, image)
}

// RemoveController removes the in-cluster controller (CRDs, cluster ID,
// keys and peerings stay).
func RemoveController(ctx context.Context, c *Cluster) ([]Change, error) {
	return c.UninstallController(ctx)
}

// SplitChanges separates what changed ("Deployment x created") from the
// objects found as they should be.
func SplitChanges(changes []Change) (changed, unchanged []string) {
	for _, ch := range changes {
		if ch.Action == kube.Unchanged {
			unchanged = append(unchanged, ch.Object)
		} else {
			changed = append(changed, ch.String())
		}
	}
	return changed, unchanged
}
