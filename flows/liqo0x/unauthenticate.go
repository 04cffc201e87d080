package liqo0x

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	kliqo0x "github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// UnauthOptions drive Unauthenticate. Either cluster may be nil
// (one-sided: the other cluster is gone or not reachable); its ID is then
// given.
type UnauthOptions struct {
	Consumer, Provider     *kube.Cluster
	ConsumerID, ProviderID string
	// Yes deletes without asking; else Confirm is asked with the objects
	// to delete ("(local) Secret liqo/remote-token-…"), and nil or false
	// deletes nothing.
	Yes     bool
	Confirm func(objects []string) bool
}

// UnauthResult is what was found, deleted, and left.
type UnauthResult struct {
	ConsumerID     string           `json:"consumerID"`
	ProviderID     string           `json:"providerID"`
	ConsumerRemove []kliqo0x.Object `json:"consumerRemove,omitempty"`
	// ConsumerKept are objects unauthenticate leaves (a ForeignCluster
	// liqoctl created: `liqoctl unpeer out-of-band` removes it).
	ConsumerKept   []kliqo0x.Object `json:"consumerKept,omitempty"`
	ProviderRemove []kliqo0x.Object `json:"providerRemove,omitempty"`
	Deleted        bool             `json:"deleted"`
	// Left are, for a side not given, what remains there and the kubectl
	// commands that remove it (lines starting with "#" are remarks).
	Left []string `json:"left,omitempty"`
}

// Unauthenticate removes what a Liqo 0.x authentication left, which
// Liqo 0.x never removes (§3.6): after it the consumer's old certificate is
// authorized for nothing on the provider. It refuses while the consumer
// still peers, lists each side's objects, deletes them once confirmed, and
// for a side not given says what is left there.
func Unauthenticate(ctx context.Context, o UnauthOptions, sink handshake.Sink) (*UnauthResult, error) {
	sink = step.OrDiscard(sink)
	if o.Consumer == nil && o.Provider == nil {
		return nil, errors.New("give the consumer, the provider or both")
	}
	res := &UnauthResult{ConsumerID: o.ConsumerID, ProviderID: o.ProviderID}
	steps := []step.Step{
		{ID: "cluster-ids", Title: "Retrieving cluster IDs", Success: "Cluster IDs retrieved", Failure: "an error occurred while retrieving cluster id",
			Run: func(ctx context.Context) error { return unauthIDs(ctx, o, res) }},
		{ID: "peering-active", Scope: handshake.Local, Title: "Checking that the consumer no longer peers", Success: "No active peering",
			Failure: "Unable to unauthenticate", Command: "kubectl get foreignclusters.discovery.liqo.io -l discovery.liqo.io/cluster-id=<provider>",
			Run: func(ctx context.Context) error {
				if o.Consumer == nil {
					return nil
				}
				reason, err := kliqo0x.On(o.Consumer).PeeringActive(ctx, res.ProviderID)
				if err != nil || reason == "" {
					return err
				}
				if !strings.Contains(reason, "liqoctl unpeer") {
					reason += ": unpeer first with `liqoctl unpeer out-of-band <ForeignCluster name>`, then run this again"
				}
				return errors.New(reason)
			}},
		{ID: "list-leftovers", Title: "Listing what authentication left", Failure: "Unable to list what authentication left",
			Run: func(ctx context.Context) (err error) {
				if o.Consumer != nil {
					if res.ConsumerRemove, res.ConsumerKept, err = kliqo0x.On(o.Consumer).ConsumerLeftovers(ctx, res.ProviderID); err != nil {
						return step.Scoped(handshake.Local, err)
					}
				}
				if o.Provider != nil {
					if res.ProviderRemove, err = kliqo0x.On(o.Provider).ProviderLeftovers(ctx, res.ConsumerID); err != nil {
						return step.Scoped(handshake.Remote, err)
					}
				}
				for _, obj := range res.ConsumerKept {
					sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Local, Message: "kept: " + obj.String() + " (not created by this tool: `liqoctl unpeer out-of-band` removes it)"})
				}
				return nil
			},
			Outcome: func() string {
				return fmt.Sprintf("%d objects to delete on the consumer, %d on the provider", len(res.ConsumerRemove), len(res.ProviderRemove))
			}},
	}
	if err := step.Run(ctx, sink, steps); err != nil {
		return nil, err
	}
	res.Left = leftOnMissingSide(o, res)
	defer func() {
		for _, line := range res.Left {
			sink(handshake.Event{Kind: handshake.Note, Message: line})
		}
	}()
	targets := deleteTargets(res)
	if len(targets) == 0 {
		sink(handshake.Event{Kind: handshake.Note, Message: "Nothing left by authentication: nothing to delete"})
		return res, nil
	}
	if !o.Yes {
		if o.Confirm == nil || !o.Confirm(targets) {
			for _, t := range targets {
				sink(handshake.Event{Kind: handshake.Note, Message: "would delete: " + t})
			}
			return res, handshake.ErrNotConfirmed
		}
	}
	err := step.Run(ctx, sink, []step.Step{
		deleteStep(handshake.Local, o.Consumer, res.ConsumerRemove, sink),
		deleteStep(handshake.Remote, o.Provider, res.ProviderRemove, sink),
	})
	if err != nil {
		return res, err
	}
	res.Deleted = true
	return res, nil
}

