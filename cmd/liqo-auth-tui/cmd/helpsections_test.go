package cmd

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/doctor"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// runAs runs the command line as the binary invoked as argv0.
func runAs(argv0 string, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = executeAs(context.Background(), invokedAs(argv0), args, strings.NewReader(""), &out, &errOut, nil)
	return code, out.String(), errOut.String()
}

// helpOf is the --help of the command line, which must succeed.
func helpOf(t *testing.T, argv0 string, args ...string) string {
	t.Helper()
	code, stdout, stderr := runAs(argv0, append(args, "--help")...)
	require.Equal(t, ExitOK, code, stderr)
	return stdout
}

// headings are the lines of help that open a section ("Usage:", "Day two:").
func headings(help string) []string {
	var hs []string
	for _, line := range strings.Split(help, "\n") {
		if strings.HasSuffix(line, ":") && !strings.HasPrefix(line, " ") {
			hs = append(hs, line)
		}
	}
	return hs
}

// The root's help reads like kubectl's: usage, examples, the commands by
// what an admin does, then the flags by section — the wizard's first,
// --batch's under their own heading, the global ones last.
func TestRootHelpGroupsCommandsAndFlags(t *testing.T) {
	help := helpOf(t, "liqo-auth-tui")
	assert.Equal(t, []string{
		"Usage:", "Examples:",
		"Authenticate:", "Hand-offs (manual mode: each admin runs a step, the artifacts go between them):",
		"Inspect:", "Day two:", "Install:", "Other Commands:",
		"Wizard Flags:", "Connection Flags:",
		"Controller Flags (what runs the handshake, what the provider advertises):",
		"Batch Flags (--batch: no terminal):", "Batch Flags for a Liqo 0.x Provider:",
		"Global Flags:",
	}, headings(help), help)
	assert.True(t, strings.HasPrefix(help, "Authenticate a Liqo consumer with a provider.\n"), help)
	assert.Contains(t, help, "Usage:\n  liqo-auth-tui [flags]\n  liqo-auth-tui [command]\n")
	assert.Regexp(t, `Wizard Flags:\n +--role string`, help)
	assert.Regexp(t, `Batch Flags \(--batch: no terminal\):\n +--batch `, help)
	assert.Regexp(t, `Day two:\n  activate .*\n  cordon .*\n  delete .*\n  drain .*\n  uncordon .*\n\n`, help)
	assert.Regexp(t, `Other Commands:\n  completion .*\n  help .*\n  version .*\n\n`, help)
	assert.True(t, strings.HasSuffix(help, "\nUse \"liqo-auth-tui [command] --help\" for more information about a command.\n"), help)
}

// Grouping loses nothing: the root's help lists each of its flags and
// commands exactly once, and every flag has its section.
func TestRootHelpListsEveryFlagAndCommandOnce(t *testing.T) {
	help := helpOf(t, "liqo-auth-tui")
	root := NewRootCommand(&Options{}, nil)
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	flags := 0
	root.Flags().VisitAll(func(f *pflag.Flag) {
		flags++
		listed := regexp.MustCompile(`(?m)^ +(-\w, )?--`+regexp.QuoteMeta(f.Name)+` `).FindAllString(help, -1)
		assert.Len(t, listed, 1, "--%s", f.Name)
		if f.Annotations[cobra.FlagSetByCobraAnnotation] == nil {
			assert.NotEmpty(t, sectionOf(f), "--%s has no help section", f.Name)
		}
	})
	assert.GreaterOrEqual(t, flags, 40)
	assert.Len(t, regexp.MustCompile(`(?m)^ +(-\w, )?--[a-z]`).FindAllString(help, -1), flags, "a flag line of no root flag")
	assert.Regexp(t, `Global Flags:\n +--timeout duration .*\n  -v, --verbose .*\n +--version +print the version of this build \(as the version command\)\n  -h, --help +help for liqo-auth-tui\n\n`, help)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if !c.IsAvailableCommand() && c.Name() != "help" {
			continue
		}
		listed := regexp.MustCompile(`(?m)^  `+regexp.QuoteMeta(c.Name())+` `).FindAllString(help, -1)
		assert.Len(t, listed, 1, "command %s", c.Name())
		assert.NotEmpty(t, c.GroupID, "command %s has no group", c.Name())
	}
	assert.NotContains(t, help, "Additional Commands:")
}

// A subcommand keeps cobra's layout: its flags, then the global ones.
func TestSubcommandHelpKeepsFlagsThenGlobalFlags(t *testing.T) {
	help := helpOf(t, "liqo-auth-tui", "doctor")
	assert.Equal(t, []string{"Usage:", "Examples:", "Flags:", "Global Flags:"}, headings(help), help)
	assert.Contains(t, help, "Usage:\n  liqo-auth-tui doctor [flags]\n")
	assert.Regexp(t, `Flags:\n(.+\n)* +--fix `, help)
	assert.Regexp(t, `Global Flags:\n(.+\n)* +--kubeconfig string`, help)

	help = helpOf(t, "liqo-auth-tui", "create")
	assert.Equal(t, []string{"Usage:", "Available Commands:", "Global Flags:"}, headings(help), help)
	assert.Regexp(t, `Available Commands:\n  nonce .*\n  resourceslice .*\n`, help)
}

