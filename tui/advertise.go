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

// Advertisement is what the consumer will be told to reach the provider at
// (the Identity's authParams.apiServer and ca, §6.4).
type Advertisement = handshake.Advertisement

// AdvertiseEdit changes what the provider advertises to one consumer.
type AdvertiseEdit struct {
	APIServer string // host[:port] or https URL; "" = the provider's default
	CAFile    string // CA PEM file; "" = the provider's default
	TrustedCA bool   // advertise no CA (publicly trusted), unless CAFile
}

// trustedWord typed as the CA means "publicly trusted, no CA".
const trustedWord = "trusted"

// advertiseState is the session's memory of the advertise screen.
type advertiseState struct {
	// confirmedFor is the provider and consumer the admin confirmed
	// (advertiseKey): another pair, chosen after going back, asks again.
	confirmedFor string
	adv          *Advertisement
}

func advertiseKey(provider ClusterRef, consumerID string) string {
	return provider.Kubeconfig + "\x00" + provider.Context + "\x00" + provider.Namespace + "\x00" + consumerID
}

// Messages of the advertise screen.
type advertisedMsg struct {
	adv *Advertisement
	err error
}

// advertiseTarget tells whether op hands a consumer an Identity made by
// the provider (so the admin should see what it advertises first), and
// which provider and consumer.
func (s *session) advertiseTarget(op operation) (provider ClusterRef, consumerID string, ok bool) {
	switch {
	case !op.GivesIdentity:
		return ClusterRef{}, "", false
	case s.mode == ModeAutomated:
		p, _ := s.provider()
		_, cinfo := s.consumer()
		return p, idOf(cinfo), true
	case s.selfRole() == handshake.RoleProvider:
		return s.self(), s.peerID, true
	}
	return ClusterRef{}, "", false
}

// advertiseFirst is the advertise screen when msg starts an operation
// whose Identity the admin has not yet seen the address of; nil otherwise.
func (s *session) advertiseFirst(msg gotoRunMsg) screen {
	provider, consumerID, ok := s.advertiseTarget(msg.op)
	if !ok || s.advertise.confirmedFor == advertiseKey(provider, consumerID) {
		return nil
	}
	return newAdvertiseScreen(s, provider, consumerID, msg)
}

type advertiseKeys struct {
	Continue, Edit, Next, Save, Cancel key.Binding
}

func (k advertiseKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Continue, k.Edit, k.Next, k.Save, k.Cancel}
}
func (k advertiseKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// Advertiser is the advertise screen's: what a provider tells a consumer
// to reach it at, before the provider's Identity is generated.
type Advertiser interface {
	// Advertised tells the API server and CA the consumer consumerID will
	// be told to reach provider at; nil: nothing the admin could act on.
	Advertised(ctx context.Context, provider ClusterRef, consumerID string) (*Advertisement, error)
	// SetAdvertised changes them for consumerID: kept for the runs that
	// follow and, when the provider already accepted its Tenant, applied to
	// it at once (so renewals keep them). Refused when real Liqo serves the
	// provider.
	SetAdvertised(ctx context.Context, provider ClusterRef, consumerID string, edit AdvertiseEdit, sink handshake.Sink) (*Advertisement, error)
}

// advertiseScreen shows, before the provider's Identity is generated, the
// address and CA the consumer will get, and lets the admin change them.
type advertiseScreen struct {
	s          *session
	advertiser Advertiser
	provider   ClusterRef
	consumerID string
	next       gotoRunMsg
	keys       advertiseKeys

	loading, busy, editing bool
	adv                    *Advertisement
	err                    string
	address, ca            textinput.Model
}

func newAdvertiseScreen(s *session, provider ClusterRef, consumerID string, next gotoRunMsg) *advertiseScreen {
	a := &advertiseScreen{s: s, advertiser: s.backend, provider: provider, consumerID: consumerID, next: next, loading: true,
		address: newAdvertiseInput("https://host:port (empty = the provider's default)"),
		ca:      newAdvertiseInput("CA PEM file, '" + trustedWord + "' (publicly trusted), empty = default"),
		keys: advertiseKeys{
			Continue: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "continue")),
			Edit:     key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit address and CA")),
			Next:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next field")),
			Save:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply")),
			Cancel:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel the edit")),
		}}
	a.setKeys()
	return a
}

