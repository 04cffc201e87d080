package cmd

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
)

// readInput reads a file, or stdin for "-", bounded like any artifact.
func (o *Options) readInput(path, what string) ([]byte, error) {
	var r io.Reader
	if path == "-" {
		if o.In == nil {
			return nil, usagef("%s: no standard input", what)
		}
		r = o.In
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", what, err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, artifact.MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	return data, nil
}

// writeArtifact writes data to path (mode 0600: artifacts are not secret,
// but nobody else needs them) or to stdout when path is empty.
func (o *Options) writeArtifact(path string, data []byte) error {
	if path == "" {
		_, err := o.Printer.Out.Write(data)
		return err
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// applyInput is what every apply command does before decoding: check the
// output format and the engine flags, then read the artifact.
func (o *Options) applyInput(output string, engine EngineFlags, path, what string) (flows.EngineOptions, []byte, error) {
	if err := checkOutputFormat(output, "", "yaml", "json"); err != nil {
		return flows.EngineOptions{}, nil, err
	}
	opts, err := engine.options()
	if err != nil {
		return flows.EngineOptions{}, nil, err
	}
	data, err := o.readInput(path, what)
	return opts, data, err
}

// askYes asks a question on the terminal; only y or yes says yes.
func (o *Options) askYes(question string) bool {
	sep := " "
	if strings.HasSuffix(question, "\n") {
		sep = ""
	}
	fmt.Fprintf(o.Printer.Err, "%s%s[y/N] ", question, sep)
	answer, _ := bufio.NewReader(o.In).ReadString('\n')
	if f, ok := o.Printer.Err.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
		// The answer's newline was echoed on the terminal, not here.
		fmt.Fprintln(o.Printer.Err)
	}
	answer = strings.ToLower(strings.TrimSpace(answer))
	return answer == "y" || answer == "yes"
}
