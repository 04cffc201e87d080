package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// Requesting resources (§10.1) is an optional step after the handshake:
// the summary offers it (r) when this workstation reaches the consumer. A
// form asks the ResourceSlice's name, CPU, memory, pods and class; the run
// screen creates it and waits for the provider's answer; this screen then
// shows the answer.

type (
	// gotoSlicesMsg opens the request form, or with result the provider's
	// answer to a request. taken are the names of the consumer's slices
	// with the provider, which the form's default name avoids.
	gotoSlicesMsg struct {
		result *SliceInfo
		taken  []string
	}
	// sliceCheckedMsg is the backend's verdict on a request (nil: valid).
	sliceCheckedMsg struct {
		req SliceRequest
		err error
	}
	// sliceAnswererMsg says who answers the request on the provider.
	sliceAnswererMsg struct {
		answer handshake.SliceAnswer
		err    error
	}
)

// sliceField is one field of the request form.
type sliceField struct {
	id, label string
	// hint is the placeholder; none says what an empty value means.
	hint, none string
}

var sliceFields = []sliceField{
	{id: handshake.FieldSliceName, label: "Name", hint: "the ResourceSlice's name"},
	{id: handshake.FieldCPU, label: "CPU", hint: "e.g. 4 or 500m (empty: the provider decides)", none: "the provider decides"},
	{id: handshake.FieldMemory, label: "Memory", hint: "e.g. 8Gi (empty: the provider decides)", none: "the provider decides"},
	{id: handshake.FieldPods, label: "Pods", hint: "e.g. 110 (empty: the provider decides)", none: "the provider decides"},
	{id: handshake.FieldClass, label: "Class", hint: "default", none: "default"},
}

const defaultSliceClass = "default"

type slicesKeys struct {
	Submit, Next, Prev, Skip key.Binding
	Done, Again              key.Binding
}

func (k slicesKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Submit, k.Next, k.Skip, k.Done, k.Again}
}
func (k slicesKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Submit, k.Next, k.Prev, k.Skip, k.Done, k.Again}}
}

// SliceRequester is the slices screen's: a consumer asks the provider for
// resources with a ResourceSlice, after the handshake (§10.1).
type SliceRequester interface {
	// CheckSliceRequest validates a request as the API server would (no
	// network): the first bad field as a *handshake.FieldError.
	CheckSliceRequest(req SliceRequest) error
	// RequestResources creates (or updates) the ResourceSlice on the
	// consumer and waits for the provider's answer.
	RequestResources(ctx context.Context, consumer ClusterRef, req SliceRequest, sink handshake.Sink) (*SliceInfo, error)
	// SliceAnswerer tells, writing nothing, who answers the consumer's
	// ResourceSlices on providerID: with provider (automated mode), what
	// serves its side or this wizard in-process; else what the consumer's
	// credentials for the provider can see (whether Liqo runs there).
	SliceAnswerer(ctx context.Context, consumer ClusterRef, providerID string, provider *ClusterRef) (handshake.SliceAnswer, error)
}

// slicesScreen is the request form, or (result set) the provider's answer.
type slicesScreen struct {
	s          *session
	requester  SliceRequester
	keys       slicesKeys
	consumer   *ClusterRef
	providerID string
	inputs     []textinput.Model
	focus      int
	err        string
	busy       bool // the backend checks the request
	result     *SliceInfo
	// answer is who answers on the provider, once asked (answerErr: it
	// could not be told); until then nothing is known.
	answer       handshake.SliceAnswer
	answerErr    error
	answerLoaded bool
}