func newAdvertiseInput(placeholder string) textinput.Model {
	in := textinput.New()
	in.Prompt = "> "
	in.Placeholder = placeholder
	steadyInput(&in)
	return in
}

// setKeys enables the keys of the current mode.
func (a *advertiseScreen) setKeys() {
	idle := !a.loading && !a.busy
	a.keys.Continue.SetEnabled(idle && !a.editing)
	a.keys.Edit.SetEnabled(idle && !a.editing && (a.adv == nil || !a.adv.Fixed))
	a.keys.Next.SetEnabled(idle && a.editing)
	a.keys.Save.SetEnabled(idle && a.editing)
	a.keys.Cancel.SetEnabled(idle && a.editing)
}

func (a *advertiseScreen) Init() tea.Cmd     { return a.load() }
func (a *advertiseScreen) Typing() bool      { return a.editing }
func (a *advertiseScreen) Keys() help.KeyMap { return a.keys }

func (a *advertiseScreen) load() tea.Cmd {
	s, advertiser, provider, consumerID := a.s, a.advertiser, a.provider, a.consumerID
	return func() tea.Msg {
		ctx, cancel := s.opContext()
		defer cancel()
		adv, err := advertiser.Advertised(ctx, provider, consumerID)
		return advertisedMsg{adv: adv, err: err}
	}
}

// save asks the backend to advertise what the fields say.
func (a *advertiseScreen) save() tea.Cmd {
	edit := a.edit()
	a.busy, a.err = true, ""
	a.s.wrote = true
	a.setKeys()
	s, advertiser, provider, consumerID := a.s, a.advertiser, a.provider, a.consumerID
	return func() tea.Msg {
		ctx, cancel := s.opContext()
		defer cancel()
		adv, err := advertiser.SetAdvertised(ctx, provider, consumerID, edit, handshake.Discard)
		return advertisedMsg{adv: adv, err: err}
	}
}

// edit reads the fields.
func (a *advertiseScreen) edit() AdvertiseEdit {
	e := AdvertiseEdit{APIServer: strings.TrimSpace(a.address.Value())}
	switch ca := strings.TrimSpace(a.ca.Value()); {
	case strings.EqualFold(ca, trustedWord):
		e.TrustedCA = true
	default:
		e.CAFile = ca
	}
	return e
}

// proceed leaves for the operation the screen was shown before.
func (a *advertiseScreen) proceed() tea.Cmd {
	a.s.advertise.confirmedFor = advertiseKey(a.provider, a.consumerID)
	a.s.advertise.adv = a.adv
	return navigate(a.next)
}

func (a *advertiseScreen) startEdit() tea.Cmd {
	a.editing, a.err = true, ""
	a.address.SetValue("")
	a.ca.SetValue("")
	if a.adv != nil && a.adv.Source == handshake.AdvertiseOverride {
		a.address.SetValue(a.adv.APIServer)
	}
	a.ca.Blur()
	a.setKeys()
	return a.address.Focus()
}

func (a *advertiseScreen) actions() []action {
	return []action{
		{a.keys.Continue, a.proceed},
		{a.keys.Edit, a.startEdit},
	}
}

func (a *advertiseScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	switch msg := msg.(type) {
	case advertisedMsg:
		wasBusy := a.busy
		a.loading, a.busy = false, false
		switch {
		case msg.err != nil && !wasBusy:
			a.err = "Cannot tell what the consumer will get: " + oneLine(msg.err.Error())
		case msg.err != nil:
			a.err = oneLine(msg.err.Error())
		case msg.adv == nil && !wasBusy:
			// The backend has nothing the admin could act on.
			return a, a.proceed()
		default:
			a.adv, a.editing = msg.adv, false
		}
		a.setKeys()
		return a, nil
	case tea.KeyPressMsg:
		if !a.editing {
			return a, pressed(msg, a.actions())
		}
		switch {
		case key.Matches(msg, a.keys.Cancel):
			a.editing, a.err = false, ""
			a.setKeys()
			return a, nil
		case key.Matches(msg, a.keys.Next):
			if a.address.Focused() {
				a.address.Blur()
				return a, a.ca.Focus()
			}
			a.ca.Blur()
			return a, a.address.Focus()
		case key.Matches(msg, a.keys.Save):
			return a, a.save()
		}
		var cmd tea.Cmd
		if a.address.Focused() {
			a.address, cmd = a.address.Update(msg)
		} else {
			a.ca, cmd = a.ca.Update(msg)
		}
		return a, cmd
	}
	return a, nil
}

