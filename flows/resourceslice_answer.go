package flows

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/access"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// A consumer's ResourceSlice is answered on the provider (§10.1): the
// consumer's replicator copies it there with the kubeconfig Secret's
// credentials, the provider's controller signs it, and the answer is
// replicated back. In manual mode the consumer's side cannot start the
// provider's controller: this file says who answers, sees the copy arrive,
// and explains a request left unanswered.

// SliceAnswer is who answers a consumer's ResourceSlices on a provider.
type SliceAnswer = handshake.SliceAnswer

// SliceAnswerer tells, writing nothing, who answers consumer's
// ResourceSlices on providerID. With the provider's kubeconfig (provider
// not nil), it is what serves the provider's side there, or this run
// in-process (chooseEngine). Without it, the consumer's kubeconfig Secret
// for the provider shows whether Liqo runs there (its API groups, which
// any user may discover); whether this project's controller runs cannot be
// seen with it (it may not read the controller's Lease).
func SliceAnswerer(ctx context.Context, consumer *kube.Cluster, providerID string, provider *kube.Cluster, o EngineOptions) (SliceAnswer, error) {
	var engine Engine
	if provider != nil {
		var err error
		if engine, err = chooseEngine(ctx, provider, handshake.RoleProvider, o); err != nil {
			return SliceAnswer{}, fmt.Errorf("(remote) %w", err)
		}
	}
	a, _, err := sliceAnswer(ctx, consumer, providerID, engine)
	return a, err
}

// sliceAnswer is SliceAnswerer once the provider's engine is known (""
// = the provider is not at hand), and the provider as the consumer's
// kubeconfig Secret reaches it (nil when it cannot be built). The error is
// the consumer's, which could not be read; what cannot be read of the
// provider stays unknown.
func sliceAnswer(ctx context.Context, consumer *kube.Cluster, providerID string, engine Engine) (SliceAnswer, *kube.Cluster, error) {
	a := SliceAnswer{Answerer: answererOf(engine)}
	var err error
	if a.ConsumerID, err = consumer.ClusterID(ctx); err != nil {
		return a, nil, Reached(consumer, err)
	}
	remote, ns, err := providerThroughSecret(ctx, consumer, providerID)
	if err != nil {
		return a, nil, nil
	}
	a.Namespace = ns
	if engine == "" && runsLiqo(ctx, remote) {
		a.Answerer = handshake.AnswererLiqo
	}
	return a, remote, nil
}

func answererOf(e Engine) handshake.Answerer {
	switch e {
	case EngineLiqo:
		return handshake.AnswererLiqo
	case EngineController:
		return handshake.AnswererController
	case EngineInProcess:
		return handshake.AnswererInProcess
	case EngineControllerAssumed:
		return handshake.AnswererAssumed
	}
	return handshake.AnswererUnknown
}

// liqoCoreGroup is Liqo's API group of ForeignClusters: served where Liqo
// runs (`init` installs only authentication.liqo.io).
const liqoCoreGroup = "core.liqo.io"

// runsLiqo tells whether c serves liqoCoreGroup; false when it cannot be
// told within a few seconds (the provider's advertised address may not be
// reachable from this workstation).
func runsLiqo(ctx context.Context, c *kube.Cluster) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	served, err := c.ServesGroup(ctx, liqoCoreGroup)
	return err == nil && served
}

// providerThroughSecret is the provider as the consumer reaches it: a
// client with the consumer's kubeconfig Secret for providerID, and the
// consumer's tenant namespace there.
func providerThroughSecret(ctx context.Context, consumer *kube.Cluster, providerID string) (*kube.Cluster, string, error) {
	s, err := consumer.KubeconfigSecretFor(ctx, providerID)
	if err != nil {
		return nil, "", err
	}
	cfg, ns, err := access.OfSecret(s)
	if err != nil {
		return nil, "", err
	}
	c, err := kube.NewCluster(cfg, "")
	return c, ns, err
}

// sliceCopyWatch sees a slice's copy arrive on the provider, during the
// wait for its answer.
type sliceCopyWatch struct {
	// watched: the provider could be watched; seen: the copy showed there.
	watched, seen atomic.Bool
}

