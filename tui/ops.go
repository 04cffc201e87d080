package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// phase is one backend call of an operation. Run executes on a goroutine
// (inside a tea.Cmd) and must not touch the session; Apply stores its
// result on the UI goroutine.
type phase struct {
	Title string
	Run   func(ctx context.Context, sink handshake.Sink) (any, error)
	Apply func(s *session, v any)
}

// operation is what the run screen shows: phases in order, then where to go.
type operation struct {
	Title  string
	Phases []phase
	// Then navigates once every phase succeeded.
	Then func(s *session) tea.Cmd
	// Review keeps the run screen up once done, until enter, so that the
	// admin can read what changed before Then.
	Review bool
	// GivesIdentity: the operation makes the provider's Identity for a
	// consumer, so the advertise screen comes first (advertise.go).
	GivesIdentity bool
	// Reissue, when set, is the same operation deleting the provider's
	// identity first: offered when a Liqo 0.x provider refuses because it
	// already issued one (liqo0x.go).
	Reissue func(s *session) operation
}

// failedOp is where a failed operation leads: the error screen, which
// retries it, or reissues when the operation can and the failure asks.
func failedOp(s *session, op operation, err error) gotoErrorMsg {
	msg := gotoErrorMsg{err: err, retry: runOp(op)}
	if op.Reissue != nil && alreadyIssued(err) {
		msg.reissue = runOp(op.Reissue(s))
	}
	return msg
}

func goTo(msg tea.Msg) func(*session) tea.Cmd {
	return func(*session) tea.Cmd { return navigate(msg) }
}

// runOp is the navigation that starts op.
func runOp(op operation) tea.Cmd { return navigate(gotoRunMsg{op: op}) }

// Operations of the wizard, built from the session. Each takes from the
// session's backend only the interface below it calls (a local of that
// type), which its phases capture: they run on a goroutine and must not
// read the session.

// ClusterPreparer prepares a cluster for the handshake: the detect
// screen's init and controller install. Both report their step to sink.
type ClusterPreparer interface {
	// Init prepares a cluster without Liqo (cluster ID, keys, CRDs, roles).
	Init(ctx context.Context, c ClusterRef, sink handshake.Sink) (*InitResult, error)
	// InstallController installs this project's in-cluster controller
	// (CRDs, consumer ClusterRoles, ServiceAccount, RBAC, Deployment) with
	// image ("" = the default). It serves the cluster only once its Pods
	// run. On failure the result (if not nil) lists what was applied before.
	InstallController(ctx context.Context, c ClusterRef, image string, sink handshake.Sink) (*InstallResult, error)
}

// Verifier checks what a consumer's credentials can do on its provider:
// the last phase of a consumer's handshake, and the overview's verify.
type Verifier interface {
	Verify(ctx context.Context, consumer ClusterRef, providerID string, sink handshake.Sink) (*Verification, error)
}

// AutomatedHandshake is the v1 handshake with both clusters reachable.
type AutomatedHandshake interface {
	// Authenticate runs the automated flow (both clusters reachable).
	Authenticate(ctx context.Context, consumer, provider ClusterRef, sink handshake.Sink) (*AuthResult, error)
	Verifier
}

// ProviderHandshake is the provider's manual steps, each making what its
// admin hands to the consumer's.
type ProviderHandshake interface {
	CreateNonce(ctx context.Context, provider ClusterRef, consumerID string, sink handshake.Sink) (*Artifact, error)
	ApplyTenant(ctx context.Context, provider ClusterRef, data []byte, sink handshake.Sink) (*Artifact, error)
	GenerateIdentity(ctx context.Context, provider ClusterRef, consumerID string, sink handshake.Sink) (*Artifact, error)
	// GeneratePeeringUser makes the peering user of consumerID (§9.4): a
	// Sensitive KindPeeringUser Artifact, its kubeconfig, with which the
	// consumer's admin runs the automated flow alone (peeringuser.go).
	GeneratePeeringUser(ctx context.Context, provider ClusterRef, consumerID string, sink handshake.Sink) (*Artifact, error)
}

// ConsumerHandshake is the consumer's manual steps. An empty nonce reuses
// the one already signed.
type ConsumerHandshake interface {
	GenerateTenant(ctx context.Context, consumer ClusterRef, providerID, nonce string, sink handshake.Sink) (*Artifact, error)
	ApplyIdentity(ctx context.Context, consumer ClusterRef, data []byte, sink handshake.Sink) (*AuthResult, error)
	Verifier
}

