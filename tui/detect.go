package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// probeMsg is the result of probing one cluster.
type probeMsg struct {
	gen  int
	side handshake.Scope
	info *ClusterInfo
	err  error
}

// stageMsg says how far the handshake got, to pick where to resume.
type stageMsg struct {
	stage handshake.Stage
	err   error
}

type detectKeys struct {
	Continue, Mode, Side, Swap, Consumer, Provider, Init, Install, Reprobe, Edit key.Binding
	// Yes and No answer the install confirmation.
	Yes, No key.Binding
}

func (k detectKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Yes, k.No, k.Continue, k.Consumer, k.Provider, k.Init, k.Install, k.Mode, k.Side, k.Swap, k.Reprobe, k.Edit}
}

func (k detectKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Yes, k.No}, {k.Continue, k.Init, k.Install, k.Reprobe, k.Edit}, {k.Mode, k.Side, k.Swap, k.Consumer, k.Provider}}
}

// ClusterProber is what the detect screen reads of each cluster.
type ClusterProber interface {
	// Probe checks reachability and authentication and reads what the
	// handshake needs; a failure is one classified line.
	Probe(ctx context.Context, c ClusterRef) (*ClusterInfo, error)
}

// detectScreen probes the clusters concurrently and decides the mode.
type detectScreen struct {
	s *session
	// prober reads each cluster; peerings lists the peerings the overview
	// would show first; stages tells where an automated handshake resumes
	// (detect_next.go).
	prober   ClusterProber
	peerings PeeringLister
	stages   StageReader
	keys     detectKeys
	spinner  spinner.Model
	gen      int
	pending  map[handshake.Scope]bool
	checking bool // asking the cluster where to resume
	note     string
	// confirmInstall: I was pressed, the install waits for y.
	confirmInstall bool
	// listing: the cluster's peerings are being read (the overview comes
	// first when it has some); autoNext: go on to the handshake by itself
	// once nothing needs the admin (a new peering from the overview).
	listing  bool
	autoNext bool
}

// peeringsMsg lists the peerings of the cluster detected (probe gen).
type peeringsMsg struct {
	gen  int
	rows []OverviewRow
}

var probeGen int

func newDetectScreen(s *session) *detectScreen {
	d := &detectScreen{s: s, prober: s.backend, peerings: s.backend, stages: s.backend, spinner: spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(styleWarn)),
		keys: detectKeys{
			Continue: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "continue")),
			Mode:     key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "automated/manual")),
			Side:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "use the other cluster")),
			Swap:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "swap roles")),
			Consumer: key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "it is the consumer")),
			Provider: key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "it is the provider")),
			Init:     key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "run init")),
			Install:  key.NewBinding(key.WithKeys("I", "shift+i"), key.WithHelp("I", "install controller")),
			Yes:      key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "install")),
			No:       key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n/esc", "cancel")),
			Reprobe:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "probe again")),
			Edit:     key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit kubeconfigs")),
		}}
	d.note, s.notes = strings.Join(s.notes, "\n"), nil
	return d
}

func (d *detectScreen) Init() tea.Cmd { return tea.Batch(d.spinner.Tick, d.probe()) }

func (d *detectScreen) probe() tea.Cmd {
	probeGen++
	d.gen = probeGen
	s := d.s
	s.mode = ModeUndecided
	s.localInfo, s.remoteInfo, s.localErr, s.remoteErr = nil, nil, nil, nil
	d.pending = map[handshake.Scope]bool{handshake.Local: true}
	cmds := []tea.Cmd{d.probeOne(handshake.Local, s.local)}
	if s.remote.Given() {
		d.pending[handshake.Remote] = true
		cmds = append(cmds, d.probeOne(handshake.Remote, s.remote))
	}
	return tea.Batch(cmds...)
}

func (d *detectScreen) probeOne(side handshake.Scope, ref ClusterRef) tea.Cmd {
	gen, s, prober := d.gen, d.s, d.prober
	return func() tea.Msg {
		ctx, cancel := s.opContext()
		defer cancel()
		info, err := prober.Probe(ctx, ref)
		return probeMsg{gen: gen, side: side, info: info, err: err}
	}
}

func (d *detectScreen) Typing() bool { return false }

