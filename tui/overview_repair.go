package tui

import (
	"context"
	"sort"

	tea "charm.land/bubbletea/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// The overview's next steps on a peering that needs one: the fixes doctor
// makes itself, shown with their plans after a diagnosis and applied on a
// yes (f, `doctor --fix`'s, through Backend.ApplyRepair), and, with both
// clusters at hand, the handshake run from where it stands (A) on a
// peering the backend says it resumes (OverviewRow.Actions().Authenticate).

// diagnosis is the last of doctor's diagnoses the overview showed.
type diagnosis struct {
	remoteID string
	checks   []DoctorCheck
}

// diagnosed keeps a diagnosis that came back, for f.
func (o *overviewScreen) diagnosed(r actionResult) {
	if r.diagnosed != "" && r.err == nil {
		o.diag = &diagnosis{remoteID: r.diagnosed, checks: r.checks}
	}
}

// repair is the first fix of the selected peering's last diagnosis, in
// the order the panel lists them (failed checks first).
func (o *overviewScreen) repair() (DoctorCheck, bool) {
	r, ok := o.selected()
	if !ok || o.diag == nil || o.diag.remoteID != r.RemoteID {
		return DoctorCheck{}, false
	}
	for _, c := range failedFirst(o.diag.checks) {
		if !c.OK && len(c.Plan) > 0 {
			return c, true
		}
	}
	return DoctorCheck{}, false
}

// failedFirst orders checks as the panel shows them: failed first.
func failedFirst(checks []DoctorCheck) []DoctorCheck {
	out := append([]DoctorCheck(nil), checks...)
	sort.SliceStable(out, func(i, j int) bool { return !out[i].OK && out[j].OK })
	return out
}

// fix asks, with the plan, whether to apply the first fix, then applies it
// and shows doctor's checks after it.
func (o *overviewScreen) fix() tea.Cmd {
	c, _ := o.repair()
	doctor, listed, other, remoteID := o.doctor, *o.listed, o.other, o.diag.remoteID
	return o.ask("Fix “"+c.Title+"”? doctor makes these writes, as doctor --fix does:", func() tea.Cmd {
		return o.start("applying doctor's fix of "+c.Title+"…", "diagnosis of the peering with "+remoteID+" after the fix",
			func(ctx context.Context, _ handshake.Sink) actionResult {
				checks, err := doctor.ApplyRepair(ctx, listed, other, remoteID, c)
				if err != nil {
					return actionResult{err: err}
				}
				return actionResult{lines: []string{"fixed: " + c.Title}, checks: checks, diagnosed: remoteID}
			})
	}, c.Plan...)
}

// authenticate runs the pair's handshake from where it stands, as a new
// peering in automated mode does, the listed cluster playing the row's
// role; the run screen shows it and the summary follows.
func (o *overviewScreen) authenticate() tea.Cmd {
	t, _ := o.target()
	s := o.s
	return o.ask("Authenticate consumer "+t.consumerID+" with provider "+t.providerID+"? This wizard runs the handshake on both clusters "+
		"from where it stands, reusing what is left of it (the tenant namespaces, nonce, signed nonce and certificate).", func() tea.Cmd {
		s.localRole = t.row.Role
		return runOp(opAuthenticate(s))
	})
}

// repairLines are a failed check's fix that doctor makes itself, under it;
// first: f applies this one (the others after it, one at a time).
func repairLines(c DoctorCheck, first bool, width int) []string {
	if len(c.Plan) == 0 {
		return nil
	}
	head := "  doctor's own fix (f, once the one above is applied):"
	if first {
		head = "  f applies doctor's own fix:"
	}
	lines := []string{styleSubtle.Render(head)}
	for _, step := range c.Plan {
		lines = append(lines, hang("    • ", step, width)...)
	}
	return lines
}