func unauthIDs(ctx context.Context, o UnauthOptions, res *UnauthResult) error {
	var err error
	if o.Consumer != nil {
		if res.ConsumerID, err = o.Consumer.ClusterID(ctx); err != nil {
			return step.Scoped(handshake.Local, err)
		}
	}
	if o.Provider != nil {
		if res.ProviderID, err = o.Provider.ClusterID(ctx); err != nil {
			return step.Scoped(handshake.Remote, err)
		}
	}
	switch {
	case res.ConsumerID == "":
		return errors.New("the consumer's cluster ID is unknown: give it with --remote-cluster-id")
	case res.ProviderID == "":
		return errors.New("the provider's cluster ID is unknown: give it with --remote-cluster-id")
	case res.ConsumerID == res.ProviderID:
		return fmt.Errorf("the consumer and the provider are the same cluster %s: give the other cluster", res.ConsumerID)
	}
	return nil
}

func deleteTargets(res *UnauthResult) []string {
	var out []string
	for _, obj := range res.ConsumerRemove {
		out = append(out, handshake.Local.Prefix()+obj.String())
	}
	for _, obj := range res.ProviderRemove {
		out = append(out, handshake.Remote.Prefix()+obj.String())
	}
	return out
}

func deleteStep(scope handshake.Scope, c *kube.Cluster, objs []kliqo0x.Object, sink handshake.Sink) step.Step {
	side := "consumer"
	if scope == handshake.Remote {
		side = "provider"
	}
	return step.Step{ID: "delete-leftovers-" + side, Scope: scope, Title: "Deleting what authentication left on the " + side,
		Success: fmt.Sprintf("Deleted %d objects on the %s", len(objs), side), Failure: "Unable to delete what authentication left on the " + side,
		Run: func(ctx context.Context) error {
			if c == nil || len(objs) == 0 {
				return nil
			}
			changes, err := kliqo0x.On(c).DeleteObjects(ctx, objs)
			for _, ch := range changes {
				sink(handshake.Event{Kind: handshake.Note, Scope: scope, Message: ch.String()})
			}
			return err
		}}
}

// leftOnMissingSide says, for a side not given, what authentication
// left there and how its admin removes it.
func leftOnMissingSide(o UnauthOptions, res *UnauthResult) []string {
	var left []string
	if o.Provider == nil {
		left = append(left, ProviderCleanup(res.ConsumerID)...)
	}
	if o.Consumer == nil {
		left = append(left, ConsumerCleanup(res.ProviderID)...)
	}
	return left
}

// ProviderCleanup is what a 0.x provider keeps for consumerID after
// authentication, and the commands its admin runs to remove it.
func ProviderCleanup(consumerID string) []string {
	return []string{
		"# on the provider (not given) authentication left, for consumer " + consumerID + ": its tenant namespace (liqo-remote-certificate, RoleBindings), its CSRs and Secret remote-token-" + consumerID + "; there, run:",
		"kubectl delete namespace -l " + kliqo0x.ClusterIDLabel + "=" + consumerID + "," + kliqo0x.TenantNamespaceLabel + "=true",
		"kubectl -n liqo delete secret " + kliqo0x.RemoteTokenPrefix + consumerID + " --ignore-not-found",
		"kubectl get csr -l " + kliqo0x.RemoteTenantCSRLabel + "=true   # then kubectl delete csr the ones whose subject CN is " + consumerID,
	}
}

// ConsumerCleanup is what a consumer keeps for providerID after
// authentication, and the commands its admin runs to remove it.
func ConsumerCleanup(providerID string) []string {
	return []string{
		"# on the consumer (not given) authentication left, for provider " + providerID + ": Secret remote-token-" + providerID + ", the identity Secret and the ForeignCluster; there, run:",
		"kubectl delete secret -A -l " + kliqo0x.ClusterIDLabel + "=" + providerID + "," + kliqo0x.AuthTokenLabel,
		"kubectl delete secret -A -l " + kliqo0x.ClusterIDLabel + "=" + providerID + "," + kliqo0x.LocalIdentityLabel + "=true",
		"kubectl delete secret -n " + kube.TenantNamespacePrefix + providerID + " -l " + kliqo0x.ClientLabel + " --ignore-not-found   # this tool's kubeconfig Secret, if it was the consumer",
		"liqoctl unpeer out-of-band <ForeignCluster name>   # or: kubectl delete foreignclusters.discovery.liqo.io -l " + kliqo0x.ClusterIDLabel + "=" + providerID,
	}
}
