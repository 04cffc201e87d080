package tui

import "strings"

// pastedText is text pasted or read from a file as the receive screen's
// field should hold it: the field turns each carriage return into a line
// break, so Windows line endings (a clipboard from Windows, a file saved
// there) would double every line of the artifact.
func pastedText(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