// summary is the one line that says where the consumer will connect.
func (a *advertiseScreen) summary() string {
	adv := a.adv
	ca := "CA " + adv.CAFingerprint
	if adv.TrustedCA {
		ca = "publicly trusted CA"
	}
	return fmt.Sprintf("The consumer will reach this provider at %s (%s)", adv.APIServer, ca)
}

// detail says where the address comes from and what serves the provider.
func (a *advertiseScreen) detail() string {
	adv := a.adv
	line := "Source: " + adv.Source.Text()
	if adv.Engine != "" {
		line += "; served by " + string(adv.Engine)
	}
	return line
}

func (a *advertiseScreen) View(width, height int) string {
	inner := max(width-4, 20)
	var b strings.Builder
	b.WriteString(styleBold.Render("What the consumer gets") + "\n\n")
	switch {
	case a.loading:
		b.WriteString(styleSubtle.Render("Reading what provider "+a.provider.Describe()+" advertises…") + "\n")
	case a.adv != nil:
		b.WriteString(wrap(a.summary(), inner) + "\n")
		b.WriteString(styleSubtle.Render(wrap(a.detail(), inner)) + "\n")
		if a.adv.Fixed {
			b.WriteString("\n" + wrap(styleWarn.Render(iconWarn+" ")+a.adv.FixedHint, inner) + "\n")
		}
	}
	if a.editing {
		// Without a width, bubbles' textinput shows one letter of the
		// placeholder.
		a.address.SetWidth(max(inner-2, 10))
		a.ca.SetWidth(max(inner-2, 10))
		b.WriteString("\nAPI server address\n" + a.address.View() + "\n")
		b.WriteString("CA\n" + a.ca.View() + "\n")
	} else if a.adv != nil && !a.adv.Fixed {
		b.WriteString("\n" + styleSubtle.Render(wrap("Consumers must reach this address. e changes it for consumer "+a.consumerID+
			": set on its Tenant, it also holds for certificate renewals.", inner)) + "\n")
	}
	if a.busy {
		b.WriteString("\n" + styleSubtle.Render("Applying…") + "\n")
	}
	if a.err != "" {
		b.WriteString("\n" + wrap(styleErr.Render(iconFailed+" ")+a.err, inner) + "\n")
	}
	return b.String()
}

// lines is the screen in accessible mode: the summary, then continue or
// edit (two questions) until the admin continues.
func (a *advertiseScreen) lines(u *lineUI) (tea.Msg, error) {
	if nav, err := u.await(a, a.load()); nav != nil || err != nil {
		return nav, err
	}
	for {
		if a.adv != nil {
			u.println(a.summary())
			u.println(a.detail())
			if a.adv.Fixed {
				u.logLine("WARN", handshake.NoScope, a.adv.FixedHint)
			}
		}
		if a.err != "" {
			u.logLine("ERRO", handshake.NoScope, a.err)
		}
		cmd, quit, err := u.offer("What next?", a.actions(), true)
		if quit != nil || err != nil {
			return quit, err
		}
		if !a.editing {
			if cmd == nil {
				continue
			}
			return u.await(a, cmd) // continue
		}
		var address, ca string
		if err := u.ask(
			huh.NewInput().Title("API server address the consumer should use (host:port or https URL; empty = the provider's default)").Value(&address),
			huh.NewInput().Title("CA file (PEM; '"+trustedWord+"' for a publicly trusted certificate; empty = the provider's default)").Value(&ca),
		); err != nil {
			return nil, err
		}
		a.address.SetValue(address)
		a.ca.SetValue(ca)
		if nav, err := u.await(a, a.save()); nav != nil || err != nil {
			return nav, err
		}
		a.editing = false
		a.setKeys()
	}
}
