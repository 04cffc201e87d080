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
		case !info.LiqoInstalled && info.LiqoGeneration != "0.x": // 0.x authenticates with a token, no keys
			line(styleWarn.Render(iconWarn + " no authentication keys (init creates them)"))
		}
		if g := generationLine(info); g != "" {
			style := styleSubtle.Render
			if info.LiqoLine == "v0.2" {
				style = styleWarn.Render
			}
			line(style(iconInfo + " " + g))
		}
		if info.LegacyAuthDisabled {
			line(styleErr.Render(iconWarn + " authentication DISABLED on its liqo-auth server: anyone who reaches it can peer"))
		}
		_, installed := d.s.installed[ref]
		served := "no Liqo · no controller: the wizard serves it in-process (I installs one)"
		switch {
		case info.LiqoGeneration == "0.x":
			served = "Liqo 0.x: its liqo-auth server authenticates with a shared token"
		case info.LiqoInstalled:
			served = "Liqo installed: its controller-manager serves this cluster"
		case info.Restricted:
			return // the flow relies on the cluster's own controller
		case info.Controller:
			served = "no Liqo · liqo-auth controller running in the cluster"
		case installed:
			served = "controller installed, Pods not up yet: served in-process meanwhile"
		}
		line(styleSubtle.Render(iconInfo + " " + served))
	}
}

// generationLine says which Liqo generation the cluster runs ("" when the
// backend did not tell).
func generationLine(info *ClusterInfo) string {
	switch info.LiqoGeneration {
	case "v1":
		return "runs Liqo v1"
	case "ours":
		return "no Liqo: authentication by liqo-auth-tui (init)"
	case "none":
		return "no Liqo, no authentication installed yet"
	case "unknown":
		return "Liqo generation not visible to this user"
	case "0.x":
		version := info.LiqoVersion
		switch {
		case version != "":
		case info.LiqoLine != "":
			version = info.LiqoLine + " line"
		case info.Restricted:
			version = "version not visible to this user"
		default:
			version = "version unknown"
		}
		g := "runs Liqo 0.x (" + version + ")"
		if info.LiqoLine == "v0.2" {
			g += ": ServiceAccount-token identities, not supported"
		}
		return g
	}
	return ""
}
