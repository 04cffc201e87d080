package architecture

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxLines is how long a hand-written source file may grow before it is cut
// along a seam (DEVELOPERS.md: files under 500 lines).
const maxLines = 500

// Every hand-written, non-test Go file of the repository stays under
// maxLines; generated files (with Go's "Code generated ... DO NOT EDIT."
// line) are what their generator makes.
func TestNoHandWrittenFileOverMaxLines(t *testing.T) {
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	require.NoError(t, err)
	dir := strings.TrimSpace(string(root))
	out, err := exec.Command("git", "-C", dir, "ls-files", "--cached", "--others", "--exclude-standard", "*.go").Output()
	require.NoError(t, err)
	files := strings.Fields(string(out))
	require.NotEmpty(t, files)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		n, generated := countLines(t, filepath.Join(dir, name))
		if !generated {
			assert.LessOrEqual(t, n, maxLines, "%s has %d lines: cut it along a seam", name, n)
		}
	}
}

// countLines counts path's lines and tells whether it says it is generated.
func countLines(t *testing.T, path string) (n int, generated bool) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return 0, false // deleted in the work tree, still in the index
	}
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.HasPrefix(line, "// Code generated ") && strings.HasSuffix(line, " DO NOT EDIT.") {
			generated = true
		}
	}
	require.NoError(t, sc.Err())
	return n, generated
}
