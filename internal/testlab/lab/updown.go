package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Names of the files a running lab keeps in its folder.
const (
	ReadyFile = "ready"
	PIDFile   = "lab.pid"
)

// Up starts one cluster per name with their kubeconfigs in dir, writes
// dir/ready, and keeps them running until ctx ends; then it stops them all.
// ready, if not nil, is called once the clusters are up.
func Up(ctx context.Context, dir string, opts Options, names []string, ready func([]*Cluster)) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if pid, err := readPID(dir); err == nil && processAlive(pid) {
		return fmt.Errorf("a lab is already running in %s (pid %d): stop it with `liqo-auth-lab down --dir %s`", dir, pid, dir)
	}
	_ = os.Remove(filepath.Join(dir, ReadyFile))
	if err := os.WriteFile(filepath.Join(dir, PIDFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		return err
	}
	defer os.Remove(filepath.Join(dir, PIDFile))
	opts.Dir = dir
	clusters, err := Start(ctx, opts, names...)
	if err != nil {
		return err
	}
	defer StopAll(clusters)
	if err := loadImages(ctx, clusters, opts.Images); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ReadyFile), []byte(time.Now().Format(time.RFC3339)+"\n"), 0o600); err != nil {
		return err
	}
	defer os.Remove(filepath.Join(dir, ReadyFile))
	if ready != nil {
		ready(clusters)
	}
	<-ctx.Done()
	return nil
}

// loadImages loads each archive into every cluster's Node.
func loadImages(ctx context.Context, clusters []*Cluster, archives []string) error {
	for _, archive := range archives {
		if _, err := os.Stat(archive); err != nil {
			return fmt.Errorf("--load-image %s: %w (make lab-image builds the controller's)", archive, err)
		}
		for _, c := range clusters {
			if c.Node == nil {
				return fmt.Errorf("--load-image %s: cluster %s has no Node to load it into (add --nodes)", archive, c.Name)
			}
			if err := c.Node.LoadImage(ctx, archive); err != nil {
				return err
			}
		}
	}
	return nil
}

// Down stops the lab running in dir (started by Up in another process) and
// waits until that process has exited.
func Down(ctx context.Context, dir string) error {
	pid, err := readPID(dir)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no lab is running in %s (no %s)", dir, PIDFile)
	}
	if err != nil {
		return err
	}
	// A pidfd lets us wait for a process that is not our child without polling.
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		_ = os.Remove(filepath.Join(dir, PIDFile))
		return nil
	}
	if err != nil {
		return fmt.Errorf("opening lab process %d: %w", pid, err)
	}
	defer unix.Close(fd)
	if err := unix.PidfdSendSignal(fd, unix.SIGTERM, nil, 0); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("stopping lab process %d: %w", pid, err)
	}
	deadline, ok := ctx.Deadline()
	timeout := -1
	if ok {
		timeout = int(time.Until(deadline).Milliseconds())
	}
	for {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, timeout)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("lab process %d did not stop in time", pid)
		}
		return nil
	}
}

func readPID(dir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dir, PIDFile))
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("bad %s in %s: %w", PIDFile, dir, err)
	}
	return pid, nil
}

func processAlive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}
