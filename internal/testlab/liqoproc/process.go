package liqoproc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// StartTimeout bounds the wait for a process to be ready.
const StartTimeout = 2 * time.Minute

// StopTimeout bounds a graceful stop before a process is killed.
const StopTimeout = 30 * time.Second

// tailLines is how much of a process's output a failed test shows when
// it did not run with -v: the end is where the cause is, and a whole log
// of several Liqo processes hides the test's own failure.
const tailLines = 40

// Process is one running binary whose output streams to t.Log (with -v),
// or whose last tailLines lines are logged if the test fails.
type Process struct {
	t      testing.TB
	name   string
	mu     sync.Mutex
	tail   []string // the last lines, when not streamed
	cmd    *exec.Cmd
	ready  chan struct{} // closed on the first line isReady accepts
	exited chan struct{} // closed once the process exited and its output was read
	err    error         // the exit status, set before exited closes
}

// Start runs bin with args and env (added to the environment), logging
// its output lines (stdout and stderr) prefixed by name as Process says,
// and stops it when the test ends. isReady may be nil when readiness is checked otherwise.
// A binary that cannot start fails the test.
func Start(t testing.TB, name, bin string, args, env []string, isReady func(line string) bool) *Process {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	// The process must not outlive the test binary if it dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	p := &Process{t: t, name: name, cmd: cmd, ready: make(chan struct{}), exited: make(chan struct{})}
	var readers sync.WaitGroup
	readers.Add(2)
	var once sync.Once
	onLine := func(line string) {
		if isReady != nil && isReady(line) {
			once.Do(func() { close(p.ready) })
		}
	}
	go p.stream(&readers, stdout, onLine)
	go p.stream(&readers, stderr, onLine)
	go func() {
		readers.Wait() // Wait closes the pipes: read them to the end first
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.stop()
		p.logTail()
	})
	return p
}

func (p *Process) stream(done *sync.WaitGroup, r io.Reader, onLine func(string)) {
	defer done.Done()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		p.record(sc.Text())
		onLine(sc.Text())
	}
}

// verbose says whether lines stream to t.Log as they come.
var verbose = testing.Verbose

func (p *Process) record(line string) {
	if verbose() {
		p.t.Log(p.name + ": " + line)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.tail) == tailLines {
		p.tail = p.tail[1:]
	}
	p.tail = append(p.tail, line)
}

// logTail shows a failed test the end of the process's output.
func (p *Process) logTail() {
	if !p.t.Failed() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.tail) > 0 {
		p.t.Logf("%s: its last %d lines (all of them with -v):\n%s", p.name, len(p.tail), strings.Join(p.tail, "\n"))
	}
}

// WaitReady returns once the ready line came, or fails the test when the
// process exits first, StartTimeout passes or the test ends.
func (p *Process) WaitReady() {
	p.t.Helper()
	select {
	case <-p.ready:
	case <-p.exited:
		p.t.Fatalf("%s exited before it was ready: %v", p.name, p.err)
	case <-time.After(StartTimeout):
		p.t.Fatalf("%s not ready after %s (its output is in the test log)", p.name, StartTimeout)
	case <-p.t.Context().Done():
		p.t.Fatalf("test ended while %s was starting", p.name)
	}
}

// ExitErr says that the process has exited, or nil while it runs.
func (p *Process) ExitErr() error {
	select {
	case <-p.exited:
		return fmt.Errorf("%s exited: %v", p.name, p.err)
	default:
		return nil
	}
}

// stop asks the process to end (controller-runtime and Liqo's servers stop
// on SIGTERM), kills it after StopTimeout, and returns once its output was
// read to the end.
func (p *Process) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		p.t.Logf("stopping %s: %v", p.name, err)
	}
	select {
	case <-p.exited:
	case <-time.After(StopTimeout):
		p.t.Logf("%s did not stop in %s: killing it", p.name, StopTimeout)
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}
