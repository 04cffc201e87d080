package cmd

import (
	"errors"
	"fmt"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
)

// Exit codes, as scripts expect from gh/gum-like tools.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitTimeout     = 124
	ExitInterrupted = 130
)

// UsageError marks a mistake in how the command was called.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// usagef builds a UsageError.
func usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// ExitCode maps an error to the process exit code. interrupted tells
// whether the user interrupted the command (SIGINT/SIGTERM).
func ExitCode(err error, interrupted bool) int {
	var usage *UsageError
	switch {
	case err == nil:
		return ExitOK
	case interrupted:
		return ExitInterrupted
	case errors.As(err, &usage):
		return ExitUsage
	case flows.IsTimeout(err):
		return ExitTimeout
	}
	return ExitFailure
}