// Run as kubectl-liqo_auth (krew's link; kubectl runs it for `kubectl
// liqo-auth`), the program is `kubectl liqo-auth` in help, usage lines,
// examples and errors.
func TestKubectlPluginNamesItselfKubectlLiqoAuth(t *testing.T) {
	for _, argv0 := range []string{"/home/admin/.krew/bin/kubectl-liqo_auth", "kubectl-liqo_auth.exe"} {
		help := helpOf(t, argv0)
		assert.Contains(t, help, "Usage:\n  kubectl liqo-auth [flags]\n  kubectl liqo-auth [command]\n", argv0)
		assert.Contains(t, help, "\n  kubectl liqo-auth --batch --kubeconfig consumer.yaml --remote-kubeconfig provider.yaml\n")
		assert.Contains(t, help, "With no command, kubectl liqo-auth starts the wizard")
		assert.Contains(t, help, "the \"Key fingerprint\" that kubectl liqo-auth info prints")
		assert.Contains(t, help, "help for kubectl liqo-auth\n")
		assert.NotContains(t, help, "liqo-auth-tui", argv0)
	}
	doctor := helpOf(t, "kubectl-liqo_auth", "doctor")
	assert.Contains(t, doctor, "Usage:\n  kubectl liqo-auth doctor [flags]\n")
	assert.Contains(t, doctor, "\n  kubectl liqo-auth doctor --remote-kubeconfig provider.yaml --fix")
	assert.NotContains(t, doctor, "liqo-auth-tui")

	code, _, stderr := runAs("kubectl-liqo_auth", "frobnicate")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, `unknown command "frobnicate" for "kubectl liqo-auth"`)
	code, _, stderr = runAs("liqo-auth-tui", "frobnicate")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, `unknown command "frobnicate" for "liqo-auth-tui"`)
}

// The commands a line or doctor's report tells an admin to run name the
// program as it was called; file names and other words stay as they are.
func TestPrinterNamesTheProgramAsCalled(t *testing.T) {
	var errOut bytes.Buffer
	p := &Printer{Err: &errOut, program: pluginCommand}
	p.Info(handshake.NoScope, "Check it with: liqo-auth-tui verify --remote-cluster-id p1")
	p.Error(handshake.NoScope, "run `liqo-auth-tui init` on this cluster; see /tmp/liqo-auth-tui-1.log")
	assert.Equal(t, " INFO   Check it with: kubectl liqo-auth verify --remote-cluster-id p1\n"+
		" ERRO   run `kubectl liqo-auth init` on this cluster; see /tmp/liqo-auth-tui-1.log\n", errOut.String())
	assert.Equal(t, "liqo-auth-tui init", programName(binaryName).say("liqo-auth-tui init"))

	var report bytes.Buffer
	d := &doctor.Diagnosis{ClusterID: "c1", Checks: []doctor.Check{{Title: "CRDs installed",
		Cause: "no Tenant CRD: run `liqo-auth-tui init`", Fix: "liqo-auth-tui init"}}}
	printDiagnosis(&report, d, false, pluginCommand)
	assert.Equal(t, "Cluster c1\n  ✗ CRDs installed\n      cause: no Tenant CRD: run `kubectl liqo-auth init`\n      fix:   kubectl liqo-auth init\n", report.String())
}

// completion: as liqo-auth-tui a script for liqo-auth-tui; as the plugin a
// script for kubectl-liqo_auth, and its help tells how kubectl itself
// completes `kubectl liqo-auth …`.
func TestCompletionUnderBothNames(t *testing.T) {
	code, script, stderr := runAs("liqo-auth-tui", "completion", "bash")
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, script, "__start_liqo-auth-tui")

	code, script, stderr = runAs("kubectl-liqo_auth", "completion", "bash")
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, script, "__start_kubectl-liqo_auth")
	assert.NotContains(t, script, "liqo-auth-tui")

	help := helpOf(t, "kubectl-liqo_auth", "completion")
	assert.Contains(t, help, `ln -s "$(command -v kubectl-liqo_auth)" "$(dirname "$(command -v kubectl-liqo_auth)")/kubectl_complete-liqo_auth"`)
	assert.Contains(t, help, "Usage:\n  kubectl liqo-auth completion [command]\n")
}

// kubectl (≥ 1.26) completes `kubectl liqo-auth create <TAB>` by running
// `kubectl_complete-liqo_auth create ""` from PATH and reading cobra's
// completion protocol: the binary, linked under that name, answers it.
func TestKubectlCompleteLiqoAuthPrintsCompletions(t *testing.T) {
	code, stdout, stderr := runAs("/usr/local/bin/kubectl_complete-liqo_auth", "create", "")
	require.Equal(t, ExitOK, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.GreaterOrEqual(t, len(lines), 3, stdout)
	assert.True(t, strings.HasPrefix(lines[0], "nonce\t"), stdout)
	assert.True(t, strings.HasPrefix(lines[1], "resourceslice\t"), stdout)
	assert.Regexp(t, `^:\d+$`, lines[len(lines)-1]) // the directive

	_, direct, _ := runAs("kubectl-liqo_auth", "__complete", "create", "")
	assert.Equal(t, direct, stdout)

	_, stdout, _ = runAs("kubectl_complete-liqo_auth", "doctor", "--remote-c")
	assert.Contains(t, stdout, "--remote-cluster-id\t")
	assert.Contains(t, stdout, "--remote-context\t")
}
