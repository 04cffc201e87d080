// The receive screen's rendering: what is asked for, the artifact read, the question before it is applied.

package tui

import (
	"fmt"
	"strings"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

func (r *receiveScreen) View(width, height int) string {
	s := r.s
	other := s.selfRole().Other()
	var b strings.Builder
	b.WriteString(styleHeader.Render(fmt.Sprintf("Receive the %s from the %s's admin", r.what(), other)) + "\n")
	if s.banner != "" {
		b.WriteString(styleSubtle.Render(truncate(s.banner, width)) + "\n")
	}
	b.WriteString(styleSubtle.Render(truncate("Paste it below, or press tab to read a file. Nothing is applied until it is valid and you confirm.", width)) + "\n\n")
	switch {
	case r.fileMode:
		b.WriteString(r.path.View() + "\n")
	case isPeerInfo([]byte(r.area.Value())):
		b.WriteString(r.hiddenPeerInfo(width) + "\n")
	default:
		b.WriteString(r.area.View() + "\n")
	}
	b.WriteString("\n")
	switch {
	case r.validating:
		b.WriteString(styleSubtle.Render("checking…") + "\n")
	case r.err != nil:
		b.WriteString(styleErr.Render(wrap(iconFailed+" "+oneLine(r.err.Error()), width)) + "\n")
	case r.peerInfo():
		r.peerInfoView(&b, width)
	case r.art != nil:
		b.WriteString(styleOK.Render(iconDone+" "+r.describe()) + "\n")
		if r.art.Fingerprint != "" {
			b.WriteString(fmt.Sprintf("  %s: %s %s\n", fingerprintLabel(r.kind), styleFP.Render(r.art.Fingerprint), styleSubtle.Render("(compare with the other admin)")))
		}
		if hasCode(r.art) {
			b.WriteString("  " + styleFP.Render(codeLine(r.art)) + "\n")
		}
		if r.art.APIServer != "" {
			b.WriteString("  API server: " + r.art.APIServer + "\n")
		}
		if !r.art.NotAfter.IsZero() {
			b.WriteString("  certificate expires: " + expiry(r.art.NotAfter, s.now()) + "\n")
		}
	case strings.TrimSpace(r.area.Value()) == "" && !r.fileMode:
		b.WriteString(styleSubtle.Render("waiting for the "+string(r.kind)+"… (once it is valid, enter or ctrl+s uses it)") + "\n")
	}
	if r.confirm {
		b.WriteString("\n" + styleModal.Render(r.confirmText(max(min(width-8, 88), 20))+"\n\n"+styleKey.Render("y")+" apply   "+styleKey.Render("n")+" not yet") + "\n")
	}
	return b.String()
}

func (r *receiveScreen) describe() string {
	a := r.art
	switch r.kind {
	case handshake.KindNonce:
		return "a valid nonce"
	case handshake.KindTenant:
		return "a valid Tenant from consumer " + a.FromID + ", signed over this provider's nonce"
	}
	return "a valid Identity from provider " + a.FromID + ", issued to this cluster's key"
}

// confirmText is the question before applying, the code's lines width
// wide at most.
func (r *receiveScreen) confirmText(width int) string {
	s := r.s
	if hasCode(r.art) && r.kind == r.art.Kind {
		return receivedCodeQuestion(r.art, width) + "\n\n" + r.applyQuestion(s)
	}
	return r.applyQuestion(s)
}

func (r *receiveScreen) applyQuestion(s *session) string {
	switch r.kind {
	case handshake.KindNonce:
		return "Sign this nonce with " + orDefault(s.ownID(), "this cluster") + "'s key\nand generate the Tenant for provider " + s.peerID + "?"
	case handshake.KindTenant:
		return "Apply the Tenant of consumer " + r.art.FromID + " on " + orDefault(s.ownID(), "this provider") + "\n(the consumer gets a certificate and narrow permissions)?"
	}
	return "Apply the Identity of provider " + r.art.FromID + " on " + orDefault(s.ownID(), "this consumer") + "?"
}
