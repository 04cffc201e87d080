package tui

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"time"

	"github.com/atotto/clipboard"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// Mode is how the handshake runs.
type Mode int

const (
	// ModeUndecided: detection has not finished.
	ModeUndecided Mode = iota
	// ModeAutomated: this workstation reaches both clusters.
	ModeAutomated
	// ModeManual: only one cluster is used; artifacts travel by hand.
	ModeManual
)

func (m Mode) String() string {
	switch m {
	case ModeAutomated:
		return "automated"
	case ModeManual:
		return "manual"
	}
	return "detecting"
}

// Options configure the wizard.
type Options struct {
	Backend Backend
	// Local and Remote are prefilled from --kubeconfig/--context and
	// --remote-kubeconfig/--remote-context; Remote may be empty.
	Local, Remote ClusterRef
	// Role of the local cluster (--role); RoleUnknown = ask or infer.
	Role handshake.Role
	// PeerID is the other cluster's ID (--remote-cluster-id), manual mode.
	PeerID string
	// Clipboard is the copy policy (--clipboard).
	Clipboard ClipboardPolicy
	// ControllerImage is the image the detect screen offers to install
	// the in-cluster controller with ("" = the backend's default).
	ControllerImage string
	// Timeout bounds each cluster operation (0 = none).
	Timeout time.Duration
	// In and Out are the terminal; nil = os.Stdin / os.Stdout.
	In  io.Reader
	Out io.Writer
	// Environ is the environment (nil = os.Environ()): NO_COLOR,
	// ACCESSIBLE, TERM, SSH_TTY, DISPLAY... are read from it.
	Environ []string

	// For tests: the clock, the native clipboard writer, and how often a
	// screen showing relative times is redrawn (0 = clockEvery).
	now        func() time.Time
	nativeCopy func(string) error
	clockEvery time.Duration
}

// ErrAborted is returned by Run when the admin quit before the end.
var ErrAborted = errors.New("the wizard was quit before the handshake finished: run it again to resume where it stopped")

// session is the state shared by the screens: what was given, detected and
// produced so far, grouped by the flow that fills it. Only the UI goroutine
// touches it.
type session struct {
	ctx     context.Context
	backend Backend
	opts    Options
	env     map[string]string

	pairState      // the two clusters, their roles and how the handshake runs
	handshakeState // what travelled between the admins and what came of it
	controllerState
	liqo0xState
	overviewState
	runState
}

// pairState is who takes part: filled by the start and detect screens.
type pairState struct {
	local, remote         ClusterRef
	localInfo, remoteInfo *ClusterInfo
	localErr, remoteErr   error
	// localRole is the role of the local cluster (the remote one plays the
	// other role). In manual mode, manualSide says which cluster is used.
	localRole  handshake.Role
	roleGiven  bool
	mode       Mode
	manualSide handshake.Scope
	peerID     string
}

// handshakeState is the v1 handshake's artifacts and results.
type handshakeState struct {
	nonce, tenant, identity *Artifact
	// peeringUser is the kubeconfig handed over instead of the nonce.
	peeringUser  *Artifact
	auth         *AuthResult
	verification *Verification
	// advertise: whether the admin saw (and maybe edited) what the
	// provider advertises to the consumer (advertise.go).
	advertise advertiseState
}

// controllerState is who serves the handshake beside the wizard.
type controllerState struct {
	// installed holds the clusters this wizard installed the controller on
	// (with the image): until its Pods run, the probe cannot tell.
	installed map[ClusterRef]string
	// served is the provider served from its summary (serve.go).
	served *serving
}

// liqo0xState is Liqo 0.x's flow (liqo0x.go): the peer info made here
// (manual provider) or received (manual consumer), the admin's choices, and
// the result.
type liqo0xState struct {
	peerInfo     *Artifact
	liqo0xOpts   Liqo0xOptions
	liqo0xResult *Liqo0xResult
}

// overviewState is the cluster's peerings detection found (overview.go).
type overviewState struct {
	peerings []OverviewRow
	// overviewSeen: the admin saw them and went on to a new peering.
	overviewSeen bool
	// sliceTarget is the peering the overview asks resources for (nil:
	// the handshake's, from its summary).
	sliceTarget *sliceTarget
}

