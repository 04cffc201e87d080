package cmd

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// SliceFlags are what a ResourceSlice asks for, as liqoctl create
// resourceslice's flags.
type SliceFlags struct {
	Class         string
	CPU           string
	Memory        string
	Pods          string
	NoVirtualNode bool
}

func addSliceFlags(fs interface {
	StringVar(p *string, name, value, usage string)
	BoolVar(p *bool, name string, value bool, usage string)
}, f *SliceFlags) {
	fs.StringVar(&f.Class, "class", artifact.DefaultSliceClass, "the class of the ResourceSlice (default and \"\" are decided by the provider itself, others by its plugins)")
	fs.StringVar(&f.CPU, "cpu", "", "the amount of CPU requested in the ResourceSlice (a Kubernetes quantity, e.g. 4 or 500m)")
	fs.StringVar(&f.Memory, "memory", "", "the amount of memory requested in the ResourceSlice (a Kubernetes quantity, e.g. 8Gi)")
	fs.StringVar(&f.Pods, "pods", "", "the number of pods requested in the ResourceSlice")
	fs.BoolVar(&f.NoVirtualNode, "no-virtual-node", false, "do not ask Liqo to create a VirtualNode for the ResourceSlice")
}

func (f SliceFlags) request(name, providerID string) artifact.SliceRequest {
	return artifact.SliceRequest{Name: name, ProviderID: providerID, Class: f.Class, CPU: f.CPU, Memory: f.Memory, Pods: f.Pods,
		CreateVirtualNode: !f.NoVirtualNode}
}

// CreateResourceSliceOptions: consumer side, ask an authenticated provider
// for resources and wait for its answer and the slice's kubeconfig.
type CreateResourceSliceOptions struct {
	*Options
	Name        string
	ProviderID  string
	Slice       SliceFlags
	Remote      ClusterFlags // the provider, to serve its side in-process too
	Engine      EngineFlags
	StepTimeout time.Duration
}

func newCreateResourceSliceCommand(o *Options) *cobra.Command {
	opts := &CreateResourceSliceOptions{Options: o}
	cmd := &cobra.Command{
		Use:     "resourceslice NAME",
		Aliases: []string{"rs", "resourceslices", "rslice"},
		Short:   "Consumer: ask an authenticated provider for resources (a ResourceSlice) and wait for its kubeconfig",
		Long: `Creates a ResourceSlice in the tenant namespace of the provider, like liqoctl create
resourceslice: the consumer's controller adds a CSR signed with the cluster key, the
replicator copies it to the provider, whose controller signs it and decides the resources;
the answer comes back and becomes an Identity and a kubeconfig Secret on this cluster.
Idempotent: the same request again changes nothing. With --remote-kubeconfig a provider
without a controller is served in-process for the command's duration.`,
		Example: `  liqo-auth-tui create resourceslice my-slice --remote-cluster-id cl-provider --cpu 4 --memory 8Gi --pods 30`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return opts.Run(cmd.Context())
		},
	}
	addRemoteClusterIDFlag(cmd, &opts.ProviderID, "provider")
	addSliceFlags(cmd.Flags(), &opts.Slice)
	addRemoteFlags(cmd, &opts.Remote)
	addEngineFlags(cmd, &opts.Engine)
	cmd.Flags().DurationVar(&opts.StepTimeout, "step-timeout", time.Minute, "how long each wait may take")
	return cmd
}

// Run creates the slice and waits for the provider's answer.
func (o *CreateResourceSliceOptions) Run(ctx context.Context) error {
	// The wizard's form runs the same check: one verdict, one message.
	req := o.Slice.request(o.Name, o.ProviderID)
	if err := artifact.CheckSliceRequest(req); err != nil {
		return &UsageError{Err: err}
	}
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	consumer, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	var provider *flows.Cluster
	if o.Remote.Kubeconfig != "" || o.Remote.Context != "" {
		if provider, err = o.connectReachable(ctx, o.Remote); err != nil {
			return flows.Scoped(handshake.Remote, err)
		}
	}
	return o.create(ctx, consumer, provider, req)
}

// create runs the flow and reports the outcome (shared with --batch).
func (o *CreateResourceSliceOptions) create(ctx context.Context, consumer, provider *flows.Cluster, req artifact.SliceRequest) error {
	engine, err := o.Engine.options()
	if err != nil {
		return err
	}
	st, err := flows.CreateResourceSlice(ctx, consumer, req, flows.SliceOptions{Wait: true, StepTimeout: o.StepTimeout, Engine: engine, Provider: provider}, o.Printer.sink)
	if st != nil {
		// The provider's answer, a denial too (then err says what was
		// denied and what to do, and the command fails).
		o.reportSlice(st)
	}
	return err
}