func (d *detectScreen) Keys() help.KeyMap {
	k := d.keys
	s := d.s
	decided := len(d.pending) == 0
	both := s.localInfo != nil && s.remoteInfo != nil
	k.Continue.SetEnabled(decided && (d.canContinue() == "" || d.toOverview()))
	k.Mode.SetEnabled(decided && both)
	k.Side.SetEnabled(decided && both && s.mode == ModeManual)
	k.Swap.SetEnabled(decided && s.localRole != handshake.RoleUnknown && s.mode != ModeUndecided)
	ask := decided && s.mode == ModeManual && s.localRole == handshake.RoleUnknown
	k.Consumer.SetEnabled(ask)
	k.Provider.SetEnabled(ask)
	k.Init.SetEnabled(decided && len(d.unready()) > 0)
	k.Install.SetEnabled(decided && len(d.uncontrolled()) > 0)
	k.Reprobe.SetEnabled(decided)
	k.Yes.SetEnabled(d.confirmInstall)
	k.No.SetEnabled(d.confirmInstall)
	if d.confirmInstall {
		for _, b := range []*key.Binding{&k.Continue, &k.Mode, &k.Side, &k.Swap, &k.Consumer, &k.Provider, &k.Init, &k.Install, &k.Reprobe, &k.Edit} {
			b.SetEnabled(false)
		}
	}
	return k
}

// uses tells whether the chosen mode uses the cluster of side.
func (d *detectScreen) uses(side handshake.Scope) bool {
	s := d.s
	return s.mode == ModeAutomated || s.mode == ModeManual && s.manualSide == side
}

// uncontrolled lists the reachable clusters the chosen mode uses that have
// neither Liqo nor this project's controller (nor one installed by this
// wizard whose Pods are not running yet): the install offer.
func (d *detectScreen) uncontrolled() []handshake.Scope {
	s := d.s
	var out []handshake.Scope
	for _, side := range []handshake.Scope{handshake.Local, handshake.Remote} {
		info := s.localInfo
		if side == handshake.Remote {
			info = s.remoteInfo
		}
		// Liqo 0.x's own auth server serves it: no controller of ours;
		// its flow needs none on the consumer either.
		if s.liqo0xFlow() || info == nil || info.LiqoInstalled || info.Liqo0x || info.Controller || info.Restricted || !d.uses(side) {
			continue
		}
		if _, done := s.installed[s.ref(side)]; done {
			continue
		}
		out = append(out, side)
	}
	return out
}

// installQuestion is the install confirmation.
func (d *detectScreen) installQuestion() string {
	s := d.s
	var names []string
	for _, side := range d.uncontrolled() {
		names = append(names, fmt.Sprintf("%s (%s)", side, d.name(side)))
	}
	image := s.opts.ControllerImage
	if image == "" {
		image = "the default image"
	}
	return "On " + strings.Join(names, " and ") + ", this applies what `liqo-auth-tui install controller` applies: " +
		"the authentication.liqo.io CRDs, Liqo's consumer ClusterRoles and, in the Liqo namespace, a ServiceAccount, " +
		"least-privilege RBAC and a 2-replica Deployment (" + image + ").\n\n" +
		"Until the controller's Pods run, the wizard still serves the cluster in-process."
}

// name is how the detect screen names the cluster of side.
func (d *detectScreen) name(side handshake.Scope) string {
	ref, info := d.s.local, d.s.localInfo
	if side == handshake.Remote {
		ref, info = d.s.remote, d.s.remoteInfo
	}
	switch {
	case info != nil && info.ClusterID != "":
		return info.ClusterID
	case info != nil && info.Context != "":
		return info.Context
	case ref.Context != "":
		return ref.Context
	}
	return ref.Describe()
}

// unready lists the reachable clusters the chosen mode uses that have no
// cluster ID or keys yet. Liqo 0.x authenticates with a token, not keys:
// init must not write them there.
func (d *detectScreen) unready() []handshake.Scope {
	s := d.s
	ready := func(i *ClusterInfo) bool { return i.Ready() || i.Liqo0x && i.ClusterID != "" }
	var out []handshake.Scope
	if s.localInfo != nil && !ready(s.localInfo) && d.uses(handshake.Local) {
		out = append(out, handshake.Local)
	}
	if s.remoteInfo != nil && !ready(s.remoteInfo) && d.uses(handshake.Remote) {
		out = append(out, handshake.Remote)
	}
	return out
}