func newSlicesScreen(s *session, result *SliceInfo, taken []string) *slicesScreen {
	m := &slicesScreen{s: s, requester: s.backend, consumer: s.consumerRef(), providerID: s.providerID(), result: result, keys: slicesKeys{
		Submit: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "request")),
		Next:   key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab", "next field")),
		Prev:   key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab", "previous field")),
		Skip:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "skip")),
		Done:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "summary")),
		Again:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "request more resources")),
	}}
	form := result == nil
	for _, k := range []*key.Binding{&m.keys.Submit, &m.keys.Next, &m.keys.Prev, &m.keys.Skip} {
		k.SetEnabled(form)
	}
	m.keys.Done.SetEnabled(!form)
	m.keys.Again.SetEnabled(!form)
	if t := s.sliceTarget; t != nil {
		// Asked from the overview: its peering, and back to it.
		m.consumer, m.providerID = &t.consumer, t.providerID
		m.keys.Done.SetHelp("enter", "overview")
		m.keys.Skip.SetHelp("esc", "back to the overview")
	}
	if !form {
		return m
	}
	// The defaults: liqoctl peer names the slice after the provider, a
	// readable name where its ID is a UUID (a name no slice has yet: one
	// asks once), and Liqo itself handles the default class.
	defaults := map[string]string{handshake.FieldSliceName: freeName(handshake.DefaultSliceName(m.providerID, s.providerContext()), taken),
		handshake.FieldClass: defaultSliceClass}
	for _, f := range sliceFields {
		in := textinput.New()
		in.Prompt = "> "
		in.Placeholder = f.hint
		in.CharLimit = 253
		in.SetValue(defaults[f.id])
		steadyInput(&in)
		m.inputs = append(m.inputs, in)
	}
	return m
}

func (m *slicesScreen) Init() tea.Cmd {
	if m.result != nil {
		return nil
	}
	return tea.Batch(m.inputs[m.focus].Focus(), m.loadAnswerer())
}

// loadAnswerer asks who answers the request on the provider.
func (m *slicesScreen) loadAnswerer() tea.Cmd {
	if m.consumer == nil {
		return nil
	}
	s, requester, consumer, pid, provider := m.s, m.requester, *m.consumer, m.providerID, m.request().Provider
	return func() tea.Msg {
		ctx, cancel := s.opContext()
		defer cancel()
		a, err := requester.SliceAnswerer(ctx, consumer, pid, provider)
		return sliceAnswererMsg{answer: a, err: err}
	}
}

func (m *slicesScreen) Typing() bool      { return m.result == nil }
func (m *slicesScreen) Keys() help.KeyMap { return m.keys }

// actions: request or skip (the form); back to the summary or request
// more (the answer).
func (m *slicesScreen) actions() []action {
	summary := func() tea.Cmd {
		if m.s.sliceTarget != nil {
			return navigate(gotoOverviewMsg{})
		}
		return navigate(gotoSummaryMsg{})
	}
	return []action{
		{m.keys.Submit, m.submit},
		{m.keys.Skip, summary},
		{m.keys.Done, summary},
		{m.keys.Again, func() tea.Cmd { return navigate(gotoSlicesMsg{taken: []string{m.result.Name}}) }},
	}
}

// request is what the form holds: trimmed, the class defaulted.
func (m *slicesScreen) request() SliceRequest {
	v := map[string]string{}
	for i, f := range sliceFields {
		v[f.id] = strings.TrimSpace(m.inputs[i].Value())
	}
	req := SliceRequest{Name: v[handshake.FieldSliceName], ProviderID: m.providerID, Class: orDefault(v[handshake.FieldClass], defaultSliceClass),
		CPU: v[handshake.FieldCPU], Memory: v[handshake.FieldMemory], Pods: v[handshake.FieldPods]}
	switch {
	case m.s.sliceTarget != nil:
		req.Provider = m.s.sliceTarget.provider
	case m.s.mode == ModeAutomated:
		p, _ := m.s.provider()
		req.Provider = &p
	}
	return req
}

// providerContext is the provider's kubeconfig context, where this
// workstation reaches the provider ("" otherwise).
func (s *session) providerContext() string {
	if s.mode != ModeAutomated {
		return ""
	}
	ref, info := s.provider()
	if info != nil && info.Context != "" {
		return info.Context
	}
	return ref.Context
}

