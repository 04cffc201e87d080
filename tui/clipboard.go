package tui

import (
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
)

// ClipboardPolicy says how `c` copies an artifact (--clipboard).
type ClipboardPolicy string

const (
	// ClipboardAuto: OSC52 first over SSH or without a display server,
	// else the native clipboard, falling back to OSC52.
	ClipboardAuto   ClipboardPolicy = "auto"
	ClipboardNative ClipboardPolicy = "native"
	ClipboardOSC52  ClipboardPolicy = "osc52"
	ClipboardOff    ClipboardPolicy = "off"
)

// ParseClipboardPolicy validates a --clipboard value.
func ParseClipboardPolicy(s string) (ClipboardPolicy, error) {
	switch p := ClipboardPolicy(s); p {
	case ClipboardAuto, ClipboardNative, ClipboardOSC52, ClipboardOff:
		return p, nil
	case "":
		return ClipboardAuto, nil
	}
	return "", fmt.Errorf("--clipboard %q: use auto, native, osc52 or off", s)
}

// osc52Limit is a size most terminals accept in one OSC52 sequence.
const osc52Limit = 75 << 10

// nativeTimeout bounds xsel/wl-copy, which can hang for seconds.
const nativeTimeout = 3 * time.Second

type copyMethod int

const (
	copyNative copyMethod = iota
	copyOSC52
)

// copyMethods is the order the policy tries.
func (s *session) copyMethods() []copyMethod {
	switch s.opts.Clipboard {
	case ClipboardNative:
		return []copyMethod{copyNative}
	case ClipboardOSC52:
		return []copyMethod{copyOSC52}
	case ClipboardOff:
		return nil
	}
	remote := s.env["SSH_TTY"] != "" || s.env["SSH_CONNECTION"] != ""
	noDisplay := s.env["DISPLAY"] == "" && s.env["WAYLAND_DISPLAY"] == ""
	if remote || noDisplay {
		return []copyMethod{copyOSC52}
	}
	return []copyMethod{copyNative, copyOSC52}
}

// copiedMsg reports a native copy, made off the UI goroutine.
type copiedMsg struct {
	err error
}

var errCopyTimeout = errors.New("the clipboard tool did not answer in time")

// nativeCopyCmd runs the native clipboard writer in a Cmd with a timeout.
func nativeCopyCmd(write func(string) error, text string) tea.Cmd {
	return func() tea.Msg {
		done := make(chan error, 1)
		go func() { done <- write(text) }()
		select {
		case err := <-done:
			return copiedMsg{err: err}
		case <-time.After(nativeTimeout):
			return copiedMsg{err: errCopyTimeout}
		}
	}
}

// osc52 sends text to the terminal's clipboard, which cannot be confirmed.
func osc52(text string) (tea.Cmd, string, bool) {
	if len(text) > osc52Limit {
		return nil, fmt.Sprintf("too large for the terminal's clipboard (%d KiB > %d KiB): use s to save or p to print", len(text)>>10, osc52Limit>>10), false
	}
	return tea.SetClipboard(text), "Sent to your terminal's clipboard (OSC52): paste it to check (in tmux: set -g set-clipboard on)", true
}
