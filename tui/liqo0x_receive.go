package tui

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// The consumer's receive screen of the nonce also takes a Liqo 0.x
// provider's peer info (told apart by handshake.PeerInfoPrefix): checked
// with CheckPeerInfo (no write), then the 0.x confirmation.

// isPeerInfo tells a pasted or loaded peer info from a nonce.
func isPeerInfo(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimSpace(data), []byte(handshake.PeerInfoPrefix))
}

// receiveWhat is what a receive screen of kind takes.
func receiveWhat(kind handshake.ArtifactKind) string {
	if kind == handshake.KindNonce {
		return "nonce (or a Liqo 0.x peer info)"
	}
	return string(kind)
}

func (r *receiveScreen) what() string { return receiveWhat(r.kind) }

// peerInfo tells whether a valid peer info was received.
func (r *receiveScreen) peerInfo() bool {
	return r.art != nil && r.err == nil && r.art.Kind == handshake.KindPeerInfo
}

// wrongProvider refuses the peer info of another provider than the one
// this consumer's admin named.
func (r *receiveScreen) wrongProvider() error {
	if r.art == nil || r.art.Kind != handshake.KindPeerInfo || r.s.peerID == "" || r.art.FromID == r.s.peerID {
		return nil
	}
	return fmt.Errorf("this peer info is from provider %s, but this handshake is with %s: ask the right admin, or go back (esc) and pick %s",
		r.art.FromID, r.s.peerID, r.art.FromID)
}

// hiddenPeerInfo stands for the pasted peer info in the field: it encodes
// the token, so it is not shown (ctrl+l clears it, tab reads a file).
func (r *receiveScreen) hiddenPeerInfo(width int) string {
	n := len(strings.TrimSpace(r.area.Value()))
	return stylePanel.Width(width).Render(styleSubtle.Render(truncate(
		fmt.Sprintf("%s… (%d characters, hidden: it carries the provider's token; ctrl+l clears)", handshake.PeerInfoPrefix, n), max(width-4, 10))))
}

// peerInfoView shows what the peer info says, its token masked, and the
// provider's warning loudly.
func (r *receiveScreen) peerInfoView(b *strings.Builder, width int) {
	a := r.art
	if a.Warning != "" {
		b.WriteString(warningBlock(a.Warning, width) + "\n")
	}
	b.WriteString(styleOK.Render(iconDone+" a valid Liqo 0.x peer info from provider "+a.FromID) + "\n")
	preview := maskedPreview(a)
	for _, l := range strings.Split(strings.TrimRight(preview, "\n"), "\n") {
		if l != "" {
			b.WriteString("  " + truncate(l, max(width-2, 10)) + "\n")
		}
	}
	if a.APIServer != "" && !strings.Contains(preview, a.APIServer) {
		b.WriteString("  auth URL: " + a.APIServer + "\n")
	}
	b.WriteString(styleSubtle.Render("  enter or ctrl+s goes on: nothing is sent before you confirm") + "\n")
}
