package tui

import (
	"strings"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// restrictedLine is how the detect screen tells a restricted user (Liqo's
// peering user) probed the cluster.
const restrictedLine = "restricted user: key fingerprint and controller not visible"

// clusterView is one cluster's lines on the detect screen: reachable as
// whom, its ID, its key and who serves it.
func (d *detectScreen) clusterView(b *strings.Builder, width int, label string, side handshake.Scope, ref ClusterRef, info *ClusterInfo, err error) {
	name := ref.Context
	if info != nil && info.Context != "" {
		name = info.Context
	}
	if name == "" {
		name = ref.Describe()
	}
	line := func(s string) { b.WriteString("    " + truncate(s, width-4) + "\n") }
	head := styleBold.Render(label) + "  " + name
	if info != nil {
		head += styleSubtle.Render("  " + info.Server)
	}
	b.WriteString(truncate(head, width) + "\n")
	switch {
	case d.pending[side]:
		line(strings.TrimSpace(d.spinner.View()) + " probing " + ref.Describe() + "…")
	case err != nil:
		// One line of text (the classified ReachError), wrapped to fit.
		b.WriteString(indent(wrap(iconFailed+" "+oneLine(err.Error()), max(width-4, 20)), "    ", styleErr.Render) + "\n")
	case info != nil:
		line(styleOK.Render(iconDone) + " reachable, authenticated as " + info.User)
		switch {
		case info.ClusterID != "":
			line(styleOK.Render(iconDone) + " cluster ID " + styleBold.Render(info.ClusterID))
		case info.Restricted:
			line(styleWarn.Render(iconWarn + " cluster ID not visible to this user"))
		default:
			line(styleWarn.Render(iconWarn + " no cluster ID (init creates one)"))
		}
		switch {
		case info.Restricted && info.KeyFingerprint == "":
			// A peering user (§9.4).
			line(styleSubtle.Render(iconInfo + " " + restrictedLine))
		case info.KeyFingerprint != "":
			line(styleOK.Render(iconDone) + " key " + info.KeyAlgorithm + " " + styleFP.Render(info.KeyFingerprint))
		case !info.LiqoInstalled && !info.Liqo0x: // 0.x authenticates with a token, no keys
			line(styleWarn.Render(iconWarn + " no authentication keys (init creates them)"))
		}
		if info.FlavorLine != "" {
			style := styleSubtle.Render
			if info.Unsupported != "" {
				style = styleWarn.Render
			}
			line(style(iconInfo + " " + info.FlavorLine))
		}
		if info.Liqo0xAuthDisabled {
			line(styleErr.Render(iconWarn + " " + handshake.AuthenticationDisabledWarning("")))
		}
		_, installed := d.s.installed[ref]
		served := "no Liqo · no controller: the wizard serves it in-process (I installs one)"
		switch {
		case info.Liqo0x:
			served = "Liqo 0.x: its liqo-auth server authenticates with a shared token"
		case info.LiqoInstalled:
			served = "Liqo installed: its controller-manager serves this cluster"
		case info.Restricted:
			return // the flow relies on the cluster's own controller
		case info.Controller:
			served = "no Liqo · liqo-auth controller running in the cluster"
		case installed:
			served = "controller installed, no Ready Node runs its Pods yet: served in-process meanwhile"
		}
		line(styleSubtle.Render(iconInfo + " " + served))
	}
}
