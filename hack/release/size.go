package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// sizeLimits are the released (stripped) binaries' budgets, in bytes
// (issue 27): an admin downloads the CLI, every node may pull the controller.
var sizeLimits = map[string]int64{project: 50e6, controller: 40e6}

// reportSizes prints the release binaries in dist against their limits,
// and make build's in bin (not stripped, with DWARF: for comparison only),
// and fails if a release binary is missing or over its limit.
func reportSizes(w io.Writer, dist, bin string) error {
	var over []string
	for _, t := range targets() {
		fi, err := os.Stat(filepath.Join(dist, t.dir(), t.file()))
		if err != nil {
			return fmt.Errorf("%s for %s: %w (make release first)", t.binary, t.platform(), err)
		}
		limit := sizeLimits[t.binary]
		verdict := "ok"
		if fi.Size() > limit {
			verdict = "OVER"
			over = append(over, t.binary+" "+t.platform())
		}
		fmt.Fprintf(w, "release  %-21s %-13s %6.1f MB  (limit %2.0f MB) %s\n", t.file(), t.platform(), mb(fi.Size()), mb(limit), verdict)
	}
	for _, b := range []string{project, controller} {
		if fi, err := os.Stat(filepath.Join(bin, b)); err == nil {
			fmt.Fprintf(w, "build    %-21s %-13s %6.1f MB  (make build: not stripped, no limit)\n", b, "host", mb(fi.Size()))
		}
	}
	if len(over) > 0 {
		return fmt.Errorf("over the size limit: %v", over)
	}
	return nil
}

func mb(n int64) float64 { return float64(n) / 1e6 }
