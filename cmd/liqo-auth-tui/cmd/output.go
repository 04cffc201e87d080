package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// Printer writes liqoctl-style step lines to stderr; results go to stdout.
type Printer struct {
	Out io.Writer // results and artifacts
	Err io.Writer // progress and errors
}

func (p *Printer) line(level string, scope handshake.Scope, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	// One line per message: a multi-line error would break scripts that
	// read the last line.
	msg = strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", " ")), " ")
	if scope != handshake.NoScope {
		msg = "(" + string(scope) + ") " + msg
	}
	fmt.Fprintf(p.Err, " %-6s %s\n", level, msg)
}

// Info prints a success or progress line.
func (p *Printer) Info(scope handshake.Scope, format string, args ...any) {
	p.line("INFO", scope, format, args...)
}

// Warn prints a warning line.
func (p *Printer) Warn(scope handshake.Scope, format string, args ...any) {
	p.line("WARN", scope, format, args...)
}

// Error prints a failure line.
func (p *Printer) Error(scope handshake.Scope, format string, args ...any) {
	p.line("ERRO", scope, format, args...)
}
