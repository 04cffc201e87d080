package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// Faults for tests of what clients do when a cluster's kube-apiserver stops
// answering (PauseAPIServer) or dies and comes back (RestartAPIServer).
//
// envtest cannot restart its API server in place: its Stop removes the
// certificate folder (serving certificate, service-account keys, client
// CA), so a new Start would serve another certificate that clients do not
// trust, and it may pick another port. These faults therefore act on the
// process itself: found by its --cert-dir in /proc, killed with SIGKILL,
// and started again with the very same binary and arguments, hence the
// same port, certificates and etcd (which keeps running, with its data).
// envtest's Stop then finds its own process gone; the restarted one is
// stopped by Cluster.Stop's later removal of etcd at the latest, and
// killed with the test process (Pdeathsig) in any case.

// apiServerProc is what the faults know about a cluster's kube-apiserver.
type apiServerProc struct {
	mu   sync.Mutex
	pid  int
	argv []string
	dead bool          // killed, not started again
	done chan struct{} // closed when the restarted process exited
}

var (
	procsMu sync.Mutex
	procs   = map[*Cluster]*apiServerProc{}
)

// apiServer finds the cluster's kube-apiserver process.
func (c *Cluster) apiServer() (*apiServerProc, error) {
	procsMu.Lock()
	defer procsMu.Unlock()
	if p := procs[c]; p != nil {
		return p, nil
	}
	api := c.apiServerProcess()
	if api == nil {
		return nil, fmt.Errorf("cluster %s: not running", c.Name)
	}
	certDir := api.CertDir
	pid, argv, err := findProcess("kube-apiserver", "--cert-dir="+certDir)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", c.Name, err)
	}
	p := &apiServerProc{pid: pid, argv: argv}
	procs[c] = p
	return p, nil
}

// findProcess returns the pid and argv of the process of binary name whose
// arguments include arg.
func findProcess(name, arg string) (int, []string, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, nil, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(raw) == 0 {
			continue
		}
		argv := splitCmdline(raw)
		if filepath.Base(argv[0]) != name {
			continue
		}
		for _, a := range argv[1:] {
			if a == arg {
				return pid, argv, nil
			}
		}
	}
	return 0, nil, fmt.Errorf("no %s process with %s", name, arg)
}

func splitCmdline(raw []byte) []string {
	var argv []string
	for _, a := range bytes.Split(bytes.TrimSuffix(raw, []byte{0}), []byte{0}) {
		argv = append(argv, string(a))
	}
	return argv
}

// PauseAPIServer stops the cluster's kube-apiserver (SIGSTOP): connections
// stay open and requests hang until ResumeAPIServer.
func (c *Cluster) PauseAPIServer() error { return c.signalAPIServer(syscall.SIGSTOP) }

// ResumeAPIServer lets a paused kube-apiserver run again (SIGCONT).
func (c *Cluster) ResumeAPIServer() error { return c.signalAPIServer(syscall.SIGCONT) }

func (c *Cluster) signalAPIServer(sig syscall.Signal) error {
	p, err := c.apiServer()
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dead {
		return fmt.Errorf("cluster %s: kube-apiserver is not running", c.Name)
	}
	if err := syscall.Kill(p.pid, sig); err != nil {
		return fmt.Errorf("cluster %s: signalling kube-apiserver (pid %d): %w", c.Name, p.pid, err)
	}
	if sig == syscall.SIGSTOP {
		return waitStopped(c.Name, p.pid)
	}
	return nil
}

// waitStopped returns once pid, a child of this process (envtest and
// StartAPIServer start kube-apiserver here), reports its group stop:
// kill(2) only queues SIGSTOP, and on a loaded machine a thread still
// answered a request sent right after it. waitid with WNOWAIT reaps
// nothing; os/exec still collects the exit.
func waitStopped(cluster string, pid int) error {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WSTOPPED|unix.WEXITED|unix.WNOWAIT, nil)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return fmt.Errorf("cluster %s: waiting for kube-apiserver (pid %d) to stop: %w", cluster, pid, err)
		case info.Code != cldStopped:
			return fmt.Errorf("cluster %s: kube-apiserver (pid %d) exited instead of stopping", cluster, pid)
		}
		return nil
	}
}

// cldStopped is siginfo's si_code of a child stopped by a signal
// (CLD_STOPPED).
const cldStopped = 5

// KillAPIServer kills the cluster's kube-apiserver (SIGKILL) and returns
// once it is gone, its port closed. StartAPIServer brings it back.
func (c *Cluster) KillAPIServer() error {
	p, err := c.apiServer()
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dead {
		return nil
	}
	// A pidfd tells when the process exited, whoever its parent is (envtest
	// reaps its own child).
	fd, err := unix.PidfdOpen(p.pid, 0)
	if err != nil {
		return fmt.Errorf("cluster %s: kube-apiserver (pid %d): %w", c.Name, p.pid, err)
	}
	defer unix.Close(fd)
	if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err != nil {
		return fmt.Errorf("cluster %s: killing kube-apiserver (pid %d): %w", c.Name, p.pid, err)
	}
	// SIGKILL also ends a paused (SIGSTOPped) process.
	for {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int((10 * time.Second).Milliseconds()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("cluster %s: waiting for kube-apiserver to exit: %w", c.Name, err)
		}
		if n == 0 {
			return fmt.Errorf("cluster %s: kube-apiserver (pid %d) did not exit within 10s of SIGKILL", c.Name, p.pid)
		}
		break
	}
	if p.done != nil {
		<-p.done // our own child: reaped
	}
	p.dead = true
	return nil
}

