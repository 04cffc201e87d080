package flows

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/serving"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// UnauthenticateOptions drive unauthenticate (§9.3): consumer local,
// provider remote.
//
// One-sided, when the other cluster is gone or unreachable: leave Consumer
// or Provider nil and give that cluster's ID (ConsumerID or ProviderID).
// Only the reachable side is cleaned, and the result lists what is left on
// the other one and how to remove it there.
type UnauthenticateOptions struct {
	Consumer, Provider *kube.Cluster
	// ConsumerID and ProviderID are the cluster IDs of the sides given as
	// nil (required then); for a side given, they are checked when set.
	ConsumerID, ProviderID string
	StepTimeout            time.Duration
	// Engine is not used: unauthenticate starts no controller (it does
	// the provider controller's cleanup of the Tenant, and the consumer
	// replicator's part for the copies, itself when none runs). Kept for
	// the commands that share the engine flags.
	Engine EngineOptions
}

// UnauthenticateResult is what an unauthenticate did, and what it did not
// reach; its JSON is what `unauthenticate -o json` prints.
type UnauthenticateResult struct {
	Action     string `json:"action"` // ActionUnauthenticated
	ConsumerID string `json:"consumerID"`
	ProviderID string `json:"providerID"`
	// Removed is what this run found and deleted ("Kind namespace/name"),
	// in order: empty when a run before already did it.
	Removed []string `json:"removed"`
	// Kept are the tenant namespaces left for a later authenticate, which
	// reuses their nonces and certificate, as Liqo does (both sides reached).
	Kept []string `json:"kept,omitempty"`
	// Leftovers are what may remain on the side that was not reached
	// (one-sided), in the order to remove them; empty when both were.
	Leftovers []Leftover `json:"leftovers,omitempty"`
}

// Leftover is something left on the cluster playing Role, with the kubectl
// command that removes it, to run with that cluster's kubeconfig.
type Leftover struct {
	Role    handshake.Role `json:"role"`
	What    string         `json:"what"`
	Command string         `json:"command"`
}

// Unauthenticate deletes the consumer's Identity (its kubeconfig
// Secret goes with it, once the copies on the provider are gone) and the
// provider's Tenant, and waits until the provider has removed the
// consumer's bindings; when no controller runs on the provider, it does
// that cleanup itself. With both sides reached, the tenant namespaces,
// nonces and the cached certificate stay, so a later authenticate reuses
// them, as with Liqo, and sink is told so. One-sided, the other cluster
// being gone, every trace of it on the side reached goes too (bindings, the
// tenant namespace with its nonce, signed nonce and certificate), as
// `liqoctl force unpeer` does: also of a peer whose handshake never
// completed. Each Leftover is also told to sink as a Note.
func Unauthenticate(ctx context.Context, o UnauthenticateOptions, sink handshake.Sink) (*UnauthenticateResult, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	res := &UnauthenticateResult{Action: ActionUnauthenticated, ConsumerID: o.ConsumerID, ProviderID: o.ProviderID, Removed: []string{}}
	consumer, provider := o.Consumer, o.Provider
	var engine Engine
	steps := []Step{
		{ID: "cluster-ids", Title: "Retrieving cluster IDs", Success: "Cluster IDs retrieved", Failure: "an error occurred while retrieving cluster id",
			Run: func(ctx context.Context) (err error) {
				if res.ConsumerID, err = checkedClusterID(ctx, consumer, o.ConsumerID, "consumer"); err != nil {
					return fmt.Errorf("(local) %w", err)
				}
				if res.ProviderID, err = checkedClusterID(ctx, provider, o.ProviderID, "provider"); err != nil {
					return fmt.Errorf("(remote) %w", err)
				}
				return nil
			}},
	}
	if consumer != nil {
		g := &replicaGuard{consumer: consumer, providerGone: provider == nil, sink: sink, removed: res.remove}
		steps = append(steps, consumerUnauthSteps(g, provider, res, o.StepTimeout)...)
		if provider == nil {
			steps = append(steps, deleteTenantNamespaceStep(consumer, handshake.Local, func() string { return res.ProviderID }, o.StepTimeout, res.remove))
		}
	}
	if provider != nil {
		steps = append(steps,
			Step{ID: "engine", Scope: handshake.Remote, Title: "Checking the provider's controller", Success: "Controller checked", Failure: "Unable to check the provider's controller",
				Run: func(ctx context.Context) (err error) {
					engine, err = serving.Detect(ctx, provider)
					if err == nil && sink != nil {
						served := string(engine)
						if engine == "" {
							served = "no controller: this command does the Tenant's cleanup itself"
						}
						sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Remote, Message: fmt.Sprintf("%s side served by %s", handshake.RoleProvider, served)})
					}
					return err
				}},
			Step{ID: "delete-tenant", Scope: handshake.Remote, Title: "Deleting tenant", Success: "Tenant correctly deleted", Failure: "Unable to delete tenant",
				Timeout: o.StepTimeout, Command: "kubectl delete tenant <consumer> -n liqo-tenant-<consumer>",
				Run: func(ctx context.Context) error {
					return deleteTenant(ctx, provider, res.ConsumerID, engine, res.remove)
				}})
		if consumer == nil {
			steps = append(steps, Step{ID: "provider-cleanup", Scope: handshake.Remote, Title: "Removing the consumer's bindings and certificate",
				Success: "Consumer's bindings and certificate removed", Failure: "Unable to remove the consumer's bindings and certificate", Timeout: o.StepTimeout,
				Command: "kubectl delete clusterrolebindings,rolebindings -A -l " + kube.ManagedByLabel + "=" + kube.LiqoManagedByValue + "," + kube.RemoteClusterIDLabel + "=<consumer>",
				Run:     func(ctx context.Context) error { return cleanGoneConsumer(ctx, provider, res.ConsumerID) }},
				deleteTenantNamespaceStep(provider, handshake.Remote, func() string { return res.ConsumerID }, o.StepTimeout, res.remove))
		}
	}
	if err := step.Run(ctx, sink, steps); err != nil {
		return nil, err
	}
	if consumer != nil && provider != nil {
		tellKeptNamespaces(ctx, consumer, provider, res, sink)
	}
	res.Leftovers = leftovers(consumer == nil, provider == nil, res.ConsumerID, res.ProviderID)
	if sink != nil {
		for _, l := range res.Leftovers {
			sink(handshake.Event{Kind: handshake.Note, Message: fmt.Sprintf("left on the %s (not reached): %s; remove it there with: %s", l.Role, l.What, l.Command)})
		}
	}
	return res, nil
}

