package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
)

// The lab's private addresses (DEVELOPERS.md: loopback and namespaces the
// lab makes are the only addresses a test may use). Node i (1-254) has
// 10.213.i.0/30 for its link to the host (host .1, Node .2) and its Pods
// 10.214.i.0/24.
const (
	nodeLinkPrefix = "10.213."
	podCIDRPrefix  = "10.214."
	// nodeLocks holds one lock file per Node index: a Node's index is its
	// own for as long as the process that holds the lock lives, across the
	// test binaries `go test` runs side by side.
	nodeLocks = "/run/liqo-auth-lab"
)

// nodeNet is a Node's network: a network namespace of its own, joined to
// the host by a veth pair, so that what the host (the admin's laptop)
// reaches and what the Node and its Pods reach are different questions, as
// on real machines. The host routes between Nodes.
type nodeNet struct {
	index  int
	lock   *os.File
	NetNS  string // name under /run/netns
	HostIP string
	NodeIP string
	// PodCIDR is the Pods' range; PodGateway the bridge's address in it.
	PodCIDR, PodGateway string
}

// allocateNodeNet takes the first free Node index and makes its network,
// for a Node whose files go to dir.
func allocateNodeNet(dir string) (*nodeNet, error) {
	if err := os.MkdirAll(nodeLocks, 0o755); err != nil {
		return nil, err
	}
	for i := 1; i < 255; i++ {
		f, err := os.OpenFile(filepath.Join(nodeLocks, fmt.Sprintf("node-%d.lock", i)), os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			return nil, err
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			continue
		}
		n := &nodeNet{index: i, lock: f, NetNS: fmt.Sprintf("liqo-lab-%d", i),
			HostIP: fmt.Sprintf("%s%d.1", nodeLinkPrefix, i), NodeIP: fmt.Sprintf("%s%d.2", nodeLinkPrefix, i),
			PodCIDR: fmt.Sprintf("%s%d.0/24", podCIDRPrefix, i), PodGateway: fmt.Sprintf("%s%d.1", podCIDRPrefix, i)}
		if err := n.claim(dir); err != nil {
			n.destroy()
			return nil, err
		}
		if err := n.create(); err != nil {
			n.destroy()
			return nil, err
		}
		return n, nil
	}
	return nil, errors.New("no free lab Node index (254 in use): stop the labs left running (`ip netns list`)")
}

// claim records dir as the index's Node folder, after cleaning up the one
// a process that died holding the index left (containers, mounts).
func (n *nodeNet) claim(dir string) error {
	record := filepath.Join(nodeLocks, fmt.Sprintf("node-%d.dir", n.index))
	if prev, err := os.ReadFile(record); err == nil && len(prev) > 0 {
		if err := cleanNodeDir(strings.TrimSpace(string(prev))); err != nil {
			return fmt.Errorf("cleaning up the lab Node left in %s: %w", prev, err)
		}
	}
	return os.WriteFile(record, []byte(dir+"\n"), 0o600)
}

func (n *nodeNet) hostLink() string { return fmt.Sprintf("liqolab%d", n.index) }

// create makes the namespace and its link; what a process that died
// holding the same index left behind is removed first.
func (n *nodeNet) create() error {
	n.removeLeftovers()
	steps := [][]string{
		{"netns", "add", n.NetNS},
		{"link", "add", n.hostLink(), "type", "veth", "peer", "name", "eth0", "netns", n.NetNS},
		{"addr", "add", n.HostIP + "/30", "dev", n.hostLink()},
		{"link", "set", n.hostLink(), "up"},
		{"-n", n.NetNS, "link", "set", "lo", "up"},
		{"-n", n.NetNS, "addr", "add", n.NodeIP + "/30", "dev", "eth0"},
		{"-n", n.NetNS, "link", "set", "eth0", "up"},
		// Only the lab's networks, through the host: anything else (a
		// registry, a resolver) fails at once, as on an air-gapped Node,
		// instead of hanging until a timeout.
		{"-n", n.NetNS, "route", "add", nodeLinkPrefix + "0.0/16", "via", n.HostIP},
		{"-n", n.NetNS, "route", "add", podCIDRPrefix + "0.0/16", "via", n.HostIP},
		// The host reaches the Pods as a flat network would.
		{"route", "add", n.PodCIDR, "via", n.NodeIP},
	}
	for _, args := range steps {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
	}
	// The host routes between the Nodes' namespaces.
	return os.WriteFile("/proc/sys/net/ipv4/ip_forward", []byte("1\n"), 0o644)
}

