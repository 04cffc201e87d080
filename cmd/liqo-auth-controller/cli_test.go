package main_test

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --help lists every flag, in its group; it needs no cluster.
func TestHelpPrintsFlagGroups(t *testing.T) {
	out, err := exec.Command(binary, "--help").Output()
	require.NoError(t, err)
	help := string(out)
	groups := map[string][]string{
		"Cluster flags:": {"--kubeconfig", "--context", "--liqo-namespace", "--kube-api-qps", "--kube-api-burst"},
		"Controller flags:": {"--provider", "--consumer", "--api-server-address-override", "--ca-override-file", "--workers", "--leader-elect", "--lease-name", "--identity",
			"--leader-elect-lease-duration", "--leader-elect-renew-deadline", "--leader-elect-retry-period"},
		"Observability flags:": {"--health-address", "--metrics-address", "--profiling"},
		"Logging flags:":       {"--logging-format", "-v, --v", "--vmodule"},
		"General flags:":       {"--help", "--version"},
	}
	order := []string{"Cluster flags:", "Controller flags:", "Observability flags:", "Logging flags:", "General flags:"}
	last := -1
	for _, g := range order {
		at := strings.Index(help, "\n"+g+"\n")
		require.Greater(t, at, last, "group %q missing or out of order in:\n%s", g, help)
		section := help[at+len(g)+2:]
		if end := strings.Index(section, "\n\n"); end >= 0 {
			section = section[:end]
		}
		for _, f := range groups[g] {
			assert.Contains(t, section, f+" ", "%s in %s", f, g)
		}
		last = at
	}
	assert.Regexp(t, `\n +--workers int +workers per reconciler \(default 64\)\n`, help, "name, type, description and default on one line")
}

func TestVersionFlag(t *testing.T) {
	out, err := exec.Command(binary, "--version").Output()
	require.NoError(t, err)
	assert.Regexp(t, regexp.MustCompile(`^liqo-auth-controller \S+ \(.*go1\.\d+.*\)\n$`), string(out))
}

// A command-line mistake exits with 2 and says what to do.
func TestUsageErrorExitCode(t *testing.T) {
	out, err := exec.Command(binary, "-liqo-namespace", "x").CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 2, exit.ExitCode())
	assert.Contains(t, string(out), "--liqo-namespace")
	assert.Contains(t, string(out), "Run 'liqo-auth-controller --help' for usage.")
}
