package tui

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
)

// contextsMsg carries the contexts found in the kubeconfigs.
type contextsMsg struct {
	local, remote         []string
	localCur, remoteCur   string
	localErr, remoteErr   error
	remoteFromLocalConfig bool
}

// editStartMsg goes back to the start screen to change the kubeconfigs.
type editStartMsg struct{}

type startPhase int

const (
	phasePaths startPhase = iota
	phaseLoading
	phaseContexts
)

type startKeys struct {
	Next, Back key.Binding
}

func (k startKeys) ShortHelp() []key.Binding  { return []key.Binding{k.Next, k.Back} }
func (k startKeys) FullHelp() [][]key.Binding { return [][]key.Binding{{k.Next, k.Back}} }

// ContextLister is what the start screen reads: the contexts of a
// kubeconfig.
type ContextLister interface {
	// Contexts lists the contexts of a kubeconfig ("" = KUBECONFIG or
	// ~/.kube/config) and its current context.
	Contexts(ctx context.Context, kubeconfig string) (contexts []string, current string, err error)
}

// startScreen collects the kubeconfigs and contexts not given as flags.
type startScreen struct {
	s        *session
	contexts ContextLister
	keys     startKeys
	phase    startPhase
	form     *huh.Form
	width    int
	err      string

	localPath, remotePath string
	localCtx, remoteCtx   string
	forceAsk              bool
}

// noRemote is the remote-context choice for "only the local cluster".
const noRemote = "\x00none"

func newStartScreen(s *session) *startScreen {
	st := &startScreen{s: s, contexts: s.backend, width: 80,
		localPath: s.local.Kubeconfig, remotePath: s.remote.Kubeconfig,
		localCtx: s.local.Context, remoteCtx: s.remote.Context,
		keys: startKeys{
			Next: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "next")),
			Back: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous field")),
		}}
	return st
}

func (st *startScreen) anyGiven() bool {
	return st.s.local.Given() || st.s.remote.Given()
}

func (st *startScreen) Init() tea.Cmd {
	if st.anyGiven() && !st.forceAsk {
		return st.loadContexts()
	}
	st.phase = phasePaths
	st.form = pathsForm(&st.localPath, &st.remotePath, st.s.env, false)
	st.form.WithWidth(st.width)
	return st.form.Init()
}

// pathsForm asks the kubeconfigs. Line prompts (accessible) show neither
// placeholders nor descriptions: the titles say what an empty answer means.
func pathsForm(localPath, remotePath *string, env map[string]string, accessible bool) *huh.Form {
	def := "~/.kube/config"
	if env["KUBECONFIG"] != "" {
		def = env["KUBECONFIG"]
	}
	localTitle, remoteTitle := "Kubeconfig of your cluster (local)", "Kubeconfig of the other cluster (remote)"
	if accessible {
		localTitle += " [" + orDefault(*localPath, "empty = "+def) + "]"
		remoteTitle += " [" + orDefault(*remotePath, "empty = a context of the same kubeconfig, or none") + "]"
	}
	return huh.NewForm(huh.NewGroup(
		huh.NewNote().Title("Welcome").
			Description("liqo-auth-tui authenticates a Liqo consumer with a provider.\nGive the kubeconfig of the cluster you manage; add the other cluster's\nif this workstation reaches it too (automated mode), or leave it empty\nand exchange artifacts with the other admin (manual mode)."),
		huh.NewInput().Title(localTitle).Placeholder(def+" (empty = default)").Value(localPath),
		huh.NewInput().Title(remoteTitle).
			Description("empty = a context of the same kubeconfig, or none").Placeholder("optional").Value(remotePath),
	)).WithShowHelp(false)
}

// askRemote tells whether to offer a remote context: when no cluster flag
// was given (or the admin edits them), or a remote kubeconfig came without
// its context. Flags like --context/--role alone mean "just this cluster".
func (st *startScreen) askRemote() bool {
	if st.remoteCtx != "" {
		return false
	}
	return !st.anyGiven() || st.forceAsk || strings.TrimSpace(st.remotePath) != ""
}

func (st *startScreen) loadContexts() tea.Cmd {
	st.phase = phaseLoading
	s, contexts := st.s, st.contexts
	local, remote := strings.TrimSpace(st.localPath), strings.TrimSpace(st.remotePath)
	return func() tea.Msg {
		ctx, cancel := s.opContext()
		defer cancel()
		var m contextsMsg
		m.local, m.localCur, m.localErr = contexts.Contexts(ctx, local)
		if remote != "" {
			m.remote, m.remoteCur, m.remoteErr = contexts.Contexts(ctx, remote)
		} else {
			m.remote, m.remoteFromLocalConfig = m.local, true
		}
		return m
	}
}

