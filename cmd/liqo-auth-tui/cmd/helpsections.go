package cmd

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Help that reads like kubectl's: the root's commands in groups by what an
// admin does with them, and its flags in sections — the wizard's few
// first, then where the clusters are, then --batch's under their own
// heading, global ones last. Subcommands keep cobra's Flags / Global Flags.

// flagSectionAnnotation marks the help section of a root flag.
const flagSectionAnnotation = "liqo-auth-tui/help-section"

// Command groups of the root, in the order help lists them.
var commandGroups = []struct {
	group    cobra.Group
	commands []string
}{
	{cobra.Group{ID: "authenticate", Title: "Authenticate:"}, []string{"authenticate", "unauthenticate"}},
	{cobra.Group{ID: "handoff", Title: "Hand-offs (manual mode: each admin runs a step, the artifacts go between them):"},
		[]string{"create", "generate", "apply"}},
	{cobra.Group{ID: "inspect", Title: "Inspect:"}, []string{"info", "status", "get", "verify", "doctor"}},
	{cobra.Group{ID: "daytwo", Title: "Day two:"}, []string{"cordon", "uncordon", "drain", "activate", "delete"}},
	{cobra.Group{ID: "install", Title: "Install:"}, []string{"init", "install", "uninstall"}},
	{cobra.Group{ID: "other", Title: "Other Commands:"}, []string{"version"}}, // and help, completion
}

// globalFlagsTitle heads the flags every command takes.
const globalFlagsTitle = "Global Flags:"

// rootFlagSections: the root's flags in the order help lists them.
var rootFlagSections = []struct {
	title string
	flags []string
}{
	{"Wizard Flags:", []string{"role", "remote-cluster-id", "clipboard"}},
	{"Connection Flags:", []string{"kubeconfig", "context", "liqo-namespace",
		"remote-kubeconfig", "remote-context", "remote-liqo-namespace", "proxy-url", "in-band"}},
	{"Controller Flags (what runs the handshake, what the provider advertises):", []string{"no-in-process",
		"api-server-override", "ca-override-file", "trusted-ca", "skip-pod-reach-check"}},
	{"Batch Flags (--batch: no terminal):", []string{"batch", "output",
		"nonce", "nonce-file", "tenant-file", "identity-file", "consumer-fingerprint", "provider-fingerprint",
		"resource-slice", "cpu", "memory", "pods", "class", "no-virtual-node"}},
	{"Batch Flags for a Liqo 0.x Provider:", []string{"auth-url", "reissue", "peer", "peer-info-file",
		"kubeconfig-out", "insecure-skip-tls-verify", "cluster-name", "foreign-cluster-name"}},
	{globalFlagsTitle, []string{"timeout", "verbose", "version"}}, // and cobra's --help
}

// setUpHelp groups root's commands and flags and renders help with them.
func setUpHelp(root *cobra.Command) {
	groupOf := map[string]string{}
	for _, g := range commandGroups {
		root.AddGroup(&g.group)
		for _, name := range g.commands {
			groupOf[name] = g.group.ID
		}
	}
	for _, c := range root.Commands() {
		c.GroupID = groupOf[c.Name()]
	}
	root.SetHelpCommandGroupID("other")
	root.SetCompletionCommandGroupID("other")
	for _, s := range rootFlagSections {
		for _, name := range s.flags {
			for _, fs := range []*pflag.FlagSet{root.Flags(), root.PersistentFlags()} {
				_ = fs.SetAnnotation(name, flagSectionAnnotation, []string{s.title}) // fails where name is not
			}
		}
	}
	root.SetUsageFunc(func(c *cobra.Command) error {
		_, err := fmt.Fprint(c.OutOrStderr(), programOf(c).say(usage(c)))
		return err
	})
	root.SetHelpFunc(func(c *cobra.Command, _ []string) {
		if text := strings.TrimRight(cmp.Or(c.Long, c.Short), " \t\n"); text != "" {
			fmt.Fprint(c.OutOrStdout(), programOf(c).say(text)+"\n\n")
		}
		if c.Runnable() || c.HasSubCommands() {
			fmt.Fprint(c.OutOrStdout(), c.UsageString())
		}
	})
}