// StartAPIServer starts a killed kube-apiserver again, with the same binary
// and arguments (same port, certificates and etcd), and returns once it is
// ready (or ctx ends). Clients made for the cluster keep working.
func (c *Cluster) StartAPIServer(ctx context.Context) error {
	p, err := c.apiServer()
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.dead {
		return fmt.Errorf("cluster %s: kube-apiserver (pid %d) is still running: kill it first", c.Name, p.pid)
	}
	logPath := filepath.Join(filepath.Dir(c.KubeconfigPath), c.Name+"-kube-apiserver-restarted.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Env = append(os.Environ(), c.apiServerEnv...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Like the controller manager: never outlive the process that started it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return fmt.Errorf("cluster %s: restarting kube-apiserver: %w", c.Name, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(done)
	}()
	p.pid, p.done, p.dead = cmd.Process.Pid, done, false
	return c.waitAPIServerReady(ctx, done, logPath)
}

// RestartAPIServer kills the cluster's kube-apiserver and starts it again.
func (c *Cluster) RestartAPIServer(ctx context.Context) error {
	if err := c.KillAPIServer(); err != nil {
		return err
	}
	return c.StartAPIServer(ctx)
}

// waitAPIServerReady polls /readyz (a process has no watch to wait on) until
// it answers ok, the process exits, or ctx ends.
func (c *Cluster) waitAPIServerReady(ctx context.Context, exited <-chan struct{}, logPath string) error {
	kc, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	var last error
	err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		select {
		case <-exited:
			return false, fmt.Errorf("kube-apiserver exited: see %s", logPath)
		default:
		}
		reqCtx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		_, last = kc.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(reqCtx)
		return last == nil, nil
	})
	if err != nil {
		if last != nil && ctx.Err() != nil {
			err = fmt.Errorf("%w (last: %w)", err, last)
		}
		return fmt.Errorf("cluster %s: restarted kube-apiserver not ready: %w", c.Name, err)
	}
	return nil
}

// RestartControllerManager kills the cluster's kube-controller-manager and
// starts it again with the same arguments. After API server restarts its
// informers back off (client-go's reflectors, up to 30s, reset only after
// two calm minutes): a control plane that restarts as a whole, as static
// pods on a rebooted node do, signs CSRs again as soon as it is up.
func (c *Cluster) RestartControllerManager(ctx context.Context) error {
	if c.kcm == nil || c.kcm.Process == nil {
		return fmt.Errorf("cluster %s: kube-controller-manager not running", c.Name)
	}
	_ = c.kcm.Process.Kill()
	<-c.kcmDone
	logPath := filepath.Join(filepath.Dir(c.KubeconfigPath), c.Name+"-kube-controller-manager.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(c.kcm.Path, c.kcm.Args[1:]...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		c.kcm = nil
		return fmt.Errorf("cluster %s: restarting kube-controller-manager: %w", c.Name, err)
	}
	done := make(chan error, 1)
	go func() {
		done <- cmd.Wait()
		logFile.Close()
	}()
	// Cluster.Stop stops the new process like the first one.
	c.kcm, c.kcmDone = cmd, done
	select {
	case err := <-done:
		done <- err
		return fmt.Errorf("cluster %s: kube-controller-manager exited at once (%v): see %s", c.Name, err, logPath)
	case <-time.After(200 * time.Millisecond):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// KillControlPlane kills the cluster's kube-apiserver and
// kube-controller-manager at once, as a control-plane node that goes down.
// etcd, with the data, keeps running.
func (c *Cluster) KillControlPlane() error {
	if err := c.KillAPIServer(); err != nil {
		return err
	}
	if c.kcm != nil && c.kcm.Process != nil {
		_ = c.kcm.Process.Signal(syscall.SIGSTOP) // down with its API server; restarted by StartControlPlane
	}
	return nil
}

// StartControlPlane starts a killed control plane again: the API server
// (same address, certificates and data), then a new controller manager.
func (c *Cluster) StartControlPlane(ctx context.Context) error {
	if err := c.StartAPIServer(ctx); err != nil {
		return err
	}
	return c.RestartControllerManager(ctx)
}

// stopRestartedAPIServer kills a kube-apiserver StartAPIServer started
// (envtest does not know it) and forgets the cluster's process; Stop calls it.
func (c *Cluster) stopRestartedAPIServer() {
	procsMu.Lock()
	p := procs[c]
	procsMu.Unlock()
	if p != nil {
		p.mu.Lock()
		restarted := p.done != nil
		p.mu.Unlock()
		if restarted {
			_ = c.KillAPIServer() // nothing to do when it is dead already
		}
	}
	procsMu.Lock()
	delete(procs, c)
	procsMu.Unlock()
}

// APIServerPID is the process ID of the cluster's kube-apiserver (to
// measure what it costs).
func (c *Cluster) APIServerPID() (int, error) {
	p, err := c.apiServer()
	if err != nil {
		return 0, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pid, nil
}

// PID is the process ID of the shared etcd.
func (e *Etcd) PID() (int, error) {
	pid, _, err := findProcess("etcd", "--data-dir="+e.etcd.DataDir)
	return pid, err
}
