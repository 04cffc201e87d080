package tui

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// frozen shows a wizard state in a real program without running its
// commands, so the screen is deterministic (no spinner ticks, fixed clock).
type frozen struct{ m *Model }

func (f frozen) Init() tea.Cmd { return nil }

func (f frozen) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if ws, ok := msg.(tea.WindowSizeMsg); ok {
		f.m.Update(ws)
	}
	return f, nil
}

func (f frozen) View() tea.View { return f.m.View() }

// goldenScreen runs the state under teatest at each size with the Ascii
// colour profile and compares the final screen with testdata/<test>.golden.
func goldenScreen(t *testing.T, build func(t *testing.T) *Model) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := build(t)
			tm := teatest.NewTestModel(t, frozen{m}, teatest.WithInitialTermSize(size[0], size[1]),
				teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
			teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("liqo-auth-tui")) },
				teatest.WithDuration(5*time.Second))
			if err := tm.Quit(); err != nil {
				t.Fatal(err)
			}
			final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(frozen)
			if final.m.width != size[0] || final.m.height != size[1] {
				t.Fatalf("size %dx%d, want %v", final.m.width, final.m.height, size)
			}
			var out bytes.Buffer
			w := &colorprofile.Writer{Forward: &out, Profile: colorprofile.Ascii}
			if _, err := w.Write([]byte(final.m.render())); err != nil {
				t.Fatal(err)
			}
			golden.RequireEqual(t, out.Bytes())
		})
	}
}

func TestGoldenDetect(t *testing.T) {
	goldenScreen(t, func(t *testing.T) *Model {
		f := newFake()
		f.infos["provider"].ClusterID, f.infos["provider"].KeyFingerprint = "", ""
		return newHarness(t, f, both()).m
	})
}

func TestGoldenRun(t *testing.T) {
	goldenScreen(t, func(t *testing.T) *Model {
		h := newHarness(t, newFake(), both())
		s := h.m.s
		r := newRunScreen(s, opAuthenticate(s))
		r.phases[0].state = stateRunning
		t0 := fixedNow.Add(-3 * time.Second)
		for _, ev := range []handshake.Event{
			{Kind: handshake.StepStarted, Step: "cluster-ids", Total: 14, Message: "Retrieving cluster IDs", Time: t0},
			{Kind: handshake.StepDone, Step: "cluster-ids", Total: 14, Message: "Cluster IDs retrieved", Elapsed: 120 * time.Millisecond},
			{Kind: handshake.StepStarted, Step: "tenant-namespace-local", Scope: handshake.Local, Total: 14, Message: "Ensuring tenant namespace", Time: t0},
			{Kind: handshake.StepDone, Step: "tenant-namespace-local", Scope: handshake.Local, Total: 14, Message: "Tenant namespace correctly ensured", Elapsed: 80 * time.Millisecond},
			{Kind: handshake.StepStarted, Step: "engines", Total: 14, Message: "Checking the controllers of both clusters", Time: t0},
			{Kind: handshake.Note, Scope: handshake.Remote, Message: "provider side served by in-process controller (in-process)"},
			{Kind: handshake.StepDone, Step: "engines", Total: 14, Message: "Controllers ready", Elapsed: 900 * time.Millisecond},
			{Kind: handshake.StepStarted, Step: "wait-tenant-status", Scope: handshake.Remote, Total: 14, Message: "Waiting for tenant status to be filled",
				Command: "kubectl get tenant consumer-1 -n liqo-tenant-consumer-1 -o yaml", Time: fixedNow.Add(-2300 * time.Millisecond)},
			{Kind: handshake.ClusterEvent, Scope: handshake.Remote, Reason: "CSRIssued", Message: "Tenant consumer-1: certificate issued by the kube-apiserver-client signer"},
		} {
			r.record(ev)
		}
		h.m.cur = r
		return h.m
	})
}

func TestGoldenHandoff(t *testing.T) {
	goldenScreen(t, func(t *testing.T) *Model {
		h := newHarness(t, newFake(), consumerOnly())
		h.key("enter", "enter")
		h.send(tea.PasteMsg{Content: fakeNonce})
		h.key("ctrl+s", "y")
		screenIs[*handoffScreen](t, h)
		return h.m
	})
}

func TestGoldenReceive(t *testing.T) {
	goldenScreen(t, func(t *testing.T) *Model {
		f := newFake()
		h := newHarness(t, f, providerOnly())
		h.key("enter")
		h.typeText("consumer-1")
		h.key("enter", "enter")
		h.send(tea.PasteMsg{Content: strings.Replace(tenantYAML, "c2lnbmF0dXJl", "YmFkc2ln", 1)})
		screenIs[*receiveScreen](t, h)
		return h.m
	})
}

func TestGoldenSummary(t *testing.T) {
	goldenScreen(t, func(t *testing.T) *Model {
		h := newHarness(t, newFake(), both())
		h.key("enter")
		screenIs[*summaryScreen](t, h)
		return h.m
	})
}

func TestGoldenError(t *testing.T) {
	goldenScreen(t, func(t *testing.T) *Model {
		f := newFake()
		f.failOp["Authenticate"] = &Failure{
			Reason: "(remote) Failed waiting for tenant status to be updated: SignatureVerificationFailed: the signature does not match the nonce",
			Hint:   "the Tenant was signed over another nonce or with another key: generate it again on the consumer with the provider's current nonce",
			Err:    errors.New("signature"),
		}
		h := newHarness(t, f, both())
		h.key("enter")
		screenIs[*errorScreen](t, h)
		return h.m
	})
}

func TestGoldenQuitConfirm(t *testing.T) {
	goldenScreen(t, func(t *testing.T) *Model {
		h := newHarness(t, newFake(), both())
		h.m.s.wrote = true // mid-flow: before any write, q just leaves
		h.key("q")
		return h.m
	})
}

func TestGoldenPeeringUserHandoff(t *testing.T) {
	goldenScreen(t, func(t *testing.T) *Model {
		h := nonceHandoff(t, newFake())
		h.key("u")
		screenIs[*handoffScreen](t, h)
		return h.m
	})
}
