// Command lab-pause is the lab Node's sandbox ("pause") container: it holds
// a Pod's namespaces and does nothing until it is told to stop. Nothing can
// be pulled on this machine, so hack/image builds it into an image the lab
// imports under the name containerd's CRI config gives (internal/testlab/node).
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	// As a Pod's first process it inherits orphans: reap them.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGCHLD)
	go func() {
		for {
			var ws syscall.WaitStatus
			if _, err := syscall.Wait4(-1, &ws, 0, nil); err != nil && err != syscall.EINTR {
				return
			}
		}
	}()
	<-stop
}
