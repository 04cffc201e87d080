package liqoproc

import (
	"fmt"
	"slices"
	"strings"
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
	fail  bool
}

func (r *logRecorder) Failed() bool { return r.fail }

func (r *logRecorder) Logf(format string, args ...any) { r.Log(fmt.Sprintf(format, args...)) }

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
	verbose = func() bool { return true }
	t.Cleanup(func() { verbose = testing.Verbose })
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

// Without -v a failed test shows the last lines of the output only, once
// the process has stopped; a test that passed shows none.
func TestProcessTailOnFailure(t *testing.T) {
	verbose = func() bool { return false }
	t.Cleanup(func() { verbose = testing.Verbose })
	script := `for i in $(seq 1 100); do echo "line $i"; done; echo up; exec sleep 300`
	for _, fail := range []bool{false, true} {
		rec := &logRecorder{fail: fail}
		t.Run(fmt.Sprint("failed=", fail), func(t *testing.T) {
			rec.TB = t
			Start(rec, "sh[y]", "/bin/sh", []string{"-c", script}, nil, func(line string) bool { return line == "up" }).WaitReady()
		})
		if !fail {
			assert.Empty(t, rec.sorted())
			continue
		}
		require.Len(t, rec.lines, 1)
		lines := strings.Split(rec.lines[0], "\n")
		assert.Equal(t, "sh[y]: its last 40 lines (all of them with -v):", lines[0])
		assert.Equal(t, "line 62", lines[1])
		assert.Equal(t, "up", lines[len(lines)-1])
		assert.Len(t, lines, 41)
	}
}