// decide picks the mode from what answered (the admin may override).
func (d *detectScreen) decide() {
	s := d.s
	switch {
	case s.localInfo != nil && s.remoteInfo != nil:
		s.mode = ModeAutomated
		if s.localRole == handshake.RoleUnknown {
			s.localRole = handshake.RoleConsumer // liqoctl: local consumer, remote provider
		}
	case s.localInfo != nil:
		s.mode, s.manualSide = ModeManual, handshake.Local
	case s.remoteInfo != nil:
		s.mode, s.manualSide = ModeManual, handshake.Remote
		if !s.roleGiven && s.localRole == handshake.RoleUnknown {
			// --remote-* is the provider by liqoctl's convention.
			s.localRole = handshake.RoleConsumer
		}
	default:
		s.mode = ModeUndecided
	}
}

// canContinue returns why the wizard cannot go on yet ("" = it can).
func (d *detectScreen) canContinue() string {
	s := d.s
	switch {
	case len(d.pending) > 0:
		return "probing…"
	case d.listing:
		return "reading the peerings this cluster has…"
	case s.mode == ModeUndecided:
		return "no cluster answered: fix the kubeconfig (e) or the cluster, then probe again (r)"
	case s.refusal() != "":
		return s.refusal()
	case s.mode == ModeManual && s.localRole == handshake.RoleUnknown:
		return "which role does this cluster play? press c (consumer) or p (provider)"
	case len(d.unready()) > 0:
		return "a cluster has no cluster ID or keys yet: press i to run init on it"
	case s.mode == ModeAutomated && s.localInfo.ClusterID == s.remoteInfo.ClusterID:
		return handshake.SameClusterProblem(s.localInfo.ClusterID)
	case d.checking:
		return "reading the handshake state…"
	}
	return ""
}

func (d *detectScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	s := d.s
	switch msg := msg.(type) {
	case spinner.TickMsg:
		var cmd tea.Cmd
		d.spinner, cmd = d.spinner.Update(msg)
		return d, cmd
	case probeMsg:
		if msg.gen != d.gen {
			return d, nil
		}
		delete(d.pending, msg.side)
		if msg.side == handshake.Local {
			s.localInfo, s.localErr = msg.info, msg.err
		} else {
			s.remoteInfo, s.remoteErr = msg.info, msg.err
		}
		if len(d.pending) == 0 {
			d.decide()
			return d, d.listPeerings()
		}
		return d, nil
	case peeringsMsg:
		if msg.gen != d.gen {
			return d, nil
		}
		d.listing, s.peerings = false, msg.rows
		if d.autoNext && d.canContinue() == "" {
			d.autoNext = false
			return d, d.next()
		}
		return d, nil
	case stageMsg:
		d.checking = false
		if msg.err != nil {
			return d, navigate(gotoErrorMsg{err: msg.err, retry: navigate(gotoDetectMsg{})})
		}
		consumer, _ := s.consumer()
		if msg.stage == handshake.StageAuthenticated {
			s.banner = "Already authenticated: the consumer has a kubeconfig Secret for this provider. Checking it."
			return d, runOp(opVerify(s, consumer, s.providerID()))
		}
		return d, runOp(opAuthenticate(s))
	case tea.KeyPressMsg:
		if len(d.pending) > 0 || d.checking || d.listing {
			return d, nil
		}
		if d.confirmInstall {
			k := d.Keys().(detectKeys)
			switch {
			case key.Matches(msg, k.Yes):
				return d, d.install(true)
			case key.Matches(msg, k.No):
				return d, d.install(false)
			}
			return d, nil
		}
		return d, pressed(msg, d.actions())
	}
	return d, nil
}

// actions are the detect screen's keys in the help's order (the install
// confirmation's aside): I asks to confirm the install first.
func (d *detectScreen) actions() []action {
	s, k := d.s, d.Keys().(detectKeys)
	role := func(r handshake.Role) func() tea.Cmd {
		return func() tea.Cmd {
			// The key names the role of the cluster in use.
			if s.manualSide == handshake.Remote {
				s.localRole = r.Other()
			} else {
				s.localRole = r
			}
			return nil
		}
	}
	return []action{
		{k.Continue, d.next},
		{k.Consumer, role(handshake.RoleConsumer)},
		{k.Provider, role(handshake.RoleProvider)},
		{k.Init, func() tea.Cmd { return runOp(opInit(s, d.unready())) }},
		{k.Install, func() tea.Cmd { d.confirmInstall = true; return nil }},
		{k.Mode, func() tea.Cmd {
			if s.mode == ModeAutomated {
				s.mode, s.manualSide = ModeManual, handshake.Local
			} else {
				s.mode = ModeAutomated
			}
			return nil
		}},
		{k.Side, func() tea.Cmd {
			if s.manualSide == handshake.Local {
				s.manualSide = handshake.Remote
			} else {
				s.manualSide = handshake.Local
			}
			return nil
		}},
		{k.Swap, func() tea.Cmd { s.localRole = s.localRole.Other(); return nil }},
		{k.Reprobe, func() tea.Cmd { return tea.Batch(d.spinner.Tick, d.probe()) }},
		{k.Edit, func() tea.Cmd { return navigate(editStartMsg{}) }},
	}
}

