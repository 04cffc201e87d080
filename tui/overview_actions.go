package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// The overview's actions on the selected peering: authenticate and fix
// (overview_repair.go), verify, diagnose, cordon / uncordon / drain /
// activate, request (the form of slices.go) or delete a ResourceSlice,
// unauthenticate. Each runs as a tea.Cmd through the backend; what it did
// (or doctor's checks) shows under the list. What liqoctl confirms (cordon,
// drain) and what deletes is asked first. The rows change by themselves
// afterwards: the watch sees what the action wrote.

type actMode int

const (
	actList actMode = iota
	actMenu
	actPickSlice
	actConfirm
)

// overviewAction is where the action panel stands.
type overviewAction struct {
	mode actMode
	// question is asked in actConfirm, details under it; yes runs then.
	question string
	details  []string
	then     func() tea.Cmd
	// slice is the cursor among the row's slices (actPickSlice).
	slice int
	// busy says what runs (no key until it is done); result is the last
	// action's outcome.
	busy   string
	result *actionResult
}

// actionResult is what an action did: its lines (the steps' outcomes),
// doctor's checks (of the peering with diagnosed), or why it failed.
type actionResult struct {
	title     string
	lines     []string
	checks    []DoctorCheck
	diagnosed string
	err       error
}

// actionDoneMsg ends an action of the overview of generation gen.
type actionDoneMsg struct {
	gen    int
	result actionResult
}

// peeringTarget is a row with the clusters this workstation reaches for it
// (nil: not reached) and the IDs of both sides.
type peeringTarget struct {
	row                    OverviewRow
	consumer, provider     *ClusterRef
	consumerID, providerID string
}

func (o *overviewScreen) target() (peeringTarget, bool) {
	r, ok := o.selected()
	if !ok {
		return peeringTarget{}, false
	}
	t := peeringTarget{row: r}
	var remote *ClusterRef
	if o.other != nil && o.otherID == r.RemoteID {
		remote = o.other
	}
	switch r.Role {
	case handshake.RoleConsumer:
		t.consumer, t.provider, t.consumerID, t.providerID = o.listed, remote, o.listedID, r.RemoteID
	case handshake.RoleProvider:
		t.consumer, t.provider, t.consumerID, t.providerID = remote, o.listed, r.RemoteID, o.listedID
	}
	return t, true
}

// menuKeys enables the menu's keys that apply to the selected peering.
func (o *overviewScreen) menuKeys(k *overviewKeys) {
	a := &o.act
	t, ok := o.target()
	menu := a.mode == actMenu && a.busy == "" && ok
	can := t.row.Actions()
	tenant := menu && t.provider != nil && can.TenantMoves
	cond := t.row.Condition()
	k.Authenticate.SetEnabled(menu && can.Authenticate && t.consumer != nil && t.provider != nil)
	k.Verify.SetEnabled(menu && t.consumer != nil)
	k.Diagnose.SetEnabled(menu)
	_, repairable := o.repair()
	k.Fix.SetEnabled(repairable && a.busy == "" && (a.mode == actMenu || a.mode == actList && a.result != nil))
	k.Cordon.SetEnabled(tenant && cond == "Active")
	k.Uncordon.SetEnabled(tenant && cond == "Cordoned")
	k.Drain.SetEnabled(tenant && (cond == "Active" || cond == "Cordoned"))
	k.Activate.SetEnabled(tenant && cond == "Drained")
	k.RequestSlice.SetEnabled(menu && t.consumer != nil && can.ResourceSlices && t.row.Stage == handshake.StageAuthenticated)
	k.DeleteSlice.SetEnabled(menu && t.consumer != nil && can.ResourceSlices && len(t.row.Slices) > 0)
	k.Unauthenticate.SetEnabled(menu && t.row.Role != "" && (t.consumer != nil || t.provider != nil))
	k.Back.SetEnabled(a.busy == "" && a.mode != actConfirm && (a.mode != actList || a.result != nil))
	k.Yes.SetEnabled(a.busy == "" && a.mode == actConfirm)
	k.No.SetEnabled(a.busy == "" && a.mode == actConfirm)
	k.Pick.SetEnabled(a.busy == "" && a.mode == actPickSlice)
	if a.busy == "" && a.mode == actPickSlice && len(t.row.Slices) > 1 {
		k.Up.SetEnabled(true)
		k.Down.SetEnabled(true)
	}
}

