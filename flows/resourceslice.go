package flows

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/serving"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

// SliceStatus is what a consumer knows of one of its ResourceSlices (the
// CLI names it here).
type SliceStatus = handshake.SliceStatus

// SliceOptions tune CreateResourceSlice.
type SliceOptions struct {
	// Wait for the provider's answer and the slice's kubeconfig Secret.
	Wait bool
	// StepTimeout bounds each wait (0 = only the context).
	StepTimeout time.Duration
	Engine      EngineOptions
	// Provider, when set, is served in-process too when nothing serves it
	// (both kubeconfigs at hand, like authenticate).
	Provider *kube.Cluster
}

// CreateResourceSlice checks the request and that the provider is
// authenticated, writing nothing until all is known to be right; creates
// the slice in the provider's tenant namespace (again: nothing, when an
// identical one is there); and, with o.Wait, waits for the provider's
// decision and the slice's kubeconfig Secret. The slice's status comes
// back whenever the provider answered: with a *SliceDeniedError when it
// denied the slice's authentication or its resources.
func CreateResourceSlice(ctx context.Context, consumer *kube.Cluster, req artifact.SliceRequest, o SliceOptions, sink handshake.Sink) (*SliceStatus, error) {
	sink = step.OrDiscard(sink)
	want, err := checkSliceRequest(req)
	if err != nil {
		return nil, err
	}
	ns, existing, err := checkSliceTarget(ctx, consumer, req)
	if err != nil {
		return nil, err
	}
	want.Namespace = ns
	// An existing slice asking something else is updated in place, as
	// liqoctl's CreateOrUpdate does: same Identity and kubeconfig Secret.
	var updated *authv1beta1.ResourceSlice
	var changes []string
	if existing != nil {
		updated, changes = sliceUpdate(existing, want)
	}
	var consumerEngine, providerEngine Engine
	if o.Wait {
		if consumerEngine, err = chooseEngine(ctx, consumer, handshake.RoleConsumer, o.Engine); err != nil {
			return nil, fmt.Errorf("(local) %w", err)
		}
		if o.Provider != nil {
			if providerEngine, err = chooseEngine(ctx, o.Provider, handshake.RoleProvider, o.Engine); err != nil {
				return nil, fmt.Errorf("(remote) %w", err)
			}
		}
	}
	// Who answers on the provider, and a way to see the copy arrive there:
	// asked meanwhile (the provider may answer slowly, or not at all, at the
	// address the consumer's credentials name), known by the wait.
	wait := sliceWait{known: make(chan struct{}), admin: o.Provider}
	if len(changes) > 0 {
		wait.asked = want.Spec.Resources
	}
	if o.Wait {
		go func() {
			defer close(wait.known)
			wait.answer, wait.remote, _ = sliceAnswer(ctx, consumer, req.ProviderID, providerEngine)
		}()
	}
	var eng engines
	defer eng.stop()
	rs := existing
	steps := []Step{}
	if o.Wait {
		steps = append(steps, Step{ID: "engines", Scope: handshake.NoScope, Title: "Checking the controllers", Success: "Controllers ready",
			Failure: "Unable to start the controllers",
			Run: func(ctx context.Context) error {
				var g errgroup.Group
				g.Go(func() (err error) {
					defer kube.RecoverAsError(&err, "starting the consumer's controllers")
					return step.Scoped(handshake.Local, eng.serve(ctx, consumer, handshake.RoleConsumer, consumerEngine, o.Engine, sink, handshake.Local))
				})
				if o.Provider != nil {
					g.Go(func() (err error) {
						defer kube.RecoverAsError(&err, "starting the provider's controllers")
						return step.Scoped(handshake.Remote, eng.serve(ctx, o.Provider, handshake.RoleProvider, providerEngine, o.Engine, sink, handshake.Remote))
					})
				}
				return g.Wait()
			}})
	}
	steps = append(steps, Step{ID: "create-resourceslice", Scope: handshake.Local, Title: "Creating ResourceSlice",
		Failure: "Unable to create ResourceSlice", Command: "liqoctl create resourceslice " + req.Name + " --remote-cluster-id " + req.ProviderID,
		Run: func(ctx context.Context) error {
			if rs != nil {
				if len(changes) == 0 {
					return nil
				}
				var err error
				rs, err = consumer.UpdateResourceSlice(ctx, updated)
				return err
			}
			created, err := consumer.CreateResourceSlice(ctx, want)
			if apierrors.IsAlreadyExists(err) {
				// Made a moment ago by someone else: fine if it is the same.
				if created, err = consumer.ResourceSlice(ctx, ns, want.Name); err == nil {
					err = sameSlice(created, want)
				}
			}
			rs = created
			return err
		},
		Outcome: func() string {
			if len(changes) > 0 {
				return "ResourceSlice " + ns + "/" + req.Name + " updated: " + strings.Join(changes, ", ")
			}
			if existing != nil {
				return "ResourceSlice " + ns + "/" + req.Name + " already exists: nothing changed"
			}
			return "ResourceSlice " + ns + "/" + req.Name + " created"
		}})
	if o.Wait {
		steps = append(steps, waitSliceDecisionStep(consumer, sink, o.StepTimeout, ns, req.Name, req.ProviderID, &rs, &wait),
			waitSliceKubeconfigStep(consumer, sink, o.StepTimeout, ns, req.Name, &rs))
	}
	err = step.Run(ctx, sink, steps)
	var denied *SliceDeniedError
	if err != nil && !errors.As(err, &denied) {
		return nil, err
	}
	id, _ := sliceIdentity(ctx, consumer, rs)
	st := peerings.SliceStatusOf(rs, id)
	if err == nil && st.Denied() {
		// Authenticated but no resources (a cordoned or drained Tenant).
		err = deniedSliceError(ctx, st, &wait)
	}
	if errors.As(err, &denied) && denied.Message != "" {
		st.Message = denied.Message // the why, where Liqo's condition says only "denied"
	}
	return &st, err
}