// runState is what the wizard shows about its own run.
type runState struct {
	// banner is a one-line note on where the wizard resumed.
	banner string
	// notes are lines for the next detect screen (what init did).
	notes []string
	done  bool
	// wrote: this run changed a cluster (an operation ran, or the
	// advertised address was set); quitting before is no interruption.
	wrote bool
	// clockGen counts the screens that redraw as time passes (clock.go).
	clockGen int
}

// sliceTarget is a consumer, its provider's ID and, when this workstation
// reaches it, the provider.
type sliceTarget struct {
	consumer   ClusterRef
	providerID string
	provider   *ClusterRef
}

func newSession(ctx context.Context, o Options) *session {
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.nativeCopy == nil {
		o.nativeCopy = clipboard.WriteAll
	}
	if o.Clipboard == "" {
		o.Clipboard = ClipboardAuto
	}
	env := map[string]string{}
	for _, kv := range o.Environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return &session{ctx: ctx, backend: o.Backend, opts: o, env: env,
		pairState:       pairState{local: o.Local, remote: o.Remote, localRole: o.Role, roleGiven: o.Role != handshake.RoleUnknown, peerID: o.PeerID},
		controllerState: controllerState{installed: map[ClusterRef]string{}}}
}

// modeLabel says in the header how the handshake runs ("" undecided):
// in manual mode, which side this wizard plays and how the other takes
// part.
func (s *session) modeLabel() string {
	switch {
	case s.mode == ModeAutomated:
		return "automated"
	case s.mode != ModeManual:
		return ""
	case s.selfRole() == handshake.RoleUnknown:
		return "manual: which side is this?"
	}
	return "manual: " + string(s.selfRole()) + ", " + string(s.selfRole().Other()) + " by hand-off"
}

// ref is the cluster of a side.
func (s *session) ref(side handshake.Scope) ClusterRef {
	if side == handshake.Remote {
		return s.remote
	}
	return s.local
}

func (s *session) now() time.Time { return s.opts.now() }

// opContext bounds one backend call by --timeout.
func (s *session) opContext() (context.Context, context.CancelFunc) {
	if s.opts.Timeout > 0 {
		return context.WithTimeout(s.ctx, s.opts.Timeout)
	}
	return context.WithCancel(s.ctx)
}

// self is the cluster used in manual mode, and its role and info.
func (s *session) self() ClusterRef {
	if s.manualSide == handshake.Remote {
		return s.remote
	}
	return s.local
}

func (s *session) selfInfo() *ClusterInfo {
	if s.manualSide == handshake.Remote {
		return s.remoteInfo
	}
	return s.localInfo
}

func (s *session) selfRole() handshake.Role {
	if s.manualSide == handshake.Remote {
		return s.localRole.Other()
	}
	return s.localRole
}

// consumer and provider in automated mode.
func (s *session) consumer() (ClusterRef, *ClusterInfo) {
	if s.localRole == handshake.RoleProvider {
		return s.remote, s.remoteInfo
	}
	return s.local, s.localInfo
}

func (s *session) provider() (ClusterRef, *ClusterInfo) {
	if s.localRole == handshake.RoleProvider {
		return s.local, s.localInfo
	}
	return s.remote, s.remoteInfo
}

// scopeOf names a side for (local)/(remote) labels.
func (s *session) roleOf(side handshake.Scope) handshake.Role {
	if side == handshake.Remote {
		return s.localRole.Other()
	}
	return s.localRole
}

// ownID is the cluster ID of the cluster used in manual mode.
func (s *session) ownID() string {
	if i := s.selfInfo(); i != nil {
		return i.ClusterID
	}
	return ""
}

func (s *session) accessible() bool {
	return s.env["ACCESSIBLE"] != "" && s.env["ACCESSIBLE"] != "0" || s.env["TERM"] == "dumb"
}

func (s *session) noColor() bool { return s.env["NO_COLOR"] != "" }

// interrupts tells whether leaving now leaves a handshake half done: this
// run wrote something and did not finish. Before any write, quitting is
// just leaving (exit 0, nothing to resume).
func (s *session) interrupts() bool { return s.wrote && !s.done }