// watch notes, once, that the copy of ResourceSlice name reached provider
// (through remote, the consumer's tenant namespace ns there); it returns
// when it did or ctx ends. A provider that cannot be watched from here
// leaves watched false: nothing is then known.
func (w *sliceCopyWatch) watch(ctx context.Context, remote *kube.Cluster, ns, name, providerID string, sink handshake.Sink) {
	if remote == nil {
		return
	}
	lw := remote.ResourceSlicesListWatch(ns, kube.ByName(name))
	if _, err := cache.ToListerWatcherWithContext(lw).ListWithContext(ctx, metav1.ListOptions{}); err != nil {
		return
	}
	w.watched.Store(true)
	if _, err := kube.WaitFor(ctx, lw, "", func(*authv1beta1.ResourceSlice) (bool, error) { return true, nil }); err != nil {
		return
	}
	w.seen.Store(true)
	sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Remote,
		Message: fmt.Sprintf("ResourceSlice %s reached provider %s (namespace %s): waiting for its controller to answer", name, providerID, ns)})
}

// SliceUnansweredError is a wait for the provider's answer to a
// ResourceSlice that ran out: whether the request reached the provider,
// and what answers there, say what to do.
type SliceUnansweredError struct {
	Slice, ProviderID, ConsumerID string
	// Namespace is the consumer's tenant namespace on the provider,
	// LocalNamespace the provider's on the consumer, where the slice is.
	Namespace, LocalNamespace string
	Answerer                  handshake.Answerer
	// Known: the provider could be watched; Reached: the copy showed there.
	Known, Reached bool
	Err            error // the wait's timeout
}

func (e *SliceUnansweredError) Unwrap() error { return e.Err }

func (e *SliceUnansweredError) Error() string {
	msg := "no answer from provider " + e.ProviderID + " to ResourceSlice " + e.Slice
	switch {
	case e.Known && e.Reached:
		msg += ": the request reached it (namespace " + e.Namespace + ") but nothing there answered"
	case e.Known:
		msg += ": the request never reached it, the consumer's replicator did not copy it"
	}
	return msg + " (" + e.Err.Error() + ")" + hintSeparator + e.Hint()
}

// Hint says what to run, and how to remove the request.
func (e *SliceUnansweredError) Hint() string {
	again := "then request it again (the same request waits for the answer again), or remove it: `" + handshake.DeleteSliceCommand(e.Slice, e.ProviderID) + "`"
	if e.Known && !e.Reached {
		return "see the ResourceSlice's Events on the consumer (`kubectl describe " + handshake.SliceResource + " " + e.Slice + " -n " + e.LocalNamespace + "`): " +
			"the replicator copies it with the kubeconfig Secret for the provider; " + again
	}
	if e.Answerer.NeedsProviderAdmin() {
		h := SliceAnswer{ConsumerID: e.ConsumerID, Namespace: e.Namespace}.Handoff(e.ProviderID, e.Slice).Commands()
		return "most likely nothing serves provider " + e.ProviderID + ": its admin runs `" + h[1] + "` there, or keeps the wizard (`" + h[2] +
			"`) open on its summary; " + again
	}
	return "the provider's controller did not answer in time: see the ResourceSlice's Events there; " + again
}

// unanswered turns the wait's timeout for slice (in namespace ns) into a
// SliceUnansweredError.
func (w *sliceCopyWatch) unanswered(err error, a SliceAnswer, providerID, ns, slice string) error {
	return &SliceUnansweredError{Slice: slice, ProviderID: providerID, ConsumerID: a.ConsumerID, Namespace: a.Namespace, LocalNamespace: ns,
		Answerer: a.Answerer, Known: w.watched.Load(), Reached: w.seen.Load(), Err: err}
}

// errSliceDenied stops the wait for the provider's answer on a denial.
var errSliceDenied = errors.New("the provider denied the ResourceSlice")