// freeName is base, or base-2, base-3... the first no slice in taken has.
func freeName(base string, taken []string) string {
	name := base
	for n := 2; slices.Contains(taken, name); n++ {
		name = fmt.Sprintf("%s-%d", base, n)
	}
	return name
}

// submit has the backend check the request (in a command: the backend's
// calls never run on the UI goroutine); a valid one runs.
func (m *slicesScreen) submit() tea.Cmd {
	if m.busy {
		return nil
	}
	req := m.request()
	switch {
	case m.consumer == nil:
		m.err = "this workstation does not reach the consumer: request resources where it does (`liqo-auth-tui create resourceslice`)"
		return nil
	case req.Name == "":
		return m.refuse(&handshake.FieldError{Field: handshake.FieldSliceName, Reason: "type a name for the ResourceSlice (liqoctl peer names it after the provider: " + m.providerID + ")"})
	}
	m.busy, m.err = true, ""
	check := m.requester.CheckSliceRequest
	return func() tea.Msg { return sliceCheckedMsg{req: req, err: check(req)} }
}

// refuse shows why the request cannot go, on the field at fault.
func (m *slicesScreen) refuse(err error) tea.Cmd {
	m.err = oneLine(err.Error())
	var fe *handshake.FieldError
	if !errors.As(err, &fe) {
		return nil
	}
	for i, f := range sliceFields {
		if f.id == fe.Field {
			return m.focusOn(i)
		}
	}
	return nil
}

func (m *slicesScreen) focusOn(i int) tea.Cmd {
	m.inputs[m.focus].Blur()
	m.focus = (i + len(m.inputs)) % len(m.inputs)
	return m.inputs[m.focus].Focus()
}

func (m *slicesScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	switch msg := msg.(type) {
	case sliceAnswererMsg:
		m.answer, m.answerErr, m.answerLoaded = msg.answer, msg.err, true
		return m, nil
	case sliceCheckedMsg:
		m.busy = false
		if msg.err != nil {
			return m, m.refuse(msg.err)
		}
		return m, m.send(msg.req)
	case tea.KeyPressMsg:
		if m.result == nil {
			switch {
			case m.busy:
				return m, nil
			case key.Matches(msg, m.keys.Next):
				return m, m.focusOn(m.focus + 1)
			case key.Matches(msg, m.keys.Prev):
				return m, m.focusOn(m.focus - 1)
			}
		}
		if cmd := pressed(msg, m.actions()); cmd != nil || m.result != nil || m.busy {
			return m, cmd
		}
	}
	if m.result != nil {
		return m, nil
	}
	before := m.inputs[m.focus].Value()
	var cmd tea.Cmd
	m.inputs[m.focus], cmd = m.inputs[m.focus].Update(msg)
	if m.inputs[m.focus].Value() != before {
		m.err = "" // the error was about what the admin just changed
	}
	return m, cmd
}

// send runs a valid request; first, when nothing known serves the
// provider, it hands its admin what to run there (the hand-off screen,
// whose enter sends it).
func (m *slicesScreen) send(req SliceRequest) tea.Cmd {
	run := runOp(opRequestResources(*m.consumer, req, m.requester))
	if !m.answer.Answerer.NeedsProviderAdmin() {
		return run
	}
	return navigate(gotoHandoffMsg{art: m.requestArtifact(req), then: run})
}

// sendRequestLine says what enter does on the request's hand-off.
func (s *session) sendRequestLine() string {
	wait := "then waits for the provider's answer"
	if s.opts.Timeout > 0 {
		wait += " (at most " + handshake.HumanDuration(s.opts.Timeout) + ", --timeout)"
	}
	return "Enter creates the ResourceSlice on the consumer and " + wait + ": send this first, so that the provider's admin can serve it meanwhile."
}

