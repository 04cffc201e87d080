package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

type peersMsg struct {
	peers []Peer
	err   error
}

type peerStageMsg struct {
	id    string
	stage handshake.Stage
	err   error
}

type peerKeys struct {
	Continue, Up, Down, Back key.Binding
}

func (k peerKeys) ShortHelp() []key.Binding { return []key.Binding{k.Continue, k.Up, k.Down, k.Back} }
func (k peerKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Continue, k.Up, k.Down, k.Back}}
}

// StageReader tells where a handshake resumes (the peer screen, and the
// detect screen in automated mode).
type StageReader interface {
	// Stage tells how far the handshake with peer got on this cluster.
	Stage(ctx context.Context, c ClusterRef, role handshake.Role, peerID string) (handshake.Stage, error)
}

// PeerFinder is what the peer screen reads: the known peers, the ID the
// admin types, and where the handshake with it stands.
type PeerFinder interface {
	// Peers lists the clusters this one has handshake objects for, in role.
	Peers(ctx context.Context, c ClusterRef, role handshake.Role) ([]Peer, error)
	// CheckClusterID refuses what is not a cluster ID, with the words the
	// commands use for the same value (no network).
	CheckClusterID(id string) error
	StageReader
}

// peerScreen asks for the other cluster's ID (manual mode), offering the
// peers this cluster already has handshake objects for, and resumes from
// the state the cluster holds.
type peerScreen struct {
	s       *session
	finder  PeerFinder
	keys    peerKeys
	input   textinput.Model
	peers   []Peer
	loading bool
	cursor  int // -1 = typing a new ID
	err     string
	busy    bool
}

func newPeerScreen(s *session) *peerScreen {
	in := textinput.New()
	in.Prompt = "> "
	in.Placeholder = "cluster ID of the " + string(s.selfRole().Other())
	in.CharLimit = 63
	in.SetValue(s.peerID)
	steadyInput(&in)
	p := &peerScreen{s: s, finder: s.backend, input: in, loading: true, cursor: -1, keys: peerKeys{
		Continue: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "continue")),
		Up:       key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "known peers")),
		Down:     key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "known peers")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}}
	return p
}

func (p *peerScreen) Init() tea.Cmd { return tea.Batch(p.input.Focus(), p.loadPeers()) }

// loadPeers lists the clusters this one has handshake objects for.
func (p *peerScreen) loadPeers() tea.Cmd {
	s, finder := p.s, p.finder
	self, role := s.self(), s.selfRole()
	return func() tea.Msg {
		ctx, cancel := s.opContext()
		defer cancel()
		peers, err := finder.Peers(ctx, self, role)
		return peersMsg{peers: peers, err: err}
	}
}

// checkID refuses what is not a cluster ID, and this cluster's own ID.
func (p *peerScreen) checkID(id string) error {
	if id == "" {
		return fmt.Errorf("type the other cluster's ID (liqo-auth-tui info shows it)")
	}
	// The backend's verdict: the commands' --remote-cluster-id gets the same.
	if err := p.finder.CheckClusterID(id); err != nil {
		return err
	}
	if id == p.s.ownID() {
		return fmt.Errorf("%s is this cluster's own ID: give the %s's ID", id, p.s.selfRole().Other())
	}
	return nil
}

// stage reads how far the handshake with the cluster id got, to resume.
func (p *peerScreen) stage(id string) tea.Cmd {
	s := p.s
	p.err, p.busy = "", true
	self, role := s.self(), s.selfRole()
	if role == handshake.RoleConsumer && s.consumerRunsLiqo0x() {
		// A Liqo 0.x consumer has no v1 handshake to resume: it waits for
		// the provider's peer info (the nonce's receive screen takes it).
		return func() tea.Msg { return peerStageMsg{id: id, stage: handshake.StageAwaitNonce} }
	}
	finder := p.finder
	return func() tea.Msg {
		ctx, cancel := s.opContext()
		defer cancel()
		st, err := finder.Stage(ctx, self, role, id)
		return peerStageMsg{id: id, stage: st, err: err}
	}
}

func (p *peerScreen) Typing() bool      { return true }
func (p *peerScreen) Keys() help.KeyMap { return p.keys }