// usage is cobra's usage text with the flags in their sections.
func usage(c *cobra.Command) string {
	var b strings.Builder
	b.WriteString("Usage:")
	if c.Runnable() {
		b.WriteString("\n  " + c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\n  " + c.CommandPath() + " [command]")
	}
	if len(c.Aliases) > 0 {
		b.WriteString("\n\nAliases:\n  " + c.NameAndAliases())
	}
	if c.HasExample() {
		b.WriteString("\n\nExamples:\n" + c.Example)
	}
	if c.HasAvailableSubCommands() {
		writeCommands(&b, c)
	}
	for _, s := range flagSections(c) {
		b.WriteString("\n\n" + s.title + "\n" + strings.TrimRight(s.flags.FlagUsages(), " \t\n"))
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\n\nUse \"%s [command] --help\" for more information about a command.", c.CommandPath())
	}
	b.WriteString("\n")
	return b.String()
}

// writeCommands lists c's subcommands by group, as cobra does.
func writeCommands(b *strings.Builder, c *cobra.Command) {
	list := func(groupID string) {
		for _, sub := range c.Commands() {
			if sub.GroupID == groupID && (sub.IsAvailableCommand() || sub.Name() == "help") {
				fmt.Fprintf(b, "\n  %-*s %s", sub.NamePadding(), sub.Name(), sub.Short)
			}
		}
	}
	if len(c.Groups()) == 0 {
		b.WriteString("\n\nAvailable Commands:")
		list("")
		return
	}
	for _, g := range c.Groups() {
		b.WriteString("\n\n" + g.Title)
		list(g.ID)
	}
	if !c.AllChildCommandsHaveGroup() {
		b.WriteString("\n\nAdditional Commands:")
		list("")
	}
}

type flagSection struct {
	title string
	flags *pflag.FlagSet
}

// flagSections: c's own flags in their annotated sections (in
// rootFlagSections' order), the others under "Flags:" first; cobra's
// --help and --version and the inherited flags under "Global Flags:" last.
func flagSections(c *cobra.Command) []flagSection {
	sections := []flagSection{{title: "Flags:", flags: newFlagSet()}}
	for _, s := range rootFlagSections {
		if s.title != globalFlagsTitle {
			sections = append(sections, flagSection{title: s.title, flags: newFlagSet()})
		}
	}
	global := flagSection{title: globalFlagsTitle, flags: newFlagSet()}
	sections = append(sections, global)
	index := map[string]int{}
	for i, s := range sections {
		index[s.title] = i
	}
	local := c.LocalFlags()
	for _, s := range rootFlagSections {
		for _, name := range s.flags {
			if f := local.Lookup(name); f != nil && sectionOf(f) == s.title {
				sections[index[s.title]].flags.AddFlag(f)
			}
		}
	}
	local.VisitAll(func(f *pflag.Flag) {
		if _, annotated := index[sectionOf(f)]; !annotated && f.Annotations[cobra.FlagSetByCobraAnnotation] == nil {
			sections[0].flags.AddFlag(f)
		}
	})
	c.InheritedFlags().VisitAll(global.flags.AddFlag)
	local.VisitAll(func(f *pflag.Flag) { // --help, --version: every command's
		if f.Annotations[cobra.FlagSetByCobraAnnotation] != nil {
			global.flags.AddFlag(f)
		}
	})
	var shown []flagSection
	for _, s := range sections {
		if s.flags.HasAvailableFlags() {
			shown = append(shown, s)
		}
	}
	return shown
}

func newFlagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	fs.SortFlags = false
	return fs
}

func sectionOf(f *pflag.Flag) string {
	if s := f.Annotations[flagSectionAnnotation]; len(s) > 0 {
		return s[0]
	}
	return ""
}