func (n *nodeNet) removeLeftovers() {
	_ = exec.Command("ip", "route", "del", n.PodCIDR).Run()
	_ = exec.Command("ip", "link", "del", n.hostLink()).Run()
	_ = exec.Command("ip", "netns", "del", n.NetNS).Run()
}

// destroy removes the namespace (its end of the link goes with it) and
// frees the index.
func (n *nodeNet) destroy() {
	n.removeLeftovers()
	if n.lock != nil {
		n.lock.Close()
		n.lock = nil
	}
}

// nsPath is the namespace's file, which nsenter and setns take.
func (n *nodeNet) nsPath() string { return filepath.Join("/run/netns", n.NetNS) }

// command runs name in the Node's network namespace only (nsenter --net):
// `ip netns exec` would also give it a mount namespace of its own, and the
// kubelet's volume mounts must be seen by containerd.
func (n *nodeNet) command(name string, args ...string) *exec.Cmd {
	return exec.Command("nsenter", append([]string{"--net=" + n.nsPath(), "--", name}, args...)...)
}

// listen opens a TCP listener inside the Node's namespace: the socket stays
// there while this process serves it from the host's.
func (n *nodeNet) listen(addr string) (l net.Listener, err error) {
	err = n.inNetNS(func() error {
		l, err = net.Listen("tcp", addr)
		return err
	})
	return l, err
}

// dial opens a connection from inside the Node's namespace.
func (n *nodeNet) dial(ctx context.Context, network, addr string) (c net.Conn, err error) {
	err = n.inNetNS(func() error {
		var d net.Dialer
		c, err = d.DialContext(ctx, network, addr)
		return err
	})
	return c, err
}

// inNetNS runs fn on a locked thread moved into the Node's namespace, then
// moves the thread back. The sockets fn opens stay in the Node's namespace.
// The thread must live on: children started with a parent-death signal
// (the lab's daemons) die with the thread that forked them, which may be
// this one. Only a thread that cannot go back is left to end with its
// goroutine, so that it never serves others from the wrong namespace.
func (n *nodeNet) inNetNS(fn func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		home, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			runtime.UnlockOSThread()
			done <- err
			return
		}
		defer home.Close()
		ns, err := os.Open(n.nsPath())
		if err != nil {
			runtime.UnlockOSThread()
			done <- err
			return
		}
		defer ns.Close()
		if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			done <- fmt.Errorf("entering %s: %w", n.NetNS, err)
			return
		}
		err = fn()
		if unix.Setns(int(home.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
		done <- err
	}()
	return <-done
}

// forward serves l by joining each connection to target, dialled from the
// host, until l is closed (open connections end with target's server).
func forward(l net.Listener, target string) {
	for {
		in, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer in.Close()
			out, err := net.Dial("tcp", target)
			if err != nil {
				return
			}
			defer out.Close()
			copied := make(chan struct{})
			go func() {
				_, _ = io.Copy(out, in)
				if tc, ok := out.(*net.TCPConn); ok {
					_ = tc.CloseWrite()
				}
				close(copied)
			}()
			_, _ = io.Copy(in, out)
			if tc, ok := in.(*net.TCPConn); ok {
				_ = tc.CloseWrite()
			}
			<-copied
		}()
	}
}