// install answers the install confirmation.
func (d *detectScreen) install(yes bool) tea.Cmd {
	d.confirmInstall = false
	if !yes {
		return nil
	}
	return runOp(opInstallController(d.s, d.uncontrolled()))
}

// lines probes the clusters, prints what answered and the mode, and offers
// the screen's actions (continue, role, mode, init, install...).
func (d *detectScreen) lines(u *lineUI) (tea.Msg, error) {
	u.println("")
	u.println("Probing the clusters…")
	if nav, err := u.await(d, d.probe()); nav != nil || err != nil {
		return nav, err
	}
	for {
		u.println("")
		u.println(plain(d.View(lineWidth, 1000)))
		cmd, quit, err := u.offer("What next?", d.actions(), true)
		if quit != nil || err != nil {
			return quit, err
		}
		if d.confirmInstall {
			yes, err := u.confirm(installTitle, d.installQuestion())
			if err != nil {
				return nil, err
			}
			cmd = d.install(yes)
		}
		if d.checking {
			u.println("Reading the handshake state…")
		}
		if nav, err := u.await(d, cmd); nav != nil || err != nil {
			return nav, err
		}
	}
}

const installTitle = "Install the in-cluster controller?"

func (d *detectScreen) View(width, height int) string {
	s := d.s
	if d.confirmInstall {
		inner := max(min(width-8, 72), 20)
		msg := styleBold.Render(installTitle) + "\n\n" + wrap(d.installQuestion(), inner) + "\n\n" +
			styleKey.Render("y") + " install   " + styleKey.Render("n") + " cancel"
		return lipgloss.Place(width, height, lipgloss.Center, lipgloss.Center, styleModal.MaxWidth(width).Render(msg))
	}
	var b strings.Builder
	b.WriteString(styleHeader.Render("Detecting the clusters") + "\n\n")
	d.clusterView(&b, width, "Local ", handshake.Local, s.local, s.localInfo, s.localErr)
	if s.remote.Given() {
		b.WriteString("\n")
		d.clusterView(&b, width, "Remote", handshake.Remote, s.remote, s.remoteInfo, s.remoteErr)
	} else {
		b.WriteString("\n" + styleSubtle.Render("Remote  none given (--remote-kubeconfig/--remote-context): manual mode") + "\n")
	}
	if len(d.pending) > 0 {
		return b.String()
	}
	b.WriteString("\n")
	switch s.mode {
	case ModeAutomated:
		b.WriteString(wrap("→ "+styleBold.Render("Automated mode")+": this workstation reaches both clusters. Local is the "+
			string(s.localRole)+", remote the "+string(s.localRole.Other())+".", width) + "\n")
	case ModeManual:
		side := "local"
		if s.manualSide == handshake.Remote {
			side = "remote"
		}
		role := "role to choose"
		if s.localRole != handshake.RoleUnknown {
			role = "the " + string(s.selfRole())
		}
		b.WriteString(wrap("→ "+styleBold.Render("Manual mode")+": only the "+side+" cluster is used ("+role+"); artifacts travel to the other admin by clipboard, file or print.", width) + "\n")
	}
	if s.liqo0xFlow() {
		b.WriteString(wrapWords("→ "+styleBold.Render("Liqo 0.x token authentication")+": "+s.liqo0xFlowLine(), width) + "\n")
	}
	if d.toOverview() {
		b.WriteString(wrap("→ "+styleBold.Render(fmt.Sprintf("%d peering(s)", len(s.peerings)))+" already on this cluster: enter shows them, to check and act on them or start a new one.", width) + "\n")
	}
	if why := d.canContinue(); why != "" {
		b.WriteString("\n" + styleWarn.Render(wrap(why, width)) + "\n")
	}
	if d.note != "" {
		b.WriteString(indent(wrap(d.note, max(width, 20)), "", styleSubtle.Render) + "\n")
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