func (p *peerScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	s := p.s
	switch msg := msg.(type) {
	case peersMsg:
		p.loading = false
		p.peers = msg.peers
		if msg.err != nil {
			p.err = "could not list known peers: " + oneLine(msg.err.Error())
		}
		return p, nil
	case peerStageMsg:
		p.busy = false
		if msg.err != nil {
			return p, navigate(gotoErrorMsg{err: msg.err, retry: navigate(gotoPeerMsg{})})
		}
		s.peerID = msg.id
		return p, resume(s, msg.stage)
	case tea.KeyPressMsg:
		if p.busy {
			return p, nil
		}
		switch {
		case key.Matches(msg, p.keys.Back):
			return p, navigate(gotoDetectMsg{})
		case key.Matches(msg, p.keys.Up):
			if len(p.peers) > 0 {
				p.cursor = max(p.cursor-1, -1)
				p.pick()
			}
			return p, nil
		case key.Matches(msg, p.keys.Down):
			if len(p.peers) > 0 {
				p.cursor = min(p.cursor+1, len(p.peers)-1)
				p.pick()
			}
			return p, nil
		case key.Matches(msg, p.keys.Continue):
			id := strings.TrimSpace(p.input.Value())
			if err := p.checkID(id); err != nil {
				p.err = err.Error()
				return p, nil
			}
			return p, p.stage(id)
		}
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	return p, cmd
}

// lines asks the other cluster's ID, offering the known ones, and reads
// where the handshake with it stands.
func (p *peerScreen) lines(u *lineUI) (tea.Msg, error) {
	s := p.s
	other := s.selfRole().Other()
	u.println("")
	u.printf("Which %s?", other)
	if nav, err := u.await(p, p.loadPeers()); nav != nil || err != nil {
		return nav, err
	}
	if p.err != "" {
		u.println(iconFailed + " " + p.err)
	}
	for {
		id := ""
		if len(p.peers) > 0 {
			id = p.peers[0].ID
			opts := make([]huh.Option[string], 0, len(p.peers)+1)
			for _, peer := range p.peers {
				if peer.ID == s.peerID {
					id = peer.ID
				}
				opts = append(opts, huh.NewOption(peer.ID+" ("+peer.Stage.Describe()+")", peer.ID))
			}
			opts = append(opts, huh.NewOption("another "+string(other)+": type its cluster ID", ""))
			if err := u.ask(huh.NewSelect[string]().Title(fmt.Sprintf("This %s has handshake objects for these %ss:", s.selfRole(), other)).
				Options(opts...).Value(&id)); err != nil {
				return nil, err
			}
		}
		if id == "" {
			def := s.peerID
			title := fmt.Sprintf("Cluster ID of the %s (its admin sees it with `liqo-auth-tui info`)", other)
			if def != "" {
				title += " [" + def + "]"
			}
			id = def
			if err := u.ask(huh.NewInput().Title(title).Value(&id).Validate(func(v string) error {
				if v = strings.TrimSpace(v); v == "" && def != "" {
					return nil
				}
				return p.checkID(v)
			})); err != nil {
				return nil, err
			}
		}
		id = strings.TrimSpace(id)
		if err := p.checkID(id); err != nil {
			u.println(iconFailed + " " + err.Error())
			continue
		}
		u.println("Reading the handshake state…")
		if nav, err := u.await(p, p.stage(id)); nav != nil || err != nil {
			return nav, err
		}
	}
}

func (p *peerScreen) pick() {
	if p.cursor >= 0 {
		p.input.SetValue(p.peers[p.cursor].ID)
		p.input.CursorEnd()
	}
}

// resume goes to the next pending step for a stage read from the cluster.
func resume(s *session, st handshake.Stage) tea.Cmd {
	if st.Started() {
		s.banner = "Resuming: the cluster says " + st.Describe() + "."
	}
	switch st.Next(s.selfRole()) {
	case handshake.NextGenerateIdentity:
		return runOp(opGenerateIdentity(s))
	case handshake.NextCreateNonce:
		return runOp(opCreateNonce(s))
	case handshake.NextVerify:
		return runOp(opVerify(s, s.self(), s.peerID))
	case handshake.NextGenerateTenant:
		return runOp(opGenerateTenant(s, ""))
	}
	return navigate(gotoReceiveMsg{kind: handshake.KindNonce})
}

func (p *peerScreen) View(width, height int) string {
	s := p.s
	other := s.selfRole().Other()
	var b strings.Builder
	b.WriteString(styleHeader.Render("Which "+string(other)+"?") + "\n\n")
	b.WriteString(wrap(fmt.Sprintf("Type the cluster ID of the %s (its admin sees it with `liqo-auth-tui info`), or pick a cluster this %s already has handshake objects for.", other, s.selfRole()), width) + "\n\n")
	p.input.SetWidth(max(width-4, 10))
	b.WriteString(p.input.View() + "\n\n")
	switch {
	case p.loading:
		b.WriteString(styleSubtle.Render("looking for known peers…") + "\n")
	case len(p.peers) > 0:
		b.WriteString(styleSubtle.Render("Known "+string(other)+"s:") + "\n")
		for i, peer := range p.peers {
			cur := "  "
			if i == p.cursor {
				cur = styleKey.Render("> ")
			}
			b.WriteString(truncate(cur+peer.ID+styleSubtle.Render("  "+peer.Stage.Describe()), width) + "\n")
		}
	default:
		b.WriteString(styleSubtle.Render("No known "+string(other)+"s on this cluster: a new handshake.") + "\n")
	}
	if p.busy {
		b.WriteString("\n" + styleSubtle.Render("reading the handshake state…") + "\n")
	}
	if p.err != "" {
		b.WriteString("\n" + styleErr.Render(wrap(iconFailed+" "+p.err, width)) + "\n")
	}
	return b.String()
}
