// The slices screen's rendering: the request form, who answers, the provider's answer.

package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

func (m *slicesScreen) View(width, height int) string {
	if m.result != nil {
		return m.resultView(width)
	}
	var b strings.Builder
	b.WriteString(m.intro(width) + "\n\n")
	b.WriteString(wrap(m.who(), max(width-2, 20)) + "\n\n")
	labelW := 0
	for _, f := range sliceFields {
		labelW = max(labelW, len(f.label))
	}
	for i, f := range sliceFields {
		label := fmt.Sprintf("  %-*s ", labelW, f.label)
		if i == m.focus {
			label = styleKey.Render(label)
		}
		m.inputs[i].SetWidth(max(width-labelW-6, 10))
		b.WriteString(label + m.inputs[i].View() + "\n")
	}
	switch {
	case m.busy:
		b.WriteString("\n" + styleSubtle.Render("checking the request…") + "\n")
	case m.err != "":
		b.WriteString("\n" + styleErr.Render(wrap(iconFailed+" "+m.err, width)) + "\n")
	}
	return b.String()
}

// intro says what the form does, and that it is optional.
func (m *slicesScreen) intro(width int) string {
	return styleHeader.Render("Request resources from provider "+m.providerID) + styleSubtle.Render(" (optional)") + "\n\n" +
		wrap("A ResourceSlice on the consumer asks the provider for CPU, memory and pods; the provider answers in its status "+
			"and signs a certificate for them, which the consumer turns into an Identity and a kubeconfig Secret. "+
			"esc skips this step.", max(width-2, 20))
}

// who says who answers the request on the provider, once known, and
// whether its admin gets a word first.
func (m *slicesScreen) who() string {
	switch {
	case !m.answerLoaded:
		return styleSubtle.Render("Who answers: checking what serves provider " + m.providerID + "…")
	case m.answerErr != nil:
		reason, _ := explain(m.answerErr)
		return styleWarn.Render(iconWarn+" Who answers: could not tell ("+oneLine(reason)+"). ") +
			handshake.AnswererUnknown.Who(m.providerID) + styleSubtle.Render(" enter shows what to send its admin first.")
	}
	who := "Who answers: " + m.answer.Answerer.Who(m.providerID)
	if m.answer.Answerer.NeedsProviderAdmin() {
		who += styleSubtle.Render(" enter shows what to send its admin first.")
	}
	return who
}

// resultView is the provider's answer.
func (m *slicesScreen) resultView(width int) string {
	r := m.result
	var b strings.Builder
	row := func(k, v string) { kvRow(&b, width, k, v) }
	switch {
	case r.Authentication == sliceDenied || r.Resources == sliceDenied:
		b.WriteString(styleErr.Render(iconFailed+" Provider "+r.ProviderID+" denied the ResourceSlice "+r.Name) + "\n\n")
	case r.Authentication == sliceAccepted && r.Resources == sliceAccepted:
		b.WriteString(styleOK.Render(iconDone+" Provider "+r.ProviderID+" granted the ResourceSlice "+r.Name) + "\n\n")
	default:
		b.WriteString(styleWarn.Render(iconWarn+" No answer from provider "+r.ProviderID+" yet for the ResourceSlice "+r.Name) + "\n\n")
	}
	row("ResourceSlice:", r.Name)
	row("Class:", orDefault(r.Class, defaultSliceClass))
	row("Authentication:", sliceState(r.Authentication))
	row("Resources:", sliceState(r.Resources))
	row("Requested:", formatResources(r.Requested, "nothing: the provider decides"))
	row("Granted:", formatResources(r.Granted, "-"))
	if r.Identity != "" {
		row("Identity:", r.Identity)
	}
	if r.KubeconfigSecret != "" {
		row("Kubeconfig Secret:", r.KubeconfigSecret)
	}
	if !r.NotAfter.IsZero() {
		row("Certificate expires:", expiry(r.NotAfter, m.s.now()))
	}
	if r.Message != "" {
		row("Message:", r.Message)
	}
	var next string
	switch {
	case r.Authentication == sliceDenied || r.Resources == sliceDenied:
		next = "The provider's reason is above: ask its admin, or request less under another name (r). The ResourceSlice stays on the consumer until deleted " +
			"(`" + handshake.DeleteSliceCommand(r.Name, r.ProviderID) + "`)."
	case r.Authentication == sliceAccepted && r.Resources == sliceAccepted:
		next = "The kubeconfig Secret above holds the credentials for these resources. r requests more under another name; a slice asks once: " +
			"to change it, delete it (`" + handshake.DeleteSliceCommand(r.Name, r.ProviderID) + "`) and request again."
	default:
		next = "The ResourceSlice stays on the consumer and the provider answers once its controller handles it: the summary shows its state."
	}
	b.WriteString("\n" + wrap(styleSubtle.Render(next), max(width-2, 20)))
	return b.String()
}

// sliceState shows a condition: accepted in green, denied in red, no
// answer yet as pending.
func sliceState(v string) string {
	switch v {
	case sliceAccepted:
		return styleOK.Render(v)
	case sliceDenied:
		return styleErr.Render(v)
	case "":
		return styleSubtle.Render("pending")
	}
	return v
}

// formatResources lists quantities as "cpu 4, memory 8Gi, pods 110": cpu,
// memory and pods first, then the others by name; empty when none.
func formatResources(res map[string]string, empty string) string {
	if len(res) == 0 {
		return empty
	}
	names := make([]string, 0, len(res))
	for n := range res {
		names = append(names, n)
	}
	rank := map[string]int{"cpu": 1, "memory": 2, "pods": 3}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank[names[i]], rank[names[j]]
		if ri == 0 {
			ri = 4
		}
		if rj == 0 {
			rj = 4
		}
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, n+" "+res[n])
	}
	return strings.Join(parts, ", ")
}
