package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// lines is the overview as plain prompts: the peerings numbered; a number
// opens that peering's actions (the same as the full screen's, confirmed
// the same way), n starts a new peering. With no watch in line mode, the
// list is read again after each action.
func (o *overviewScreen) lines(u *lineUI) (tea.Msg, error) {
	for {
		u.println("")
		u.println(plain(o.title(lineWidth)))
		u.println(plain("   " + o.headerLine(lineWidth)))
		for i := range o.rows {
			u.println(plain(o.rowLine(o.rows[i], fmt.Sprintf("%4d", i+1), lineWidth)))
		}
		n, nav, err := o.askRow(u)
		if nav != nil || err != nil {
			return nav, err
		}
		o.cursor, o.act = n, overviewAction{mode: actMenu}
		if nav, err := o.menuLoop(u); nav != nil || err != nil {
			return nav, err
		}
		o.reload(u)
	}
}

// askRow reads a peering's number (its index), n (a new peering) or q.
func (o *overviewScreen) askRow(u *lineUI) (int, tea.Msg, error) {
	for {
		if len(o.rows) == 0 {
			u.println("No peerings left on this cluster. Type n for a new peering or q to quit, then Return:")
		} else {
			u.printf("Type a peering's number (1-%d) to act on it, n for a new peering or q to quit, then Return:", len(o.rows))
		}
		line, err := u.readLine()
		if err != nil {
			return 0, nil, err
		}
		in := strings.TrimSpace(line)
		switch in {
		case "n":
			return 0, newPeeringMsg{}, nil
		case "q":
			if ok, err := u.confirm("Quit?", ""); ok || err != nil {
				return 0, tea.QuitMsg{}, err
			}
			continue
		}
		if n, err := strconv.Atoi(in); err == nil && n >= 1 && n <= len(o.rows) {
			return n - 1, nil, nil
		}
		u.printf("%q is not a peering's number.", in)
	}
}

// menuLoop offers the selected peering's actions until esc, confirming
// and running them; an action that leaves (a request for resources) comes
// back as its navigation.
func (o *overviewScreen) menuLoop(u *lineUI) (tea.Msg, error) {
	for o.act.mode == actMenu {
		u.println("")
		u.println(plain(strings.Join(detailLines(o.rows[o.cursor], lineWidth), "\n")))
		k := o.Keys().(overviewKeys)
		cmd, _, err := u.offer("What do you do with this peering?", o.menuActions(k), false)
		if err != nil {
			return nil, err
		}
		if o.act.mode == actPickSlice {
			t, _ := o.target()
			for i, name := range t.row.SliceNames() {
				u.printf("  %d  %s", i+1, name)
			}
			u.println("Type the number of the ResourceSlice to delete, then Return:")
			line, err := u.readLine()
			if err != nil {
				return nil, err
			}
			n, err := strconv.Atoi(strings.TrimSpace(line))
			if err != nil || n < 1 || n > len(t.row.Slices) {
				u.println("No such ResourceSlice: nothing deleted.")
				o.act = overviewAction{mode: actMenu}
				continue
			}
			cmd = o.confirmDeleteSlice(t, t.row.Slices[n-1].Name)
		}
		if o.act.mode == actConfirm {
			yes, err := u.confirm(plain(o.act.question), bullets(o.act.details))
			if err != nil {
				return nil, err
			}
			cmd = nil
			if yes {
				cmd = o.act.then()
			} else {
				o.act = overviewAction{mode: actMenu}
			}
		}
		if o.act.busy != "" {
			u.println(o.act.busy)
		}
		if nav, err := u.await(o, cmd); nav != nil || err != nil {
			return nav, err
		}
		if r := o.act.result; r != nil {
			u.println(plain(strings.Join(resultLines(*r, lineWidth), "\n")))
			o.act = overviewAction{mode: actMenu}
		}
	}
	return nil, nil
}

// reload reads the peerings again (they may have changed by the action).
func (o *overviewScreen) reload(u *lineUI) {
	ctx, cancel := o.s.opContext()
	defer cancel()
	if rows, err := o.reader.Overview(ctx, *o.listed, o.other); err == nil {
		o.setRows(rows)
	} else {
		u.println(iconFailed + " reading the peerings again: " + oneLine(err.Error()))
	}
}

// bullets are details one a line, each marked ("" for none).
func bullets(details []string) string {
	if len(details) == 0 {
		return ""
	}
	return "  • " + strings.Join(details, "\n  • ")
}
