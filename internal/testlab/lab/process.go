package lab

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// diesWithParent writes dir/<name>.sh, which starts binary with env added so
// that the kernel kills it when the process that started it dies (setpriv
// --pdeathsig; envtest starts etcd and kube-apiserver without a SysProcAttr
// of ours), and returns the script's path. A test or benchmark binary killed
// from outside (a time limit, SIGKILL) then leaves no control plane behind.
// The script execs, so the PID and the command line stay the binary's: the
// fault injection finds and restarts the binary itself.
func diesWithParent(dir, name, binary string, env []string) (string, error) {
	line := "exec setpriv --pdeathsig KILL -- "
	if len(env) > 0 {
		line += "env " + shellQuote(env...) + " "
	}
	script := filepath.Join(dir, name+".sh")
	body := "#!/bin/sh\n" + line + shellQuote(binary) + " \"$@\"\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		return "", err
	}
	return script, nil
}

// shellQuote quotes each word for sh and joins them with spaces.
func shellQuote(words ...string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(quoted, " ")
}

// quietControllerRuntime gives controller-runtime's log (envtest logs through
// it) a logger once, wherever a lab starts: without one, controller-runtime
// prints "log.SetLogger(...) was never called" with a goroutine dump into
// whatever the lab's process writes (a benchmark's report).
var quietControllerRuntime = sync.OnceFunc(func() { ctrllog.SetLogger(logr.Discard()) })

// stopGrace is how long a lab process has to exit after SIGTERM before it
// is killed.
const stopGrace = 5 * time.Second

// terminate stops a process the lab started: SIGTERM, then SIGKILL after
// stopGrace; done receives its exit.
func terminate(p *os.Process, done <-chan error) {
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(stopGrace):
		_ = p.Kill()
		<-done
	}
}