// menuActions are the menu's, the slice picker's and the confirmation's.
func (o *overviewScreen) menuActions(k overviewKeys) []action {
	return []action{
		{k.Yes, func() tea.Cmd { return o.act.then() }},
		{k.No, func() tea.Cmd { o.act = overviewAction{mode: actMenu}; return nil }},
		{k.Pick, func() tea.Cmd { t, _ := o.target(); return o.confirmDeleteSlice(t, t.row.Slices[o.act.slice].Name) }},
		{k.Authenticate, o.authenticate},
		{k.Verify, o.verify},
		{k.Diagnose, o.diagnose},
		{k.Fix, o.fix},
		{k.Cordon, o.moveTenant(MoveCordon)},
		{k.Uncordon, o.moveTenant(MoveUncordon)},
		{k.Drain, o.moveTenant(MoveDrain)},
		{k.Activate, o.moveTenant(MoveActivate)},
		{k.RequestSlice, o.requestSlice},
		{k.DeleteSlice, o.deleteSlice},
		{k.Unauthenticate, o.unauthenticate},
		{k.Back, func() tea.Cmd { o.act = overviewAction{}; return nil }},
	}
}

// ask asks question first (details under it); yes runs then.
func (o *overviewScreen) ask(question string, then func() tea.Cmd, details ...string) tea.Cmd {
	o.act = overviewAction{mode: actConfirm, question: question, details: details, then: then}
	return nil
}

// start runs f in a command, busy saying what runs meanwhile; the steps'
// outcomes (the sink's) come first in the result.
func (o *overviewScreen) start(busy, title string, f func(ctx context.Context, sink handshake.Sink) actionResult) tea.Cmd {
	o.act = overviewAction{busy: busy}
	s, gen := o.s, o.gen
	return func() tea.Msg {
		ctx, cancel := s.opContext()
		defer cancel()
		var mu sync.Mutex
		var lines []string
		sink := func(ev handshake.Event) {
			switch ev.Kind {
			case handshake.StepDone, handshake.StepFailed, handshake.Note:
				mu.Lock()
				lines = append(lines, ev.Message)
				mu.Unlock()
			}
		}
		res := f(ctx, sink)
		res.title = title
		mu.Lock()
		res.lines = appendNew(lines, res.lines...)
		mu.Unlock()
		return actionDoneMsg{gen: gen, result: res}
	}
}

