package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// A Liqo 0.x peer info is Masked: its Preview hides the token, which the
// admin may reveal (r). Unlike a Sensitive artifact it may go on the
// clipboard: copy and save give the whole Data, print prints what is shown.

func revealKey(revealed bool) key.Binding {
	if revealed {
		return key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "hide token"))
	}
	return key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reveal token"))
}

func (h *handoffScreen) reveal(on bool) {
	h.revealed = on
	enabled := h.keys.Reveal.Enabled()
	h.keys.Reveal = revealKey(on)
	h.keys.Reveal.SetEnabled(enabled)
}

// shown is the artifact as the screen and print show it: a Masked one's
// token masked unless revealed.
func (h *handoffScreen) shown() string {
	if h.art.Masked && h.revealed {
		return string(h.art.Data)
	}
	if h.art.Masked {
		return orDefault(maskedPreview(h.art), "("+string(h.art.Kind)+" hidden: it carries a credential; r reveals it)")
	}
	return h.art.Shown()
}

// maskedPreview is what a Masked artifact shows: its Preview, masked by
// the backend ("" without a Preview: Data carries the credential).
func maskedPreview(a *Artifact) string {
	if a.Masked && a.Preview == "" {
		return ""
	}
	return a.Shown()
}

// clip is what goes on the clipboard: a Masked artifact whole (the other
// admin needs the token), else what may be shown.
func (h *handoffScreen) clip() string {
	if h.art.Masked {
		return string(h.art.Data)
	}
	return h.art.Shown()
}

func (h *handoffScreen) clipNote() string {
	if h.art.Masked {
		return " It holds the token: paste it only where the other admin reads it privately."
	}
	return ""
}

// equivalent is the liqoctl command of the hand-off, its token masked
// unless revealed.
func (h *handoffScreen) equivalent() string {
	if h.art.Masked && !h.revealed {
		return h.art.MaskedEquivalent
	}
	return h.art.Equivalent
}

// peerInfoLines are the hand-off's lines particular to a masked artifact:
// the auth URL, the token's state and the liqoctl equivalent.
func (h *handoffScreen) peerInfoLines() []string {
	art := h.art
	var out []string
	if art.APIServer != "" && !strings.Contains(art.Preview, art.APIServer) {
		out = append(out, "Auth URL: "+art.APIServer)
	}
	switch {
	case art.Masked && h.revealed:
		out = append(out, styleWarn.Render(iconWarn+" Token shown: r hides it again."))
	case art.Masked:
		out = append(out, styleSubtle.Render("Token masked: r reveals it; c and s give the whole "+string(art.Kind)+", token included."))
	}
	return out
}

// equivalentView is the liqoctl equivalent under the artifact, wrapped at
// spaces like the next commands ("" when there is none).
func (h *handoffScreen) equivalentView(width int) string {
	eq := h.equivalent()
	if eq == "" {
		return ""
	}
	return "or with liqoctl:\n" + indent(wrapWords(eq, max(width-2, 10)), "  ", styleCode.Render) + "\n"
}

// offerReveal asks, in line mode, whether to print the token in clear.
func (h *handoffScreen) offerReveal(u *lineUI) error {
	if !h.art.Masked {
		return nil
	}
	yes, err := u.confirm("Print the "+string(h.art.Kind)+" with its token in clear? (it stays in your terminal's scrollback)", "")
	if err != nil || !yes {
		return err
	}
	h.reveal(true)
	u.println(strings.TrimRight(string(h.art.Data), "\n"))
	u.println(plain(h.equivalentView(lineWidth)))
	return nil
}