func (o *Options) reportSlice(st *flows.SliceStatus) {
	resources := st.Resources
	if resources == "" {
		resources = "left to the provider's plugins (class " + st.Class + ")"
	}
	kubeconfig := "; kubeconfig Secret " + st.KubeconfigSecret
	if st.KubeconfigSecret == "" {
		kubeconfig = "; no kubeconfig Secret"
	}
	o.Printer.Info(handshake.NoScope, "ResourceSlice %s: authentication %s, resources %s%s%s",
		st.Name, st.Authentication, resources, grantedSuffix(st.Granted), kubeconfig)
}

func grantedSuffix(granted map[string]string) string {
	if len(granted) == 0 {
		return ""
	}
	return " (" + formatQuantities(granted) + ")"
}

func formatQuantities(q map[string]string) string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + q[k]
	}
	return strings.Join(parts, ",")
}

// GetResourceSliceOptions: consumer side, show the slices and their state.
type GetResourceSliceOptions struct {
	*Options
	Name       string
	ProviderID string
	Output     string
}

func newGetResourceSliceCommand(o *Options) *cobra.Command {
	opts := &GetResourceSliceOptions{Options: o}
	cmd := &cobra.Command{
		Use:     "resourceslice [NAME]",
		Aliases: []string{"rs", "resourceslices", "rslice"},
		Short:   "Consumer: show this cluster's ResourceSlices, what the providers answered and their kubeconfig Secrets",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Name = args[0]
			}
			return opts.Run(cmd.Context())
		},
	}
	cmd.Flags().StringVar(&opts.ProviderID, "remote-cluster-id", "", "only the slices of this provider")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "table", "output format: table, yaml or json")
	return cmd
}

// Run lists or shows the slices.
func (o *GetResourceSliceOptions) Run(ctx context.Context) error {
	if err := checkOutputFormat(o.Output, "table", "yaml", "json"); err != nil {
		return err
	}
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	consumer, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	var list []flows.SliceStatus
	if o.Name != "" {
		st, err := flows.GetResourceSlice(ctx, consumer, o.Name, o.ProviderID)
		if err != nil {
			return err
		}
		if o.Output != "table" {
			return o.printObject(o.Output, st)
		}
		list = []flows.SliceStatus{*st}
	} else if list, err = flows.ListResourceSlices(ctx, consumer, o.ProviderID); err != nil {
		return err
	}
	if o.Output != "table" {
		if list == nil {
			list = []flows.SliceStatus{} // [] rather than null
		}
		return o.printObject(o.Output, list)
	}
	if len(list) == 0 {
		o.Printer.Info(handshake.NoScope, "No ResourceSlices on this cluster: ask a provider with `liqo-auth-tui create resourceslice NAME --remote-cluster-id <provider>`")
		return nil
	}
	w := tabwriter.NewWriter(o.Printer.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tPROVIDER\tCLASS\tAUTHENTICATION\tRESOURCES\tREQUESTED\tGRANTED\tKUBECONFIG\tEXPIRES")
	for _, st := range list {
		expires := "-"
		if !st.NotAfter.IsZero() {
			expires = st.NotAfter.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", st.Name, st.ProviderID, dash(st.Class), dash(st.Authentication), dash(st.ResourcesShown()),
			dash(formatQuantities(st.Requested)), dash(formatQuantities(st.Granted)), dash(st.KubeconfigSecret), expires)
	}
	return w.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// DeleteResourceSliceOptions: consumer side, give a slice back.
type DeleteResourceSliceOptions struct {
	*Options
	Name       string
	ProviderID string
}

func newDeleteResourceSliceCommand(o *Options) *cobra.Command {
	opts := &DeleteResourceSliceOptions{Options: o}
	cmd := &cobra.Command{
		Use:     "resourceslice NAME",
		Aliases: []string{"rs", "resourceslices", "rslice"},
		Short:   "Consumer: delete a ResourceSlice (its Identity and kubeconfig Secret go with it)",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return opts.Run(cmd.Context())
		},
	}
	addRemoteClusterIDFlag(cmd, &opts.ProviderID, "provider")
	return cmd
}

// Run deletes the slice.
func (o *DeleteResourceSliceOptions) Run(ctx context.Context) error {
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	consumer, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	if err := flows.DeleteResourceSlice(ctx, consumer, o.Name, o.ProviderID); err != nil {
		return err
	}
	o.Printer.Info(handshake.NoScope, "ResourceSlice %s of provider %s deleted, with its Identity and kubeconfig Secret", o.Name, o.ProviderID)
	return nil
}
