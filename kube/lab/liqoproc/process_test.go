package liqoproc

import (
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logRecorder is a testing.TB whose Log lines are kept, to check streaming.
type logRecorder struct {
	testing.TB
	mu    sync.Mutex
	lines []string
}

func (r *logRecorder) Log(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range args {
		r.lines = append(r.lines, a.(string))
	}
}

// sorted are the lines logged, sorted: two streams interleave freely.
func (r *logRecorder) sorted() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.lines)
	slices.Sort(out)
	return out
}

// A process is ready on the line isReady accepts, on stdout or stderr; its
// lines reach t.Log with the prefix and its environment gets env; at cleanup
// SIGTERM ends it (a shell sleeping in the foreground dies of it).
func TestProcessReadyStreamStop(t *testing.T) {
	rec := &logRecorder{}
	var p *Process
	t.Run("run", func(t *testing.T) {
		rec.TB = t
		p = Start(rec, "sh[x]", "/bin/sh", []string{"-c", `echo "hello $GREETING"; echo up >&2; exec sleep 300`},
			[]string{"GREETING=world"}, func(line string) bool { return line == "up" })
		p.WaitReady()
		assert.NoError(t, p.ExitErr(), "still running")
	})
	<-p.exited // the subtest's cleanup stopped it
	assert.ErrorContains(t, p.ExitErr(), "sh[x] exited: signal: terminated")
	assert.Equal(t, []string{"sh[x]: hello world", "sh[x]: up"}, rec.sorted())
}

// A process that exits says so with its exit status.
func TestProcessExitErr(t *testing.T) {
	p := Start(t, "false", "/bin/sh", []string{"-c", "exit 3"}, nil, nil)
	<-p.exited
	require.Error(t, p.ExitErr())
	assert.Equal(t, "false exited: exit status 3", p.ExitErr().Error())
}