// appendNew appends the lines lines does not hold yet (what a flow told
// its sink and returns too).
func appendNew(lines []string, more ...string) []string {
	for _, l := range more {
		if !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	return lines
}

func (o *overviewScreen) done(msg actionDoneMsg) tea.Cmd {
	if msg.gen == o.gen {
		o.act = overviewAction{result: &msg.result}
		o.diagnosed(msg.result)
	}
	return nil
}

func (o *overviewScreen) verify() tea.Cmd {
	t, _ := o.target()
	acts := o.acts
	return o.start("verifying consumer "+t.consumerID+"'s credentials on provider "+t.providerID+"…",
		"verify: consumer "+t.consumerID+" on provider "+t.providerID,
		func(ctx context.Context, _ handshake.Sink) actionResult {
			// What Verify found says more than its step's line.
			v, err := acts.Verify(ctx, *t.consumer, t.providerID, func(handshake.Event) {})
			if err != nil {
				return actionResult{err: err}
			}
			return actionResult{lines: verificationLines(v)}
		})
}

func verificationLines(v *Verification) []string {
	if v.Unreached != "" {
		return []string{"not verified from this workstation: " + v.Unreached}
	}
	lines := []string{fmt.Sprintf("%s authenticated as %s (%s) at %s", iconDone, v.User, strings.Join(v.Groups, ", "), v.Server)}
	if len(v.Allowed) > 0 {
		lines = append(lines, "allowed: "+strings.Join(v.Allowed, ", "))
	}
	if len(v.Denied) > 0 {
		lines = append(lines, "denied: "+strings.Join(v.Denied, ", "))
	}
	if !v.CertificateNotAfter.IsZero() {
		lines = append(lines, "certificate expires "+v.CertificateNotAfter.UTC().Format("2006-01-02 15:04 MST")+", last renewal "+renewalText(v))
	}
	return lines
}

func renewalText(v *Verification) string {
	if v.LastRenewal.IsZero() {
		return "never"
	}
	return v.LastRenewal.UTC().Format("2006-01-02 15:04 MST")
}

func (o *overviewScreen) diagnose() tea.Cmd {
	t, _ := o.target()
	doctor, listed, other := o.doctor, *o.listed, o.other
	return o.start("running doctor's checks on the peering with "+t.row.RemoteID+"…", "diagnosis of the peering with "+t.row.RemoteID,
		func(ctx context.Context, _ handshake.Sink) actionResult {
			checks, err := doctor.Diagnose(ctx, listed, other, t.row.RemoteID)
			return actionResult{checks: checks, diagnosed: t.row.RemoteID, err: err}
		})
}

// moveTenant changes the Tenant's condition, after liqoctl's question
// where liqoctl asks one.
func (o *overviewScreen) moveTenant(move TenantMove) func() tea.Cmd {
	return func() tea.Cmd {
		t, _ := o.target()
		acts := o.acts
		run := func() tea.Cmd {
			return o.start(string(move)+" Tenant "+t.consumerID+"…", string(move)+" Tenant "+t.consumerID,
				func(ctx context.Context, sink handshake.Sink) actionResult {
					return actionResult{err: acts.MoveTenant(ctx, *t.provider, t.consumerID, move, sink)}
				})
		}
		if q := acts.MoveQuestion(move, t.consumerID); q != "" {
			return o.ask(q, run)
		}
		return run()
	}
}

// requestSlice opens the request form (slices.go) for the peering; it
// comes back to the overview.
func (o *overviewScreen) requestSlice() tea.Cmd {
	t, _ := o.target()
	o.s.sliceTarget = &sliceTarget{consumer: *t.consumer, providerID: t.providerID, provider: t.provider}
	return navigate(gotoSlicesMsg{taken: t.row.SliceNames()})
}

// deleteSlice asks which slice when the row has several.
func (o *overviewScreen) deleteSlice() tea.Cmd {
	t, _ := o.target()
	if len(t.row.Slices) == 1 {
		return o.confirmDeleteSlice(t, t.row.Slices[0].Name)
	}
	o.act = overviewAction{mode: actPickSlice}
	return nil
}

func (o *overviewScreen) confirmDeleteSlice(t peeringTarget, name string) tea.Cmd {
	acts := o.acts
	return o.ask(fmt.Sprintf("Delete ResourceSlice %s? The resources provider %s granted with it go, with its Identity and kubeconfig Secret.", name, t.providerID),
		func() tea.Cmd {
			return o.start("deleting ResourceSlice "+name+"…", "delete ResourceSlice "+name,
				func(ctx context.Context, _ handshake.Sink) actionResult {
					if err := acts.DeleteResourceSlice(ctx, *t.consumer, name, t.providerID); err != nil {
						return actionResult{err: err}
					}
					return actionResult{lines: []string{"ResourceSlice " + name + " deleted"}}
				})
		})
}

func (o *overviewScreen) unauthenticate() tea.Cmd {
	t, _ := o.target()
	acts := o.acts
	req := UnauthRequest{Consumer: t.consumer, Provider: t.provider, ConsumerID: t.consumerID, ProviderID: t.providerID,
		Route: t.row.Route()}
	q := fmt.Sprintf("Unauthenticate consumer %s from provider %s? The consumer's identity and the provider's Tenant are deleted: "+
		"whatever uses them stops working.", t.consumerID, t.providerID)
	if t.consumer == nil || t.provider == nil {
		q += " Only this side is reachable from here: what stays on the other is listed with the command that removes it."
	}
	return o.ask(q, func() tea.Cmd {
		return o.start("unauthenticating "+t.consumerID+" from "+t.providerID+"…", "unauthenticate "+t.consumerID+" from "+t.providerID,
			func(ctx context.Context, sink handshake.Sink) actionResult {
				left, err := acts.Unauthenticate(ctx, req, sink)
				return actionResult{lines: left, err: err}
			})
	})
}