func waitSliceDecisionStep(consumer *kube.Cluster, sink handshake.Sink, timeout time.Duration, ns, name, providerID string, out **authv1beta1.ResourceSlice, w *sliceWait) Step {
	return Step{ID: "wait-resourceslice", Scope: handshake.Local, Title: "Waiting for the provider to decide on the ResourceSlice",
		Success: "ResourceSlice authenticated", Failure: "Failed waiting for the ResourceSlice to be accepted", Timeout: timeout,
		Command: "kubectl get " + handshake.SliceResource + " " + name + " -n " + ns,
		Run: func(ctx context.Context) error {
			// Say what is awaited, and see the copy reach the provider.
			select {
			case <-w.known:
			case <-ctx.Done():
				return ctx.Err()
			}
			w.announce(sink, providerID, name)
			copyCtx, stopCopy := context.WithCancel(ctx)
			defer stopCopy()
			var copies sliceCopyWatch
			go copies.watch(copyCtx, w.remote, w.answer.Namespace, name, providerID, sink)
			got, err := waitObserving(ctx, consumer, sink, handshake.Local, kube.ObjectRef{Kind: authv1beta1.ResourceSliceKind, Namespace: ns, Name: name},
				consumer.ResourceSlicesListWatch(ns, kube.ByName(name)), "the provider's answer to ResourceSlice "+name,
				func(rs *authv1beta1.ResourceSlice) (bool, error) {
					if c := kube.SliceCondition(rs, authv1beta1.ResourceSliceConditionTypeAuthentication); c != nil && c.Status == authv1beta1.ResourceSliceConditionDenied {
						return false, errSliceDenied
					}
					// An updated slice: its old grant is not the answer.
					return sliceDecided(rs) && sliceGrants(rs, w.asked), nil
				})
			if errors.Is(err, kube.ErrWaitTimeout) {
				stopCopy()
				return copies.unanswered(err, w.answer, providerID, ns, name)
			}
			if err != nil && ctx.Err() == nil {
				// Denied (a final Warning may end the wait first): the
				// answer, which the status of the slice shows.
				if fresh, gerr := consumer.ResourceSlice(ctx, ns, name); gerr == nil && peerings.SliceStatusOf(fresh, nil).Denied() {
					*out = fresh
					return deniedSliceError(ctx, peerings.SliceStatusOf(fresh, nil), w)
				}
			}
			if err != nil {
				return err
			}
			*out = got
			return nil
		}}
}

// sliceWait is what the wait for a provider's answer knows: who answers,
// and the provider as the consumer reaches it (nil: not at all).
type sliceWait struct {
	known  chan struct{} // closed once answer and remote are set
	answer SliceAnswer
	remote *kube.Cluster
	// admin is the provider with its admin's kubeconfig (nil: not given),
	// which may read the provider's Events on a denial.
	admin *kube.Cluster
	// asked, when the slice was updated, is what the new grant must hold.
	asked corev1.ResourceList
}

// sliceGrants tells whether rs's status grants asked (nil: anything). A
// class other than default is granted by a provider's plugin: its answer
// cannot be told from the old one, accepted is enough. Denied resources
// are an answer too (the caller reports them).
func sliceGrants(rs *authv1beta1.ResourceSlice, asked corev1.ResourceList) bool {
	if asked == nil || (rs.Spec.Class != "" && rs.Spec.Class != authv1beta1.ResourceSliceClassDefault) ||
		kube.SliceConditionStatus(rs, authv1beta1.ResourceSliceConditionTypeResources) == authv1beta1.ResourceSliceConditionDenied {
		return true
	}
	for k, v := range asked {
		if got, ok := rs.Status.Resources[k]; !ok || got.Cmp(v) != 0 {
			return false
		}
	}
	return true
}

// announce says who answers and, when that may need the provider's admin,
// what they run.
func (w *sliceWait) announce(sink handshake.Sink, providerID, name string) {
	sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Remote, Message: w.answer.Answerer.Who(providerID)})
	if w.answer.Answerer.NeedsProviderAdmin() {
		sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Remote, Message: w.answer.Handoff(providerID, name).Line()})
	}
}

// sliceDecided: authenticated, and resources decided when Liqo decides
// them (default class; plugins decide the others, maybe later).
func sliceDecided(rs *authv1beta1.ResourceSlice) bool {
	if kube.SliceConditionStatus(rs, authv1beta1.ResourceSliceConditionTypeAuthentication) != authv1beta1.ResourceSliceConditionAccepted || rs.Status.AuthParams == nil {
		return false
	}
	if c := rs.Spec.Class; c != "" && c != authv1beta1.ResourceSliceClassDefault {
		return true
	}
	return kube.SliceConditionStatus(rs, authv1beta1.ResourceSliceConditionTypeResources) != ""
}

// sliceDeleteCommands are the commands that delete the slices of list
// (the first few).
func sliceDeleteCommands(list []authv1beta1.ResourceSlice, providerID string) string {
	const most = 5
	cmds := make([]string, 0, most)
	for i, rs := range list {
		if i == most {
			cmds = append(cmds, fmt.Sprintf("… and %d more (`liqo-auth-tui get resourceslice --remote-cluster-id %s` lists them)", len(list)-most, providerID))
			break
		}
		cmds = append(cmds, "`"+handshake.DeleteSliceCommand(rs.Name, providerID)+"`")
	}
	return strings.Join(cmds, "; ")
}