func opInit(s *session, sides []handshake.Scope) operation {
	var prepare ClusterPreparer = s.backend
	op := operation{Title: "Preparing the cluster for the handshake (init)", Then: goTo(gotoDetectMsg{})}
	for _, side := range sides {
		ref := s.ref(side)
		op.Phases = append(op.Phases, phase{
			Title: fmt.Sprintf("(%s) Initialising %s", side, ref.Describe()),
			Run: func(ctx context.Context, sink handshake.Sink) (any, error) {
				return prepare.Init(ctx, ref, scoped(side, ref, sink))
			},
			// The run screen moves on at once: the detect screen says what init did.
			Apply: func(s *session, v any) {
				res := v.(*InitResult)
				note := fmt.Sprintf("%s (%s) init: cluster %s is ready for the handshake", iconDone, side, res.ClusterID)
				if res.LiqoInstalled {
					note = fmt.Sprintf("%s (%s) init: Liqo is installed on cluster %s, nothing to do", iconInfo, side, res.ClusterID)
				}
				s.notes = append(s.notes, note)
			},
		})
	}
	return op
}

// opInstallController installs the in-cluster controller on the clusters
// of sides. The run screen stays on the list of changes until enter.
func opInstallController(s *session, sides []handshake.Scope) operation {
	var prepare ClusterPreparer = s.backend
	image := s.opts.ControllerImage
	op := operation{Title: "Installing the in-cluster controller (liqo-auth-controller)", Then: goTo(gotoDetectMsg{}), Review: true}
	for _, side := range sides {
		ref := s.ref(side)
		op.Phases = append(op.Phases, phase{
			Title: fmt.Sprintf("(%s) Installing the controller on %s", side, ref.Describe()),
			Run: func(ctx context.Context, sink handshake.Sink) (any, error) {
				sink = scoped(side, ref, sink)
				res, err := prepare.InstallController(ctx, ref, image, sink)
				if err != nil {
					return nil, err
				}
				if res.NoReadyNode {
					sink(handshake.Event{Kind: handshake.Note, Scope: side, Message: "Until a Node runs its Pods, the wizard still serves this cluster in-process"})
				}
				return res, nil
			},
			Apply: func(s *session, v any) {
				res := v.(*InstallResult)
				s.installed[ref] = res.Image
				// The cluster's line on the detect screen says it is served
				// in-process until the Pods run.
				// Without a Ready Node, the cluster's line says it is served
				// in-process meanwhile.
				served := ""
				if res.ServedBy != "" {
					served = "; serving from Pod " + res.ServedBy
				}
				s.notes = append(s.notes, fmt.Sprintf("%s (%s) controller installed: %d object(s) created or updated, %d unchanged%s",
					iconDone, side, len(res.Changed), len(res.Unchanged), served))
			},
		})
	}
	return op
}

// scoped reports a one-cluster operation's events as the side it runs on
// (the backend's steps are local to the cluster they are given), and its
// equivalent command with the flags that select that cluster.
func scoped(side handshake.Scope, ref ClusterRef, sink handshake.Sink) handshake.Sink {
	return func(ev handshake.Event) {
		ev.Scope = side
		if strings.HasPrefix(ev.Command, "liqo-auth-tui ") {
			ev.Command += ref.Flags()
		}
		sink(ev)
	}
}

func opAuthenticate(s *session) operation {
	var steps AutomatedHandshake = s.backend
	consumer, cinfo := s.consumer()
	provider, pinfo := s.provider()
	return operation{
		Title:         fmt.Sprintf("Authenticating consumer %s with provider %s", idOf(cinfo), idOf(pinfo)),
		GivesIdentity: true,
		Phases: []phase{
			{Title: "Authenticate (14 steps)",
				Run: func(ctx context.Context, sink handshake.Sink) (any, error) {
					return steps.Authenticate(ctx, consumer, provider, sink)
				},
				Apply: func(s *session, v any) { s.auth = v.(*AuthResult) }},
			verifyPhase(steps, consumer, idOf(pinfo)),
		},
		Then: goTo(gotoSummaryMsg{}),
	}
}

func verifyPhase(verifier Verifier, consumer ClusterRef, pid string) phase {
	return phase{Title: "Verify the kubeconfig Secret against the provider",
		Run: func(ctx context.Context, sink handshake.Sink) (any, error) {
			return verifier.Verify(ctx, consumer, pid, sink)
		},
		Apply: func(s *session, v any) { s.verification = v.(*Verification) }}
}

