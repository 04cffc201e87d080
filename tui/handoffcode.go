package tui

import "github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"

// The verification code of a Tenant or Identity hand-off (issue 30): the
// sender's wizard shows it with the artifact, the receiver's computes its
// own from what arrived and asks, before applying, whether the other admin
// read the same. The fingerprints say which key; the code, read aloud,
// says both sides saw the same hand-off. The words are handshake's, which
// the commands print too.

// codeLine is the code as both sides show it.
func codeLine(art *Artifact) string { return handshake.CodeLine(art.Kind, art.Code) }

// sentCodeHint tells the sender what to do with the code.
func sentCodeHint(art *Artifact) string { return handshake.CodeSentHint(art.Kind) }

// receivedCodeQuestion is asked before applying a received artifact, its
// lines width wide at most: the code, what it is for and what another one
// means.
func receivedCodeQuestion(art *Artifact, width int) string {
	return wrapWords(codeLine(art)+". "+handshake.CodeReceivedHint(art.Kind, false), width)
}

// hasCode: the artifact is a hand-off with a code (a Tenant or Identity).
func hasCode(art *Artifact) bool {
	return art != nil && art.Code != "" && (art.Kind == handshake.KindTenant || art.Kind == handshake.KindIdentity)
}
