package lab

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// killContainers kills the Node's containers and their shims: containerd
// does not take them down when it stops, and a kubelet that is gone will
// not either.
func (n *Node) killContainers() error { return killShims(containerdSocket(n.dir)) }

// killShims kills every containerd-shim-runc-v2 serving the containerd at
// socket, and what runs under them (the containers), children first.
func killShims(socket string) error {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return err
	}
	parent := map[int]int{}
	var shims []int
	for _, e := range procs {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, not ")".
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 1 {
			parent[pid], _ = strconv.Atoi(fields[1])
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		args := strings.Split(string(cmdline), "\x00")
		if len(args) > 0 && filepath.Base(args[0]) == "containerd-shim-runc-v2" && slices.Contains(args, socket) {
			shims = append(shims, pid)
		}
	}
	var victims []int
	for _, shim := range shims {
		victims = append(victims, descendants(parent, shim)...)
		victims = append(victims, shim)
	}
	for _, pid := range victims {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return nil
}

// descendants lists pid's descendants, deepest first.
func descendants(parent map[int]int, pid int) []int {
	var out []int
	for child, p := range parent {
		if p == pid {
			out = append(append(out, descendants(parent, child)...), child)
		}
	}
	return out
}

// cleanNodeDir undoes what a Node's daemons leave under dir when they stop
// or when the process that ran them died: its containers, and the mounts
// (container root filesystems, Pod volumes, Pod network namespaces); then
// it removes the runtime's and the kubelet's state, keeping the logs.
func cleanNodeDir(dir string) error {
	if dir == "" {
		return nil
	}
	if err := killShims(containerdSocket(dir)); err != nil {
		return err
	}
	mounts, err := mountsUnder(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, m := range mounts {
		if err := unix.Unmount(m, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
			errs = append(errs, fmt.Errorf("unmounting %s: %w", m, err))
		}
	}
	for _, sub := range []string{"containerd", "kubelet", "kubelet-pki"} {
		errs = append(errs, os.RemoveAll(filepath.Join(dir, sub)))
	}
	return errors.Join(errs...)
}

// mountsUnder lists the mount points at or below dir, deepest first.
func mountsUnder(dir string) ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<16), 1<<20)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) < 5 {
			continue
		}
		// Octal escapes (\040 for a space) as the kernel writes them.
		mp, err := strconv.Unquote(`"` + strings.ReplaceAll(fields[4], `"`, `\"`) + `"`)
		if err != nil {
			mp = fields[4]
		}
		if mp == dir || strings.HasPrefix(mp, dir+"/") {
			out = append(out, mp)
		}
	}
	slices.Reverse(out)
	return out, s.Err()
}
