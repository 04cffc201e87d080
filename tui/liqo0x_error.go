package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// A Liqo 0.x provider issues one identity per consumer cluster ID: when it
// refuses because it already issued one (a first attempt that timed out on
// the client, an identity lost on the consumer), the automated flow, which
// holds the provider's kubeconfig, can delete it there and ask again. It
// does so only after the admin confirms what gets deleted. In manual mode
// the Failure's Hint names the object the provider's admin deletes.

func reissueKeys() (reissue, yes, no key.Binding) {
	return key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "delete the provider's identity, retry"), key.WithDisabled()),
		key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "delete and retry"), key.WithDisabled()),
		key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n/esc", "cancel"), key.WithDisabled())
}

const reissueTitle = "Delete the provider's identity for this consumer and retry?"

// reissueOffer is the line under the error that offers d.
func (e *errorScreen) reissueOffer() string {
	consumer, provider := e.s.liqo0xIDs(nil)
	return "d deletes, on provider " + provider + ", the certificate it stored for consumer " + consumer +
		" (after you confirm), then asks for a new identity."
}

// reissueQuestion names exactly what gets deleted, and what it means.
func (e *errorScreen) reissueQuestion() string {
	consumer, provider := e.s.liqo0xIDs(nil)
	return "On provider " + provider + ", this deletes the certificate its Liqo 0.x stored for consumer " + consumer +
		" (Secret liqo-remote-certificate in the tenant namespace of " + consumer + "), so that it issues a new identity. " +
		"A certificate the consumer may still hold from the first request is no longer the provider's record of it. " +
		"Then it sends the token again."
}

func (e *errorScreen) confirmActions() []action {
	k := e.Keys().(errorKeys)
	return []action{
		{k.Yes, func() tea.Cmd { return e.answerReissue(true) }},
		{k.No, func() tea.Cmd { return e.answerReissue(false) }},
	}
}

// answerReissue: yes runs the reissue, no goes back to the error.
func (e *errorScreen) answerReissue(yes bool) tea.Cmd {
	e.confirmReissue = false
	if !yes {
		return nil
	}
	return e.reissue
}

func (e *errorScreen) reissueModal(width, height int) string {
	inner := max(min(width-8, 72), 20)
	msg := styleBold.Render(reissueTitle) + "\n\n" + wrapWords(e.reissueQuestion(), inner) + "\n\n" +
		styleKey.Render("y") + " delete and retry   " + styleKey.Render("n") + " cancel"
	return lipgloss.Place(width, height, lipgloss.Center, lipgloss.Center, styleModal.MaxWidth(width).Render(msg))
}