// requestArtifact is the word to the provider's admin about req: what it
// asks, and what answers it there.
func (m *slicesScreen) requestArtifact(req SliceRequest) *Artifact {
	h := m.answer.Handoff(req.ProviderID, req.Name)
	asked := map[string]string{}
	for k, v := range map[string]string{"cpu": req.CPU, "memory": req.Memory, "pods": req.Pods} {
		if v != "" {
			asked[k] = v
		}
	}
	head := fmt.Sprintf("# consumer %s asks provider %s for resources: ResourceSlice %s (class %s, %s)",
		orDefault(m.answer.ConsumerID, "?"), req.ProviderID, req.Name, orDefault(req.Class, defaultSliceClass),
		formatResources(asked, "the amounts left to the provider"))
	return &Artifact{Kind: handshake.KindSliceRequest, Data: []byte(head + "\n" + h.Text()), FromID: m.answer.ConsumerID, ForID: req.ProviderID}
}

// opRequestResources creates the ResourceSlice and waits for the
// provider's answer, which the screen then shows.
func opRequestResources(consumer ClusterRef, req SliceRequest, requester SliceRequester) operation {
	var answer *SliceInfo
	return operation{
		Title: fmt.Sprintf("Requesting resources from provider %s (ResourceSlice %s)", req.ProviderID, req.Name),
		Phases: []phase{{Title: "Create the ResourceSlice and wait for the provider's answer",
			Run: func(ctx context.Context, sink handshake.Sink) (any, error) {
				return requester.RequestResources(ctx, consumer, req, scoped(handshake.Local, consumer, sink))
			},
			Apply: func(_ *session, v any) { answer = v.(*SliceInfo) }}},
		Then: func(*session) tea.Cmd { return navigate(gotoSlicesMsg{result: answer}) },
	}
}

// lines asks the fields as line prompts and offers to request or skip
// (the form), or prints the answer and offers the summary or another
// request.
func (m *slicesScreen) lines(u *lineUI) (tea.Msg, error) {
	u.println("")
	if m.result != nil {
		u.println(plain(m.View(lineWidth, 1000)))
		u.println("")
		for {
			cmd, quit, err := u.offer("What next?", m.actions(), true)
			if quit != nil || err != nil {
				return quit, err
			}
			if nav, err := u.await(m, cmd); nav != nil || err != nil {
				return nav, err
			}
		}
	}
	u.println(plain(m.intro(lineWidth)))
	if nav, err := u.await(m, m.loadAnswerer()); nav != nil || err != nil {
		return nav, err
	}
	u.println(plain(wrap(m.who(), lineWidth)))
	for {
		if err := m.askLines(u); err != nil {
			return nil, err
		}
		cmd, _, err := u.offer("Request these resources?", m.actions(), false)
		if err != nil {
			return nil, err
		}
		nav, err := u.await(m, cmd)
		if nav != nil || err != nil {
			return nav, err
		}
		if m.err != "" {
			u.println(iconFailed + " " + m.err)
		}
	}
}

// askLines asks each field; an empty answer keeps the value shown in
// brackets, "-" empties an optional one.
func (m *slicesScreen) askLines(u *lineUI) error {
	values := make([]string, len(sliceFields))
	fields := make([]huh.Field, 0, len(sliceFields))
	for i, f := range sliceFields {
		values[i] = m.inputs[i].Value()
		shown := values[i]
		switch {
		case shown == "" && f.none != "":
			shown = "empty = " + f.none
		case f.none != "" && f.id != handshake.FieldClass:
			shown += "; - = " + f.none
		}
		title := f.label
		if f.id != handshake.FieldSliceName && f.id != handshake.FieldClass {
			title += ", " + strings.TrimSuffix(f.hint, " (empty: "+f.none+")")
		}
		fields = append(fields, huh.NewInput().Title(title+" ["+shown+"]").Value(&values[i]))
	}
	if err := u.ask(fields...); err != nil {
		return err
	}
	for i, v := range values {
		if strings.TrimSpace(v) == "-" {
			v = ""
		}
		m.inputs[i].SetValue(strings.TrimSpace(v))
	}
	return nil
}

// The provider's answers in a ResourceSlice's conditions.
const (
	sliceAccepted = "Accepted"
	sliceDenied   = "Denied"
)
