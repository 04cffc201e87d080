package tui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// Fuzz targets of the text an admin pastes into the wizard: the plain
// prompts' line reader and paste collector, and the receive screen's field.
// Pasted text is whatever the other admin sent (or the wrong clipboard).

var fuzzKinds = []handshake.ArtifactKind{handshake.KindNonce, handshake.KindTenant, handshake.KindIdentity}

const fuzzTenant = "apiVersion: authentication.liqo.io/v1beta1\nkind: Tenant\nmetadata:\n  name: consumer-cluster\nspec:\n  clusterID: consumer-cluster\n  publicKey: LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0K\n"

func addPasteSeeds(f *testing.F) {
	for k := range fuzzKinds {
		f.Add(uint8(k), []byte("gHpSVWX4AkfHLT9l4lY0cXnqFfp0yQ5tqBvQmXZM3cM9x7uKcS2nPaLoE1rT8wYz\n"))
		f.Add(uint8(k), []byte("\n\r\n  \n"+fuzzTenant+"\n"))
		f.Add(uint8(k), []byte(strings.ReplaceAll(fuzzTenant, "\n", "\r\n")+"\r\n"))
		f.Add(uint8(k), []byte(fuzzTenant))
		f.Add(uint8(k), []byte("liqo-peer-info:v1:abc\t\x1b[31mred\x1b[0m\x00\n\n"))
		f.Add(uint8(k), []byte(""))
	}
}

// expectedPaste is what readPaste must return for data, line by line: the
// lines without their endings, blank lines before the paste skipped, up to
// a blank line (one line for a nonce); io.EOF when the input ends first.
func expectedPaste(kind handshake.ArtifactKind, data []byte) (string, error) {
	var b strings.Builder
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var line string
		if i < 0 {
			line, data = string(data), nil
		} else {
			line, data = string(data[:i]), data[i+1:]
		}
		line = strings.TrimRight(line, "\r\n")
		if strings.TrimSpace(line) == "" {
			if b.Len() == 0 {
				continue
			}
			return b.String(), nil
		}
		if b.Len() <= maxInput {
			b.WriteString(line + "\n")
		}
		if kind == handshake.KindNonce {
			return b.String(), nil
		}
	}
	return "", io.EOF
}

// FuzzReadPaste: the plain prompts collect exactly the pasted lines, for
// any bytes and line endings, and return (never hang) at the end of input.
func FuzzReadPaste(f *testing.F) {
	addPasteSeeds(f)
	f.Fuzz(func(t *testing.T, k uint8, data []byte) {
		kind := fuzzKinds[int(k)%len(fuzzKinds)]
		u := &lineUI{ctx: context.Background(), in: newLineReader(context.Background(), bytes.NewReader(data)), out: io.Discard}
		defer u.in.close()
		r := &receiveScreen{kind: kind}
		got, err := r.readPaste(u)
		want, wantErr := expectedPaste(kind, data)
		if !errors.Is(err, wantErr) && !(err == nil && wantErr == nil) {
			t.Fatalf("readPaste error %v, want %v", err, wantErr)
		}
		if got != want {
			t.Fatalf("readPaste returned %q, want %q", got, want)
		}
		// A carriage return inside a line is content; only endings go.
		if err == nil && (got == "" || strings.Contains(got, "\r\n")) {
			t.Fatalf("readPaste returned %q", got)
		}
	})
}

// FuzzPasteField: a paste into the receive screen's field keeps a printable
// artifact as it was (bar surrounding blanks): what is validated is what
// the other admin sent. Anything else pasted leaves no control character
// in the field but line breaks.
func FuzzPasteField(f *testing.F) {
	addPasteSeeds(f)
	s := newSession(f.Context(), Options{})
	f.Fuzz(func(t *testing.T, k uint8, data []byte) {
		if len(data) > 4<<10 {
			return // the field's cost grows with the text, not its code paths
		}
		r := newReceiveScreen(s, fuzzKinds[int(k)%len(fuzzKinds)])
		r.area.Focus()
		text := string(data)
		r.Update(tea.PasteMsg{Content: text}) // its validation command is not run
		got := r.area.Value()
		for _, c := range got {
			if c < ' ' && c != '\n' || c == 0x7f {
				t.Fatalf("field holds control character %q: %q", c, got)
			}
		}
		if printableLines(text) && strings.TrimSpace(got) != strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n")) {
			t.Fatalf("paste of %q became %q", text, got)
		}
	})
}

// printableLines tells text made of printable ASCII and line breaks, as
// nonces, Tenants, Identities and peer infos are.
func printableLines(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < ' ' || c > '~') && c != '\n' && !(c == '\r' && i+1 < len(s) && s[i+1] == '\n') {
			return false
		}
	}
	return true
}
