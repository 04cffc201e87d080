// Command man writes the man pages of liqo-auth-tui, one per command
// (cobra/doc), for `make man`. It is a main of its own so that cobra/doc
// and its Markdown-to-roff renderer are never linked into the CLI.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra/doc"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/cmd"
)

func main() {
	dir := flag.String("dir", "bin/man", "directory the pages are written to")
	flag.Parse()
	if err := generate(*dir, os.Getenv("SOURCE_DATE_EPOCH")); err != nil {
		fmt.Fprintln(os.Stderr, "man:", err)
		os.Exit(1)
	}
}

// generate writes the pages into dir, dated epoch (Unix seconds): the same
// bytes in every build of the same commit.
func generate(dir, epoch string) error {
	if epoch == "" {
		return errors.New("set SOURCE_DATE_EPOCH (make man sets the last commit's time): the pages' date must not change from build to build")
	}
	secs, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return fmt.Errorf("SOURCE_DATE_EPOCH %q: not Unix seconds", epoch)
	}
	date := time.Unix(secs, 0).UTC()
	root := cmd.NewRootCommand(&cmd.Options{}, nil)
	root.InitDefaultCompletionCmd()
	root.DisableAutoGenTag = true // its "Auto generated" line says nothing
	header := &doc.GenManHeader{
		Section: "1",
		Date:    &date,
		// "liqo-auth-tui v0.3.0" of the version line, as make stamps it.
		Source: strings.SplitN(root.Version, " (", 2)[0],
		Manual: "liqo-auth-tui Manual",
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return doc.GenManTree(root, header, dir)
}