// checkSliceRequest validates the request alone and builds the slice.
func checkSliceRequest(req artifact.SliceRequest) (*authv1beta1.ResourceSlice, error) {
	class, resources, err := artifact.CheckedSlice(req)
	if err != nil {
		return nil, err
	}
	return kube.ForgeResourceSlice(req.Name, "", req.ProviderID, class, resources, req.CreateVirtualNode), nil
}

// checkSliceTarget reads, writing nothing, where the slice goes: the
// tenant namespace of an authenticated provider; and the slice of that
// name, if there is one.
func checkSliceTarget(ctx context.Context, consumer *kube.Cluster, req artifact.SliceRequest) (string, *authv1beta1.ResourceSlice, error) {
	own, err := consumer.ClusterID(ctx)
	if err != nil {
		return "", nil, err
	}
	if own == req.ProviderID {
		return "", nil, fmt.Errorf("--remote-cluster-id %s is this cluster's own ID: give the provider's ID", own)
	}
	id, err := consumer.ControlPlaneIdentityFor(ctx, req.ProviderID)
	if kube.IsNotFound(err) {
		return "", nil, fmt.Errorf("no authenticated provider %s on this cluster: run `liqo-auth-tui authenticate` first", req.ProviderID)
	}
	if err != nil {
		return "", nil, err
	}
	ns, err := consumer.TenantNamespace(ctx, req.ProviderID)
	if err != nil {
		return "", nil, fmt.Errorf("tenant namespace of provider %s: %w", req.ProviderID, err)
	}
	if id.Namespace != ns.Name {
		return "", nil, fmt.Errorf("the Identity of provider %s is in namespace %s, not in its tenant namespace %s: run `liqo-auth-tui authenticate` again", req.ProviderID, id.Namespace, ns.Name)
	}
	existing, err := consumer.FindResourceSlice(ctx, req.Name, "")
	if kube.IsNotFound(err) {
		return ns.Name, nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	if existing.Namespace != ns.Name {
		return "", nil, fmt.Errorf("a ResourceSlice named %s already exists in namespace %s (slice names are unique on a consumer): choose another name", req.Name, existing.Namespace)
	}
	return ns.Name, existing, nil
}

// sameSlice accepts an existing slice that asks what want asks.
func sameSlice(existing, want *authv1beta1.ResourceSlice) error {
	if _, changes := sliceUpdate(existing, want); len(changes) == 0 {
		return nil
	}
	return fmt.Errorf("ResourceSlice %s/%s was made meanwhile and asks for something else (class %q, resources %s): run the command again to update it",
		existing.Namespace, existing.Name, existing.Spec.Class, controller.FormatResourceList(existing.Spec.Resources))
}

// sliceUpdate is existing changed as liqoctl's update changes it (labels
// added, the virtual-node annotation added, never removed; class,
// resources and provider set), and the changes in words; none: nil.
func sliceUpdate(existing, want *authv1beta1.ResourceSlice) (*authv1beta1.ResourceSlice, []string) {
	rs := existing.DeepCopy()
	var changes []string
	if rs.Spec.Class != want.Spec.Class {
		changes = append(changes, fmt.Sprintf("class %s -> %s", orDefault(string(rs.Spec.Class)), orDefault(string(want.Spec.Class))))
		rs.Spec.Class = want.Spec.Class
	}
	if !apiequality.Semantic.DeepEqual(rs.Spec.Resources, want.Spec.Resources) {
		changes = append(changes, resourceChanges(rs.Spec.Resources, want.Spec.Resources)...)
		rs.Spec.Resources = want.Spec.Resources
	}
	if rs.Spec.ProviderClusterID != want.Spec.ProviderClusterID {
		if rs.Spec.ProviderClusterID != "" {
			changes = append(changes, "provider "+rs.Spec.ProviderClusterID+" -> "+want.Spec.ProviderClusterID)
		}
		rs.Spec.ProviderClusterID = want.Spec.ProviderClusterID
	}
	for k, v := range want.Labels {
		if rs.Labels[k] != v {
			if rs.Labels == nil {
				rs.Labels = map[string]string{}
			}
			changes = append(changes, "label "+k+"="+v)
			rs.Labels[k] = v
		}
	}
	if v, ok := want.Annotations[kube.CreateVirtualNodeAnnotation]; ok && rs.Annotations[kube.CreateVirtualNodeAnnotation] != v {
		if rs.Annotations == nil {
			rs.Annotations = map[string]string{}
		}
		changes = append(changes, "virtual node asked")
		rs.Annotations[kube.CreateVirtualNodeAnnotation] = v
	}
	return rs, changes
}

func orDefault(class string) string {
	if class == "" {
		return string(authv1beta1.ResourceSliceClassDefault)
	}
	return class
}

// resourceChanges words the changes from old to new, one per resource.
func resourceChanges(old, new corev1.ResourceList) []string {
	names := map[corev1.ResourceName]bool{}
	for k := range old {
		names[k] = true
	}
	for k := range new {
		names[k] = true
	}
	sorted := slices.Sorted(maps.Keys(names))
	var out []string
	for _, k := range sorted {
		o, inOld := old[k]
		n, inNew := new[k]
		switch {
		case !inNew:
			out = append(out, fmt.Sprintf("%s %s -> none", k, o.String()))
		case !inOld:
			out = append(out, fmt.Sprintf("%s none -> %s", k, n.String()))
		case o.Cmp(n) != 0:
			out = append(out, fmt.Sprintf("%s %s -> %s", k, o.String(), n.String()))
		}
	}
	return out
}

func waitSliceKubeconfigStep(consumer *kube.Cluster, sink handshake.Sink, timeout time.Duration, ns, name string, rs **authv1beta1.ResourceSlice) Step {
	idName := kube.ResourceSliceIdentityName(name)
	return Step{ID: "wait-resourceslice-identity", Scope: handshake.Local, Title: "Waiting for the ResourceSlice's kubeconfig",
		Success: "ResourceSlice kubeconfig Secret ready", Failure: "Failed waiting for the ResourceSlice's kubeconfig", Timeout: timeout,
		Command: "kubectl get identity " + idName + " -n " + ns,
		Run: func(ctx context.Context) error {
			id, err := waitObserving(ctx, consumer, sink, handshake.Local, kube.ObjectRef{Kind: authv1beta1.IdentityKind, Namespace: ns, Name: idName},
				consumer.IdentitiesListWatch(ns, kube.ByName(idName)), "identity "+idName+" and its kubeconfig Secret",
				func(id *authv1beta1.Identity) (bool, error) {
					return id.Status.KubeconfigSecretRef != nil && id.Status.KubeconfigSecretRef.Name != "", nil
				})
			if err != nil {
				return err
			}
			// The Secret itself, not only the Identity's word for it.
			_, err = waitObserving(ctx, consumer, sink, handshake.Local, kube.ObjectRef{Kind: "Secret", Namespace: ns, Name: id.Status.KubeconfigSecretRef.Name},
				consumer.SecretsListWatch(ns, kube.ByName(id.Status.KubeconfigSecretRef.Name)), "kubeconfig Secret "+id.Status.KubeconfigSecretRef.Name,
				func(s *corev1.Secret) (bool, error) { return len(s.Data[kube.KubeconfigField]) > 0, nil })
			if err != nil {
				return err
			}
			if fresh, err := consumer.ResourceSlice(ctx, ns, name); err == nil {
				*rs = fresh
			}
			return nil
		}}
}

// sliceIdentity returns the Identity of a slice, nil when there is none.
func sliceIdentity(ctx context.Context, consumer *kube.Cluster, rs *authv1beta1.ResourceSlice) (*authv1beta1.Identity, error) {
	if rs == nil {
		return nil, nil
	}
	id, err := consumer.Identity(ctx, rs.Namespace, kube.ResourceSliceIdentityName(rs.Name))
	if kube.IsNotFound(err) {
		return nil, nil
	}
	return id, err
}

// ListResourceSlices lists this consumer's slices, for one provider or all
// (""), with their Identities.
func ListResourceSlices(ctx context.Context, consumer *kube.Cluster, providerID string) ([]SliceStatus, error) {
	if providerID != "" {
		if err := authcrypto.ValidateClusterID(providerID); err != nil {
			return nil, fmt.Errorf("--remote-cluster-id: %w", err)
		}
	}
	slices, err := consumer.LocalResourceSlices(ctx, providerID)
	if err != nil {
		return nil, err
	}
	ids, err := consumer.ResourceSliceIdentities(ctx)
	if err != nil {
		return nil, err
	}
	byKey := map[string]*authv1beta1.Identity{}
	for i := range ids {
		byKey[ids[i].Namespace+"/"+ids[i].Name] = &ids[i]
	}
	out := make([]SliceStatus, 0, len(slices))
	for i := range slices {
		rs := &slices[i]
		out = append(out, peerings.SliceStatusOf(rs, byKey[rs.Namespace+"/"+kube.ResourceSliceIdentityName(rs.Name)]))
	}
	return out, nil
}

// GetResourceSlice is the status of one slice; unknown → an error that
// says so.
func GetResourceSlice(ctx context.Context, consumer *kube.Cluster, name, providerID string) (*SliceStatus, error) {
	rs, err := findSlice(ctx, consumer, name, providerID)
	if err != nil {
		return nil, err
	}
	id, err := sliceIdentity(ctx, consumer, rs)
	if err != nil {
		return nil, err
	}
	st := peerings.SliceStatusOf(rs, id)
	return &st, nil
}

// DeleteResourceSlice deletes a slice of this consumer; its Identity and
// kubeconfig Secret go with it (owner references), and the replicator
// deletes its copy on the provider, then lets the slice go (this command
// does, when no replicator runs).
func DeleteResourceSlice(ctx context.Context, consumer *kube.Cluster, name, providerID string) error {
	rs, err := findSlice(ctx, consumer, name, providerID)
	if err != nil {
		return err
	}
	err = consumer.DeleteResourceSlice(ctx, rs)
	if kube.IsNotFound(err) {
		return nil // gone meanwhile: what was asked
	}
	if err != nil || !slices.Contains(rs.Finalizers, kube.ReplicaFinalizer) {
		return err
	}
	// Held until its copy on the provider is gone (§10): when no replicator
	// runs here, this does its part, so the slice does not stay Terminating.
	g := &replicaGuard{consumer: consumer, providerID: rs.Labels[kube.RemoteIDLabel]}
	if g.engine, err = serving.Detect(ctx, consumer); err != nil || g.served() {
		return err
	}
	return g.finalize(ctx)
}

func findSlice(ctx context.Context, consumer *kube.Cluster, name, providerID string) (*authv1beta1.ResourceSlice, error) {
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return nil, fmt.Errorf("invalid ResourceSlice name %q: %s", name, errs[0])
	}
	if providerID != "" {
		if err := authcrypto.ValidateClusterID(providerID); err != nil {
			return nil, fmt.Errorf("--remote-cluster-id: %w", err)
		}
	}
	rs, err := consumer.FindResourceSlice(ctx, name, providerID)
	if kube.IsNotFound(err) {
		if providerID != "" {
			return nil, fmt.Errorf("no ResourceSlice %s for provider %s on this cluster: list them with `liqo-auth-tui get resourceslice`", name, providerID)
		}
		return nil, fmt.Errorf("no ResourceSlice %s on this cluster: list them with `liqo-auth-tui get resourceslice`", name)
	}
	return rs, err
}
