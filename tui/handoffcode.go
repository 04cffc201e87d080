package tui

import "github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"

// The verification code of a Tenant or Identity hand-off (issue 30): the
// sender's wizard shows it with the artifact, the receiver's computes its
// own from what arrived and asks, before applying, whether the other admin
// read the same. The fingerprints say which key; the code, read aloud,
// says both sides saw the same hand-off.

// codeLine is the code as both sides show it.
func codeLine(art *Artifact) string { return "Verification code: " + art.Code }

// sentCodeHint tells the sender what to do with the code.
func sentCodeHint(art *Artifact) string {
	return "Read it aloud with the " + string(art.Kind.Receiver()) + "'s admin (phone, call): their wizard shows the same code when it receives the " + string(art.Kind) + "."
}

// receivedCodeQuestion is asked before applying a received artifact: what
// the code is for and what another one means.
func receivedCodeQuestion(art *Artifact) string {
	sender := art.Kind.Receiver().Other()
	return "Verification code " + art.Code + ": did the " + string(sender) + "'s admin read you the same one?\n" +
		"A different code means this " + string(art.Kind) + " was replaced on the way: answer n, do not apply it,\n" +
		"and ask for it again through another channel."
}

// hasCode: the artifact is a hand-off with a code (a Tenant or Identity).
func hasCode(art *Artifact) bool {
	return art != nil && art.Code != "" && (art.Kind == handshake.KindTenant || art.Kind == handshake.KindIdentity)
}
