package lab

import (
	"context"
	"errors"
	"os"
	"os/exec"
)

// Run starts a provider and a consumer cluster, runs argv with
// PROVIDER_KUBECONFIG and CONSUMER_KUBECONFIG set, and stops the clusters
// when it exits. It returns the command's exit code.
func Run(ctx context.Context, dir string, opts Options, argv []string) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	code := 0
	var runErr error
	err := Up(ctx, dir, opts, []string{"provider", "consumer"}, func(cs []*Cluster) {
		defer cancel() // the command is done: stop the lab
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		cmd.Env = append(os.Environ(), "PROVIDER_KUBECONFIG="+cs[0].KubeconfigPath, "CONSUMER_KUBECONFIG="+cs[1].KubeconfigPath)
		runErr = cmd.Run()
		var exit *exec.ExitError
		if errors.As(runErr, &exit) {
			code, runErr = exit.ExitCode(), nil
		}
	})
	if err != nil {
		return 0, err
	}
	return code, runErr
}