// contextsForm asks what flags did not say; nil when nothing is left to ask.
func contextsForm(m contextsMsg, localCtx, remoteCtx *string, askRemote bool) *huh.Form {
	var fields []huh.Field
	if *localCtx == "" && len(m.local) > 1 {
		*localCtx = m.localCur
		opts := make([]huh.Option[string], 0, len(m.local))
		for _, c := range m.local {
			label := c
			if c == m.localCur {
				label += " (current)"
			}
			opts = append(opts, huh.NewOption(label, c))
		}
		fields = append(fields, huh.NewSelect[string]().Title("Context of your cluster (local)").Options(opts...).Value(localCtx))
	}
	if askRemote && *remoteCtx == "" {
		switch {
		case !m.remoteFromLocalConfig && len(m.remote) == 1:
			*remoteCtx = m.remote[0]
		case len(m.remote) > 1 || !m.remoteFromLocalConfig && len(m.remote) > 0:
			*remoteCtx = noRemote
			opts := []huh.Option[string]{huh.NewOption("none: I cannot reach the other cluster (manual mode)", noRemote)}
			for _, c := range m.remote {
				opts = append(opts, huh.NewOption(c, c))
			}
			fields = append(fields, huh.NewSelect[string]().Title("Context of the other cluster (remote)").
				Description("with both clusters the wizard runs the whole handshake").Options(opts...).Value(remoteCtx))
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return huh.NewForm(huh.NewGroup(fields...)).WithShowHelp(false)
}

func (st *startScreen) done() tea.Cmd {
	s := st.s
	local := ClusterRef{Kubeconfig: strings.TrimSpace(st.localPath), Context: st.localCtx, Namespace: s.local.Namespace}
	remote := ClusterRef{Kubeconfig: strings.TrimSpace(st.remotePath), Context: st.remoteCtx, Namespace: s.remote.Namespace}
	if st.remoteCtx == noRemote {
		remote.Context = ""
		remote.Kubeconfig = ""
	}
	if remote.Kubeconfig == "" && remote.Context == "" {
		remote = ClusterRef{Namespace: s.remote.Namespace}
	}
	return navigate(startDoneMsg{local: local, remote: remote})
}

// lines asks the kubeconfigs and contexts the flags did not give; a
// kubeconfig that cannot be read is asked again.
func (st *startScreen) lines(u *lineUI) (tea.Msg, error) {
	for {
		if !st.anyGiven() || st.forceAsk {
			if err := u.form(pathsForm(&st.localPath, &st.remotePath, st.s.env, true)); err != nil {
				return nil, err
			}
		}
		u.println("Reading the kubeconfigs…")
		m := st.loadContexts()().(contextsMsg)
		if m.localErr != nil || m.remoteErr != nil {
			err := m.localErr
			if err != nil {
				st.localPath = ""
			} else {
				err, st.remotePath = m.remoteErr, ""
			}
			u.println(iconFailed + " " + oneLine(err.Error()))
			st.forceAsk, st.localCtx, st.remoteCtx = true, "", ""
			continue
		}
		if f := contextsForm(m, &st.localCtx, &st.remoteCtx, st.askRemote()); f != nil {
			if err := u.form(f); err != nil {
				return nil, err
			}
		}
		return u.await(st, st.done())
	}
}

func (st *startScreen) Typing() bool      { return st.form != nil }
func (st *startScreen) Keys() help.KeyMap { return st.keys }

func (st *startScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		st.width = msg.Width
		if st.form != nil {
			st.form.WithWidth(msg.Width)
		}
	case contextsMsg:
		if msg.localErr != nil {
			st.err = oneLine(msg.localErr.Error())
			st.forceAsk = true
			return st, st.Init()
		}
		if msg.remoteErr != nil {
			st.err = oneLine(msg.remoteErr.Error())
			st.forceAsk = true
			return st, st.Init()
		}
		st.form = contextsForm(msg, &st.localCtx, &st.remoteCtx, st.askRemote())
		if st.form == nil {
			return st, st.done()
		}
		st.phase = phaseContexts
		st.form.WithWidth(st.width)
		return st, st.form.Init()
	}
	if st.form == nil {
		return st, nil
	}
	fm, cmd := st.form.Update(msg)
	if f, ok := fm.(*huh.Form); ok {
		st.form = f
	}
	switch st.form.State {
	case huh.StateCompleted:
		st.form = nil
		if st.phase == phasePaths {
			st.err = ""
			return st, st.loadContexts()
		}
		return st, st.done()
	case huh.StateAborted:
		return st, tea.Quit
	}
	return st, cmd
}

func (st *startScreen) View(width, height int) string {
	var b strings.Builder
	b.WriteString(styleHeader.Render("Which clusters?") + "\n\n")
	if st.err != "" {
		b.WriteString(styleErr.Render(wrap(iconFailed+" "+st.err, width)) + "\n\n")
	}
	switch {
	case st.form != nil:
		b.WriteString(st.form.View())
	case st.phase == phaseLoading:
		b.WriteString(styleSubtle.Render("reading the kubeconfigs…"))
	}
	return b.String()
}
