// Command lab-runc is the lab Node's OCI runtime: runc, minus the one thing
// this kind of machine refuses. Its root holds every capability but
// CAP_SYS_RESOURCE, so the negative oom_score_adj the kubelet asks for a
// sandbox (-998) and for Guaranteed containers cannot be set, and runc fails
// every create with "can't get final child's PID from pipe: EOF". On create
// and run it drops process.oomScoreAdj from the bundle's config.json when it
// is negative, then execs runc with the same arguments; everything else
// goes to runc unchanged. containerd's CRI config names it as the runc
// runtime's BinaryName (internal/testlab/node).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// runcPath is Debian's runc (hack/install-node-binaries.sh installs it).
const runcPath = "/usr/sbin/runc"

func main() {
	args := os.Args[1:]
	if slices.Contains(args, "create") || slices.Contains(args, "run") {
		if err := dropNegativeOOMScore(bundleOf(args)); err != nil {
			fmt.Fprintln(os.Stderr, "lab-runc:", err)
			os.Exit(1)
		}
	}
	err := syscall.Exec(runcPath, append([]string{"runc"}, args...), os.Environ())
	fmt.Fprintln(os.Stderr, "lab-runc: exec runc:", err)
	os.Exit(1)
}

// bundleOf returns the --bundle (or -b) argument; runc's default is ".".
func bundleOf(args []string) string {
	for i, a := range args {
		switch {
		case (a == "--bundle" || a == "-b") && i+1 < len(args):
			return args[i+1]
		case len(a) > len("--bundle=") && a[:len("--bundle=")] == "--bundle=":
			return a[len("--bundle="):]
		}
	}
	return "."
}

// dropNegativeOOMScore rewrites bundle/config.json without a negative
// process.oomScoreAdj, keeping every other field as it was.
func dropNegativeOOMScore(bundle string) error {
	path := filepath.Join(bundle, "config.json")
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var spec map[string]json.RawMessage
	if err := json.Unmarshal(data, &spec); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var process map[string]json.RawMessage
	if raw, ok := spec["process"]; !ok || json.Unmarshal(raw, &process) != nil {
		return nil
	}
	var score int
	if raw, ok := process["oomScoreAdj"]; !ok || json.Unmarshal(raw, &score) != nil || score >= 0 {
		return nil
	}
	delete(process, "oomScoreAdj")
	if spec["process"], err = json.Marshal(process); err != nil {
		return err
	}
	out, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, info.Mode().Perm())
}
