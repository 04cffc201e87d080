//go:build cluster

package lab_test

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
)

// labHelperEnv makes the test binary a process that starts a lab, says so
// on stdout and waits to be killed (TestMain).
const labHelperEnv = "LIQO_AUTH_LAB_HELPER_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(labHelperEnv); dir != "" {
		os.Exit(runLabHelper(dir))
	}
	os.Exit(m.Run())
}

func runLabHelper(dir string) int {
	if _, err := lab.StartCluster(context.Background(), "orphan", lab.Options{Dir: dir}); err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println("ready")
	select {} // until killed
}

// A process that started a lab and is killed from outside (a time limit,
// SIGKILL: no cleanup runs) takes its etcd, kube-apiserver and
// kube-controller-manager with it.
func TestControlPlaneDiesWithTheProcessThatStartedIt(t *testing.T) {
	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), labHelperEnv+"="+t.TempDir())
	out, err := helper.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, helper.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", line)

	children := childrenOf(t, helper.Process.Pid)
	assert.ElementsMatch(t, []string{"etcd", "kube-apiserver", "kube-controller-manager"}, slices.Collect(maps.Values(children)),
		"the binaries themselves are the helper's children (the scripts exec)")

	require.NoError(t, helper.Process.Kill())
	_ = helper.Wait()
	for pid, name := range children {
		assert.NoError(t, waitExit(pid, time.Minute), "%s (pid %d) outlived the process that started it", name, pid)
	}
}

// childrenOf is pid's child processes by pid, each with its command's base name.
func childrenOf(t *testing.T, pid int) map[int]string {
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	children := map[int]string{}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after its ")".
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(pid) {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv0, _, _ := strings.Cut(string(cmdline), "\x00")
		children[child] = filepath.Base(argv0)
	}
	return children
}

// waitExit waits for pid to exit, through a pidfd (no polling).
func waitExit(pid int, timeout time.Duration) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ESRCH {
		return nil // gone already
	}
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(timeout.Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("still running after %s", timeout)
		}
		return nil
	}
}
