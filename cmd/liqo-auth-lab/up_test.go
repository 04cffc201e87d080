//go:build cluster

package main_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labbin"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// descendants lists the process tree below pid from /proc.
func descendants(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, field := range strings.Fields(string(b)) {
			child, _ := strconv.Atoi(field)
			out = append(out, child)
			out = append(out, descendants(child)...)
		}
	}
	return out
}

// waitForFile waits, watching the folder, until path exists.
func waitForFile(t *testing.T, ctx context.Context, path string, exited <-chan error) {
	w, err := fsnotify.NewWatcher()
	require.NoError(t, err)
	defer w.Close()
	require.NoError(t, w.Add(filepath.Dir(path)))
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case <-w.Events:
		case err := <-w.Errors:
			require.NoError(t, err)
		case err := <-exited:
			require.FailNow(t, "lab exited before it was ready", "%v", err)
		case <-ctx.Done():
			require.FailNow(t, "lab not ready in time")
		}
	}
}

func TestUpWritesKubeconfigsAndDownLeavesNoProcess(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	bin, err := labbin.Path(t.TempDir(), "liqo-auth-lab")
	require.NoError(t, err)

	dir := t.TempDir()
	up := exec.Command(bin, "up", "--dir", dir)
	up.Stderr = os.Stderr
	require.NoError(t, up.Start())
	exited := make(chan error, 1)
	go func() { exited <- up.Wait() }()
	t.Cleanup(func() { _ = up.Process.Kill() })
	waitForFile(t, ctx, filepath.Join(dir, "ready"), exited)

	for _, name := range []string{"provider", "consumer"} {
		kc := filepath.Join(dir, name+".kubeconfig")
		c, err := kube.Connect(kube.KubeconfigOptions{Path: kc})
		require.NoError(t, err, name)
		assert.True(t, strings.HasPrefix(c.Server, "https://127.0.0.1:"), c.Server)
		user, groups, err := c.WhoAmI(ctx)
		require.NoError(t, err, name)
		assert.NotEmpty(t, user)
		assert.Contains(t, groups, "system:masters")
		// A plain cluster: no Liqo objects.
		_, err = c.ClusterID(ctx)
		assert.True(t, kube.IsNotFoundOrNoID(err), "%v", err)
	}
	children := descendants(up.Process.Pid)
	assert.GreaterOrEqual(t, len(children), 6, "etcd, kube-apiserver and kube-controller-manager per cluster")

	down := exec.CommandContext(ctx, bin, "down", "--dir", dir)
	out, err := down.CombinedOutput()
	require.NoError(t, err, string(out))
	select {
	case err := <-exited:
		assert.NoError(t, err, "lab exit status")
	case <-ctx.Done():
		require.FailNow(t, "lab did not exit after down")
	}
	for _, pid := range children {
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "process %d left behind", pid)
	}
	_, err = os.Stat(filepath.Join(dir, "ready"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
