package cmd

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// Printer writes liqoctl-style step lines to stderr; results go to stdout.
// Flows call its sink from several goroutines (steps and Event watches):
// one line is written at a time.
type Printer struct {
	Out io.Writer // results and artifacts
	Err io.Writer // progress and errors
	// program names the tool in the commands the lines tell an admin to
	// run (`kubectl liqo-auth …` as a kubectl plugin).
	program programName
	mu      sync.Mutex
}

func (p *Printer) line(level string, scope handshake.Scope, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	// One line per message: a multi-line error would break scripts that
	// read the last line.
	msg = p.program.say(strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", " ")), " "))
	if scope != handshake.NoScope {
		msg = "(" + string(scope) + ") " + msg
	}
	p.mu.Lock()
	defer p.mu.Unlock()
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

// sink renders flow events as liqoctl-style lines on stderr.
func (p *Printer) sink(ev handshake.Event) {
	switch ev.Kind {
	case handshake.StepDone, handshake.Note:
		p.Info(ev.Scope, "%s", ev.Message)
	case handshake.StepFailed:
		p.Error(ev.Scope, "%s", ev.Message)
	case handshake.ClusterEvent:
		if ev.Warning {
			p.Warn(ev.Scope, "Event %s: %s", ev.Reason, ev.Message)
		}
	}
}

// alreadyReported tells whether the error was printed as a failed step.
func alreadyReported(err error) bool {
	var se *flows.StepError
	return errors.As(err, &se)
}
