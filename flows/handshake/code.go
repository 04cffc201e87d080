package handshake

// The verification code of a Tenant or Identity hand-off (issue 30), in the
// words the commands and the wizard both print: the sender shows it with
// the artifact, the receiver computes its own from what arrived, and the
// admins read it aloud together.

// CodeLine is a hand-off's verification code as both admins see it.
func CodeLine(kind ArtifactKind, code string) string {
	return "Verification code of the " + string(kind) + ": " + code
}

// CodeSentHint tells the admin who sent kind what to do with its code.
func CodeSentHint(kind ArtifactKind) string {
	return "Read it aloud with the " + string(kind.Receiver()) + "'s admin (phone, call): they see the same code on receiving the " + string(kind) + "."
}

// CodeReceivedHint tells the admin who received kind what its code means
// and what to do when it is not the sender's: before applying (the wizard
// asks first), not to apply it; once applied (the commands), to
// unauthenticate.
func CodeReceivedHint(kind ArtifactKind, applied bool) string {
	hint := "The " + string(kind.Receiver().Other()) + "'s admin saw the same code on sending the " + string(kind) +
		": a different one means it was replaced on the way; then "
	if applied {
		return hint + "unauthenticate and hand it over again through another channel."
	}
	return hint + "answer n, do not apply it, and ask for it again through another channel."
}
