package liqopeer

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Options say what one liqo-peer process runs.
type Options struct {
	// ClusterID is Liqo's --cluster-id: the ID in the cluster-ID ConfigMap.
	ClusterID string
	// Namespace is Liqo's --liqo-namespace; "" = "liqo".
	Namespace string
	// Provider and Consumer turn on each side's reconcilers (at least one).
	Provider, Consumer bool
	// APIServerOverride is Liqo's --api-server-address-override: lab
	// clusters have no Nodes to take the address from.
	APIServerOverride string
	// Args are more liqo-controller-manager flags.
	Args []string
}

// StartTimeout bounds the wait for liqo-peer's caches to sync.
const StartTimeout = 2 * time.Minute

// StopTimeout bounds a graceful stop before liqo-peer is killed.
const StopTimeout = 30 * time.Second

// readyLine is what liqo-peer prints on stdout once its caches synced.
const readyLine = "ready"

// Start runs liqo-peer against the cluster of kubeconfig until the test
// ends, and returns once its caches synced. Its logs go to t.Log. A peer
// that cannot start fails the test with its exit status.
func Start(t testing.TB, kubeconfig string, o Options) {
	t.Helper()
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if !o.Provider && !o.Consumer {
		t.Fatal("liqopeer.Start: set Provider, Consumer or both")
	}
	ns := o.Namespace
	if ns == "" {
		ns = "liqo"
	}
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--cluster-id=" + o.ClusterID,
		"--liqo-namespace=" + ns,
		"--provider=" + strconv.FormatBool(o.Provider),
		"--consumer=" + strconv.FormatBool(o.Consumer),
	}
	if o.APIServerOverride != "" {
		args = append(args, "--api-server-address-override="+o.APIServerOverride)
	}
	args = append(args, o.Args...)
	p, err := start(t, filepath.Join(dir, "liqo-peer"), args, nil, "liqo-peer["+o.ClusterID+"]", func(line string) bool { return line == readyLine })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.stop)
	select {
	case <-p.ready:
		t.Logf("liqo-peer (Liqo %s) ready on cluster %s (provider=%t, consumer=%t)", LiqoVersion, o.ClusterID, o.Provider, o.Consumer)
	case <-p.exited:
		t.Fatalf("liqo-peer on cluster %s exited before it was ready: %v", o.ClusterID, p.err)
	case <-time.After(StartTimeout):
		t.Fatalf("liqo-peer on cluster %s not ready after %s (its log is above)", o.ClusterID, StartTimeout)
	case <-t.Context().Done():
		t.Fatal("test ended while liqo-peer was starting")
	}
}

// process is one running binary whose output streams to t.Log.
type process struct {
	t      testing.TB
	cmd    *exec.Cmd
	ready  chan struct{} // closed on the ready line
	exited chan struct{} // closed once the process exited and its output was read
	err    error         // the exit status, set before exited closes
}

// start runs bin with args and env (added to the environment); ready is
// closed on the first line, of stdout or stderr, that isReady accepts.
func start(t testing.TB, bin string, args, env []string, prefix string, isReady func(line string) bool) (*process, error) {
	cmd := exec.Command(bin, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	p := &process{t: t, cmd: cmd, ready: make(chan struct{}), exited: make(chan struct{})}
	var readers sync.WaitGroup
	readers.Add(2)
	var once sync.Once
	onLine := func(line string) {
		if isReady(line) {
			once.Do(func() { close(p.ready) })
		}
	}
	go p.stream(&readers, stdout, prefix, onLine)
	go p.stream(&readers, stderr, prefix, onLine)
	go func() {
		readers.Wait() // Wait closes the pipes: read them to the end first
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

func (p *process) stream(done *sync.WaitGroup, r io.Reader, prefix string, onLine func(string)) {
	defer done.Done()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		p.t.Log(prefix + ": " + sc.Text())
		if onLine != nil {
			onLine(sc.Text())
		}
	}
}

// stop asks the process to end (controller-runtime stops on SIGTERM), kills
// it after StopTimeout, and returns once its output was read to the end.
func (p *process) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		p.t.Logf("stopping %s: %v", p.cmd.Path, err)
	}
	select {
	case <-p.exited:
	case <-time.After(StopTimeout):
		p.t.Logf("%s did not stop in %s: killing it", p.cmd.Path, StopTimeout)
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}