// remove records what the run deleted.
func (r *UnauthenticateResult) remove(what string) { r.Removed = append(r.Removed, what) }

// check refuses options that cannot work, before anything is asked.
func (o UnauthenticateOptions) check() error {
	if o.Consumer == nil && o.Provider == nil {
		return errors.New("unauthenticate needs the consumer, the provider or both")
	}
	for _, side := range []struct {
		missing bool
		id      string
		role    handshake.Role
	}{{o.Consumer == nil, o.ConsumerID, handshake.RoleConsumer}, {o.Provider == nil, o.ProviderID, handshake.RoleProvider}} {
		if side.missing && side.id == "" {
			return fmt.Errorf("the %s is not reached: give its cluster ID (the reachable cluster shows it: kubectl get namespaces -l %s -L %s)",
				side.role, kube.TenantNamespaceLabel, kube.RemoteClusterIDLabel)
		}
		if side.id != "" {
			if errs := validation.IsDNS1123Label(side.id); len(errs) > 0 {
				return fmt.Errorf("%s cluster ID %q is not valid: %s", side.role, side.id, errs[0])
			}
		}
	}
	return nil
}

// checkedClusterID reads the cluster ID of c (when given) and checks it
// against want (when set); without c, want is the ID.
func checkedClusterID(ctx context.Context, c *kube.Cluster, want, role string) (string, error) {
	if c == nil {
		return want, nil
	}
	id, err := c.ClusterID(ctx)
	if err != nil {
		return "", err
	}
	if want != "" && want != id {
		return "", fmt.Errorf("the %s's cluster ID is %s, not %s", role, id, want)
	}
	return id, nil
}

// consumerUnauthSteps remove the consumer's side: its Identity, hence its
// kubeconfig Secret, once no ResourceSlice uses the provider and the
// copies on the provider are gone (replicaGuard).
func consumerUnauthSteps(g *replicaGuard, provider *kube.Cluster, res *UnauthenticateResult, timeout time.Duration) []Step {
	steps := []Step{
		{ID: "leftover-resourceslices", Scope: handshake.Local, Timeout: timeout, Title: "Checking for leftover ResourceSlices", Success: "No leftover resourceslices on consumer cluster",
			Failure: "Unable to unauthenticate", Command: "kubectl get " + handshake.SliceResource + " -A -l liqo.io/replication=true,liqo.io/remoteID=<provider>",
			Run: func(ctx context.Context) error {
				g.providerID = res.ProviderID
				if err := g.detect(ctx); err != nil {
					return err
				}
				return g.leftoverSlices(ctx)
			}},
	}
	if provider != nil {
		steps = append(steps, Step{ID: "leftover-copies", Scope: handshake.Remote, Title: "Checking for leftover ResourceSlice copies",
			Success: "No leftover resourceslice copies on provider cluster", Failure: "Unable to unauthenticate",
			Command: "kubectl get " + handshake.SliceResource + " -A -l liqo.io/replicated=true,liqo.io/originID=<consumer>",
			Run:     func(ctx context.Context) error { return leftoverCopies(ctx, provider, res.ConsumerID) }})
	}
	return append(steps, Step{ID: "delete-identity", Scope: handshake.Local, Timeout: timeout, Title: "Deleting identity control plane", Success: "Identity control plane correctly deleted",
		Failure: "Unable to delete identity control plane", Command: "kubectl delete identity controlplane-<provider> -n liqo-tenant-<provider>",
		Run: g.deleteIdentity})
}