// opVerify verifies an existing authentication (consumer; resume or automated).
func opVerify(s *session, consumer ClusterRef, providerID string) operation {
	return operation{
		Title:  "Checking the existing authentication with provider " + providerID,
		Phases: []phase{verifyPhase(s.backend, consumer, providerID)},
		Then:   goTo(gotoSummaryMsg{}),
	}
}

// makeAndHandOver is an operation of one backend call on the cluster in use
// that makes an artifact for the peer: stored in the session field slot
// points at, then handed over.
func makeAndHandOver(s *session, title, phaseTitle string, slot func(*session) **Artifact,
	produce func(ctx context.Context, self ClusterRef, peer string, sink handshake.Sink) (*Artifact, error)) operation {
	self, peer := s.self(), s.peerID
	return operation{
		Title: title + peer,
		Phases: []phase{{Title: phaseTitle,
			Run: func(ctx context.Context, sink handshake.Sink) (any, error) {
				return produce(ctx, self, peer, sink)
			},
			Apply: func(s *session, v any) { *slot(s) = v.(*Artifact) }}},
		Then: func(s *session) tea.Cmd { return navigate(gotoHandoffMsg{art: *slot(s)}) },
	}
}

func opCreateNonce(s *session) operation {
	var steps ProviderHandshake = s.backend
	return makeAndHandOver(s, "Creating the nonce for consumer ", "Create nonce",
		func(s *session) **Artifact { return &s.nonce }, steps.CreateNonce)
}

func opGenerateTenant(s *session, nonce string) operation {
	var steps ConsumerHandshake = s.backend
	return makeAndHandOver(s, "Signing the nonce and generating the Tenant for provider ", "Generate Tenant",
		func(s *session) **Artifact { return &s.tenant },
		func(ctx context.Context, self ClusterRef, peer string, sink handshake.Sink) (*Artifact, error) {
			return steps.GenerateTenant(ctx, self, peer, nonce, sink)
		})
}

func opApplyTenant(s *session, data []byte) operation {
	var steps ProviderHandshake = s.backend
	self := s.self()
	return operation{
		Title:         "Applying the Tenant of consumer " + s.peerID,
		GivesIdentity: true,
		Phases: []phase{
			{Title: "Apply Tenant",
				Run: func(ctx context.Context, sink handshake.Sink) (any, error) {
					return steps.ApplyTenant(ctx, self, data, sink)
				},
				Apply: func(s *session, v any) { s.tenant = v.(*Artifact) }},
			identityPhase(s, steps),
		},
		Then: func(s *session) tea.Cmd { return navigate(gotoHandoffMsg{art: s.identity}) },
	}
}

func identityPhase(s *session, steps ProviderHandshake) phase {
	self, peer := s.self(), s.peerID
	return phase{Title: "Generate Identity",
		Run: func(ctx context.Context, sink handshake.Sink) (any, error) {
			return steps.GenerateIdentity(ctx, self, peer, sink)
		},
		Apply: func(s *session, v any) { s.identity = v.(*Artifact) }}
}

// opGenerateIdentity is where a provider whose Tenant was accepted resumes.
func opGenerateIdentity(s *session) operation {
	return operation{
		Title:         "Generating the Identity for consumer " + s.peerID,
		GivesIdentity: true,
		Phases:        []phase{identityPhase(s, s.backend)},
		Then:          func(s *session) tea.Cmd { return navigate(gotoHandoffMsg{art: s.identity}) },
	}
}

func opApplyIdentity(s *session, data []byte) operation {
	var steps ConsumerHandshake = s.backend
	self, peer := s.self(), s.peerID
	return operation{
		Title: "Applying the Identity of provider " + peer,
		Phases: []phase{
			{Title: "Apply Identity",
				Run: func(ctx context.Context, sink handshake.Sink) (any, error) {
					return steps.ApplyIdentity(ctx, self, data, sink)
				},
				Apply: func(s *session, v any) { s.auth = v.(*AuthResult) }},
			verifyPhase(steps, self, peer),
		},
		Then: goTo(gotoSummaryMsg{}),
	}
}

func idOf(i *ClusterInfo) string {
	if i == nil || i.ClusterID == "" {
		return "?"
	}
	return i.ClusterID
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
