package tui

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
)

type numMsg int

func TestRunCmdOpensBatchesAndRunsWhatDeliverReturns(t *testing.T) {
	num := func(n int) tea.Cmd { return func() tea.Msg { return numMsg(n) } }
	var got []int // deliver runs on this goroutine: no lock (go test -race)
	err := runCmd(t.Context(), tea.Batch(num(1), tea.Batch(num(2), nil, num(3)), func() tea.Msg { return nil }),
		func(msg tea.Msg) tea.Cmd {
			n := int(msg.(numMsg))
			got = append(got, n)
			if n < 10 {
				return num(n * 10) // the model's answer runs too
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []int{1, 2, 3, 10, 20, 30}; !slices.Equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
}

func TestRunCmdStopsWhenTheContextEnds(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	delivered := 0
	err := runCmd(ctx, tea.Batch(func() tea.Msg { return numMsg(1) }, func() tea.Msg { <-block; return numMsg(2) }),
		func(tea.Msg) tea.Cmd { delivered++; return nil })
	if !errors.Is(err, context.DeadlineExceeded) || delivered != 1 {
		t.Fatalf("err %v, %d delivered", err, delivered)
	}
}

func TestAnimationIsTicksAndBlinksOnly(t *testing.T) {
	if !animation(spinner.TickMsg{}) || animation(probeMsg{}) || animation(gotoDetectMsg{}) {
		t.Fatal("animation() tells the wrong messages")
	}
}
