package kube

import (
	"fmt"
	"runtime/debug"
)

// PanicError is a panic recovered on a goroutine the tool started (a check
// run beside another, a watch of Events), turned into that goroutine's
// error: a panic there would otherwise end the process, with the wizard's
// terminal left in raw mode, instead of failing one step with a message.
type PanicError struct {
	What  string // what panicked: "checking the provider's permissions"
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("internal error: %s panicked: %v (this is a bug: please report it)", e.What, e.Value)
}

// RecoverAsError, deferred first thing in a goroutine whose error someone
// waits for, turns a panic of that goroutine into *err.
func RecoverAsError(err *error, what string) {
	if p := recover(); p != nil {
		*err = &PanicError{What: what, Value: p, Stack: debug.Stack()}
	}
}
