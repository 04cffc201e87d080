package tui

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// The overview's panel under the list: the selected peering, its menu,
// the confirmation, the slice picker, or the last action's outcome.

// panel is what shows under the list, in at most maxLines lines: the
// selected peering, its menu, the confirmation, what runs, or the last
// action's outcome.
func (o *overviewScreen) panel(width, maxLines int) string {
	a := o.act
	t, ok := o.target()
	if !ok {
		return ""
	}
	var lines []string
	switch {
	case a.busy != "":
		lines = []string{styleWarn.Render("… " + a.busy)}
	case a.mode == actConfirm:
		lines = strings.Split(wrapWords(styleBold.Render(a.question), width), "\n")
		for _, d := range a.details {
			lines = append(lines, hang("  • ", d, width)...)
		}
		lines = append(lines, styleKey.Render("y")+" confirm   "+styleKey.Render("n")+" cancel")
	case a.mode == actPickSlice:
		lines = []string{styleHeader.Render("Which ResourceSlice of " + t.consumerID + " with " + t.providerID + "?")}
		for i, name := range t.row.SliceNames() {
			marker := "  "
			if i == a.slice {
				marker = styleKey.Render("› ")
			}
			lines = append(lines, marker+name)
		}
	case a.mode == actMenu:
		lines = o.menuLines(t, width)
	case a.result != nil:
		lines = resultLines(*a.result, width)
	default:
		lines = detailLines(t.row, width)
	}
	return strings.Join(clip(lines, maxLines), "\n")
}

func (o *overviewScreen) menuLines(t peeringTarget, width int) []string {
	lines := []string{styleHeader.Render(fmt.Sprintf("Peering with %s (this cluster: %s, %s):", t.row.RemoteID, orDefault(string(t.row.Role), "role unknown"), t.row.Generation))}
	if t.row.Health.Verdict.NeedsAttention() || t.row.Actions().Authenticate {
		// What stopped, and who takes the next step (the other admin, or
		// with both clusters this wizard: A).
		lines = append(lines, hang("  ", verdictStyle(t.row.Health.Verdict).Render(string(t.row.Health.Verdict))+": "+t.row.Health.Reason, width)...)
	}
	k := o.Keys().(overviewKeys)
	for _, b := range k.FullHelp()[1] {
		if b.Enabled() {
			lines = append(lines, fmt.Sprintf("  %s  %s", styleKey.Render(b.Help().Key), b.Help().Desc))
		}
	}
	if t.row.Role == handshake.RoleConsumer && t.provider == nil && t.row.Actions().TenantMoves {
		lines = append(lines, styleSubtle.Render("  cordon, uncordon and drain run on the provider: liqo-auth-tui cordon tenant "+t.consumerID+" there"))
	}
	return lines
}

// detailLines say what the row's columns cannot.
func detailLines(r OverviewRow, width int) []string {
	health := string(r.Health.Verdict)
	if r.Health.Reason != "" {
		health += ": " + r.Health.Reason
	}
	var facts []string
	if r.RemoteName != "" {
		facts = append(facts, "name "+r.RemoteName)
	}
	facts = append(facts, "made by "+orDefault(r.MadeBy, "?"))
	if !r.CertificateNotAfter.IsZero() {
		facts = append(facts, "certificate until "+r.CertificateNotAfter.UTC().Format("2006-01-02 15:04 MST"))
		if r.Role == handshake.RoleConsumer {
			last := "never"
			if !r.LastRenewal.IsZero() {
				last = r.LastRenewal.UTC().Format("2006-01-02 15:04 MST")
			}
			facts = append(facts, "last renewal "+last)
		}
	}
	if len(r.Slices) > 0 {
		facts = append(facts, "slices "+strings.Join(r.SliceNames(), ", "))
	}
	lines := strings.Split(wrapWords(styleBold.Render(r.RemoteID)+" · "+verdictStyle(r.Health.Verdict).Render(health), width), "\n")
	return append(lines, strings.Split(wrapWords(styleSubtle.Render(strings.Join(facts, " · ")), width), "\n")...)
}

// resultLines are an action's outcome: doctor's failed checks first, each
// with its cause and fix, and the plan of the fix doctor makes itself.
func resultLines(r actionResult, width int) []string {
	lines := []string{styleHeader.Render(r.title)}
	for _, l := range r.lines {
		lines = append(lines, hang(iconInfo+" ", l, width)...)
	}
	first := true
	for _, c := range failedFirst(r.checks) {
		if c.OK {
			line := styleOK.Render(iconDone) + " " + c.Title
			if c.Detail != "" {
				line += styleSubtle.Render(" (" + c.Detail + ")")
			}
			lines = append(lines, truncate(line, width))
			continue
		}
		lines = append(lines, hang(styleErr.Render(iconFailed)+" ", c.Title+": "+c.Cause, width)...)
		if c.Fix != "" {
			lines = append(lines, hang("  fix: ", styleCode.Render(c.Fix), width)...)
		}
		if len(c.Plan) > 0 {
			lines = append(lines, repairLines(c, first, width)...)
			first = false
		}
	}
	if r.err != nil {
		lines = append(lines, hang(styleErr.Render(iconFailed)+" ", styleErr.Render(oneLine(r.err.Error())), width)...)
		var f *Failure
		if errors.As(r.err, &f) && f.Hint != "" {
			lines = append(lines, hang("  ", f.Hint, width)...)
		}
	}
	return lines
}

// hang wraps s after first; the lines after the first are indented as
// far.
func hang(first, s string, width int) []string {
	w := lipgloss.Width(first)
	lines := strings.Split(wrapWords(s, max(width-w, 10)), "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = first + lines[i]
		} else {
			lines[i] = strings.Repeat(" ", w) + lines[i]
		}
	}
	return lines
}

// clip keeps at most n lines, saying how many it left out.
func clip(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	return append(lines[:n-1:n-1], styleSubtle.Render(fmt.Sprintf("… %d more line(s): a taller window shows them", len(lines)-n+1)))
}
