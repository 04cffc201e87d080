package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A verb's help lists, by role, every noun it has ("create" said
// "(provider: nonce)" though it creates a consumer's resourceslice too).
func TestVerbHelpNamesEveryNoun(t *testing.T) {
	root := NewRootCommand(&Options{}, nil)
	roles := regexp.MustCompile(`\((.*)\)$`)
	checked := 0
	for _, verb := range root.Commands() {
		m := roles.FindStringSubmatch(verb.Short)
		if m == nil || !verb.HasSubCommands() || !strings.Contains(m[1], ": ") { // "(controller)": no roles
			continue
		}
		listed := map[string]string{} // noun → role
		for _, part := range strings.Split(m[1], ";") {
			role, nouns, ok := strings.Cut(strings.TrimSpace(part), ": ")
			require.True(t, ok, "%s: %q", verb.Name(), verb.Short)
			for _, n := range strings.Split(nouns, ",") {
				listed[strings.TrimSpace(n)] = role
			}
		}
		for _, noun := range verb.Commands() {
			role, ok := listed[noun.Name()]
			if assert.True(t, ok, "%q does not name %s %s", verb.Short, verb.Name(), noun.Name()) {
				assert.Contains(t, strings.ToLower(noun.Short), role+":", "%s %s is not a %s command", verb.Name(), noun.Name(), role)
			}
			checked++
		}
	}
	assert.GreaterOrEqual(t, checked, 10)
}

// unauthenticate gives no consumer an Identity: it offers no flag about
// what a provider advertises (it offered all three).
func TestUnauthenticateOffersNoAdvertiseFlags(t *testing.T) {
	root := NewRootCommand(&Options{}, nil)
	unauth, _, err := root.Find([]string{"unauthenticate"})
	require.NoError(t, err)
	for _, name := range []string{"api-server-override", "ca-override-file", "trusted-ca"} {
		assert.Nil(t, unauth.Flags().Lookup(name), "unauthenticate --%s", name)
	}
	assert.NotNil(t, unauth.Flags().Lookup("no-in-process"))
	auth, _, err := root.Find([]string{"authenticate"})
	require.NoError(t, err)
	assert.NotNil(t, auth.Flags().Lookup("api-server-override"))
}

// Interrupted (Ctrl-C), a command that a re-run resumes says so; others
// just say they were interrupted. Exit 130 either way.
func TestInterruptedSaysWhetherARerunResumes(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: u
  user: {token: t}
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
`), 0o600))
	interrupted, cancel := context.WithCancel(context.Background())
	cancel()
	run := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := execute(interrupted, args, strings.NewReader(""), &out, &errOut, nil)
		return code, errOut.String()
	}

	code, stderr := run("authenticate", "--kubeconfig", kubeconfig, "--remote-kubeconfig", kubeconfig)
	assert.Equal(t, ExitInterrupted, code, stderr)
	assert.Contains(t, stderr, "interrupted: run the same command again to resume")

	code, stderr = run("verify", "--kubeconfig", kubeconfig, "--remote-cluster-id", "p1")
	assert.Equal(t, ExitInterrupted, code, stderr)
	assert.Contains(t, stderr, "interrupted")
	assert.NotContains(t, stderr, "resume")
}
