package cmd

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// GenerateTenantOptions: consumer side, sign the nonce and emit the Tenant.
type GenerateTenantOptions struct {
	*Options
	ProviderID  string
	Nonce       string
	NonceFile   string
	Proxy       ProxyFlags
	OutputFile  string
	Output      string
	StepTimeout time.Duration
	Engine      EngineFlags
}

func newGenerateTenantCommand(o *Options) *cobra.Command {
	t := &GenerateTenantOptions{Options: o}
	tenant := &cobra.Command{
		Use:   "tenant",
		Short: "Consumer: sign the provider's nonce and print the Tenant to send to the provider",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return t.Run(cmd.Context()) },
	}
	addRemoteClusterIDFlag(tenant, &t.ProviderID, "provider")
	tenant.Flags().StringVar(&t.Nonce, "nonce", "", "the provider's nonce")
	tenant.Flags().StringVar(&t.NonceFile, "nonce-file", "", "file holding the provider's nonce (- = stdin)")
	tenant.MarkFlagsMutuallyExclusive("nonce", "nonce-file")
	addProxyFlags(tenant, &t.Proxy, false)
	tenant.Flags().StringVar(&t.OutputFile, "output-file", "", "write the Tenant to this file (mode 0600) instead of stdout")
	addOutputFlag(tenant, &t.Output)
	addEngineFlags(tenant, &t.Engine)
	tenant.Flags().DurationVar(&t.StepTimeout, "step-timeout", time.Minute, "how long each wait may take")
	return tenant
}

// Run generates the Tenant.
func (o *GenerateTenantOptions) Run(ctx context.Context) error {
	// Usage mistakes first, before dialing the cluster.
	if err := o.Proxy.check(false); err != nil {
		return err
	}
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	consumer, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	return o.generate(ctx, consumer, false)
}

// generate signs the nonce, writes the Tenant and tells the provider's
// next command (the --batch one with batch).
func (o *GenerateTenantOptions) generate(ctx context.Context, consumer *flows.Cluster, batch bool) error {
	if err := checkOutputFormat(o.Output, "", "yaml", "json"); err != nil {
		return err
	}
	if err := o.Proxy.check(false); err != nil {
		return err
	}
	nonce, err := o.nonce()
	if err != nil {
		return err
	}
	engine, err := o.Engine.options()
	if err != nil {
		return err
	}
	// Every input is checked: only now may a progress line appear.
	proxyURL, err := o.Proxy.resolve(o.Printer, false)
	if err != nil {
		return err
	}
	t, err := flows.GenerateTenant(ctx, flows.ConsumerOptions{Consumer: consumer, ProviderID: o.ProviderID, Nonce: nonce,
		ProxyURL: proxyURL, StepTimeout: o.StepTimeout, Engine: engine}, o.Printer.sink)
	if err != nil {
		return err
	}
	data, err := artifact.Encode(t, o.Output)
	if err != nil {
		return err
	}
	if err := o.writeArtifact(o.OutputFile, data); err != nil {
		return err
	}
	fp, err := artifact.TenantFingerprint(t)
	if err != nil {
		return err
	}
	o.Printer.Info(handshake.NoScope, "Tenant for provider %s generated (consumer key %s)", o.ProviderID, fp)
	code, err := flows.ConsumerTenantCode(ctx, consumer, t, o.ProviderID)
	o.printCode(code, err, handshake.KindTenant, true)
	o.Printer.Info(handshake.NoScope, "%s", handshake.Handoff{Kind: handshake.KindTenant, SenderID: t.Spec.ClusterID, ReceiverID: o.ProviderID, File: o.OutputFile, Batch: batch, Pin: fp}.Line())
	return nil
}

// nonce reads the nonce from --nonce or --nonce-file ("" when neither).
func (o *GenerateTenantOptions) nonce() (string, error) {
	switch {
	case o.NonceFile != "":
		data, err := o.readInput(o.NonceFile, "nonce file")
		if err != nil {
			return "", err
		}
		return artifact.ParseNonce(data)
	case o.Nonce != "":
		return artifact.ParseNonce([]byte(o.Nonce))
	}
	return "", nil
}

// ApplyTenantOptions: provider side, validate and apply a Tenant.
type ApplyTenantOptions struct {
	*Options
	File        string
	Output      string
	StepTimeout time.Duration
	Engine      EngineFlags
	// ConsumerFingerprint pins the consumer's key (`info` there shows it).
	ConsumerFingerprint string
	// consumerID, when set (--batch --remote-cluster-id), is the consumer
	// the Tenant must come from.
	consumerID string
}

func newApplyTenantCommand(o *Options) *cobra.Command {
	t := &ApplyTenantOptions{Options: o}
	tenant := &cobra.Command{
		Use:   "tenant",
		Short: "Provider: validate a consumer's Tenant, apply it and wait for the provider to accept it",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return t.Run(cmd.Context()) },
	}
	tenant.Flags().StringVarP(&t.File, "filename", "f", "", "file holding the Tenant (- = stdin)")
	_ = tenant.MarkFlagRequired("filename")
	addConsumerPinFlag(tenant.Flags(), &t.ConsumerFingerprint)
	addOutputFlag(tenant, &t.Output)
	addEngineFlags(tenant, &t.Engine)
	tenant.Flags().DurationVar(&t.StepTimeout, "step-timeout", time.Minute, "how long each wait may take")
	return tenant
}

// Run applies the Tenant.
func (o *ApplyTenantOptions) Run(ctx context.Context) error {
	if _, err := parsePin(consumerPinFlag, o.ConsumerFingerprint); err != nil {
		return err // a usage mistake, before dialing the cluster
	}
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	provider, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	if err := o.apply(ctx, provider); err != nil {
		return err
	}
	return nil
}

// apply validates and applies the Tenant file and waits for its status.
func (o *ApplyTenantOptions) apply(ctx context.Context, provider *flows.Cluster) error {
	pin, err := parsePin(consumerPinFlag, o.ConsumerFingerprint)
	if err != nil {
		return err
	}
	engine, data, err := o.applyInput(o.Output, o.Engine, o.File, "Tenant")
	if err != nil {
		return err
	}
	t, err := artifact.DecodeTenant(data)
	if err != nil {
		return err
	}
	if o.consumerID != "" && t.Spec.ClusterID != o.consumerID {
		return fmt.Errorf("the Tenant is from consumer %s, not from --remote-cluster-id %s: pass the Tenant of %s", t.Spec.ClusterID, o.consumerID, o.consumerID)
	}
	applied, err := flows.ApplyTenant(ctx, flows.ProviderOptions{Provider: provider, ConsumerID: t.Spec.ClusterID, StepTimeout: o.StepTimeout, Engine: engine,
		ConsumerFingerprint: pin}, t, o.Printer.sink)
	if err != nil {
		return err // a refusal is the one line: no code for what was not applied
	}
	code, err := flows.ProviderTenantCode(ctx, provider, t)
	o.printCode(code, err, handshake.KindTenant, false)
	fp, err := artifact.TenantFingerprint(applied)
	if err != nil {
		return err
	}
	if pin != "" {
		o.Printer.Info(handshake.NoScope, "Tenant of consumer %s accepted (consumer key %s, as pinned)", t.Spec.ClusterID, fp)
	} else {
		o.Printer.Info(handshake.NoScope, "Tenant of consumer %s accepted (consumer key %s: compare it with the consumer's admin; --%s pins it)", t.Spec.ClusterID, fp, consumerPinFlag)
	}
	if o.Output != "" {
		return o.printObject(o.Output, applied)
	}
	return nil
}

// GetTenantOptions: provider side, show the consumers' Tenants, their
// condition and the ResourceSlices replicated from each.
type GetTenantOptions struct {
	*Options
	ConsumerID string
	Output     string
}

func newGetTenantCommand(o *Options) *cobra.Command {
	opts := &GetTenantOptions{Options: o}
	cmd := &cobra.Command{
		Use:     "tenant [CONSUMER_ID]",
		Aliases: []string{"tenants"},
		Short:   "Provider: show the consumers' Tenants, their condition (Active, Cordoned, Drained) and their ResourceSlices here",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.ConsumerID = args[0]
			}
			return opts.Run(cmd.Context())
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "table", "output format: table, yaml or json")
	return cmd
}

// tenantView is a TenantStatus as printed in YAML and JSON.
type tenantView struct {
	Name           string              `json:"name"`
	Namespace      string              `json:"namespace"`
	ConsumerID     string              `json:"consumerClusterID"`
	Condition      string              `json:"condition"`
	Authenticated  bool                `json:"authenticated"`
	ResourceSlices []providedSliceView `json:"resourceSlices,omitempty"`
}

type providedSliceView struct {
	Name      string `json:"name"`
	Resources string `json:"resources,omitempty"`
	Cordoned  bool   `json:"cordoned"`
}

// Run lists the Tenants, or shows one.
func (o *GetTenantOptions) Run(ctx context.Context) error {
	if err := checkOutputFormat(o.Output, "table", "yaml", "json"); err != nil {
		return err
	}
	if o.ConsumerID != "" {
		if err := flows.ValidateClusterID(o.ConsumerID); err != nil {
			return usagef("get tenant %s: the Tenant is named after the consumer's cluster ID: %v", o.ConsumerID, err)
		}
	}
	ctx, cancel := o.withTimeout(ctx)
	defer cancel()
	provider, err := o.connectReachable(ctx, o.Local)
	if err != nil {
		return err
	}
	list, err := flows.ListTenants(ctx, provider, o.ConsumerID)
	if err != nil {
		return err
	}
	if o.Output != "table" {
		views := make([]tenantView, len(list))
		for i, t := range list {
			views[i] = tenantView{Name: t.Name, Namespace: t.Namespace, ConsumerID: t.ConsumerID, Condition: t.Condition, Authenticated: t.Authenticated}
			for _, rs := range t.ResourceSlices {
				views[i].ResourceSlices = append(views[i].ResourceSlices, providedSliceView(rs))
			}
		}
		if o.ConsumerID != "" {
			return o.printObject(o.Output, views[0])
		}
		return o.printObject(o.Output, views)
	}
	if len(list) == 0 {
		o.Printer.Info(handshake.NoScope, "No Tenants on this cluster: a consumer's Tenant arrives with `liqo-auth-tui authenticate` or `liqo-auth-tui apply tenant`")
		return nil
	}
	w := tabwriter.NewWriter(o.Printer.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "CONSUMER\tNAMESPACE\tCONDITION\tAUTHENTICATED\tRESOURCESLICES")
	for _, t := range list {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", t.Name, t.Namespace, t.Condition, yesNo(t.Authenticated), dash(providedSlicesCell(t.ResourceSlices)))
	}
	return w.Flush()
}

// providedSlicesCell is "a (cordoned), b (Denied)": each slice with its cordon
// and a Resources decision other than Accepted.
func providedSlicesCell(slices []flows.ProvidedSlice) string {
	cells := make([]string, len(slices))
	for i, rs := range slices {
		var notes []string
		if rs.Cordoned {
			notes = append(notes, "cordoned")
		}
		if rs.Resources != "" && rs.Resources != "Accepted" {
			notes = append(notes, rs.Resources)
		}
		cells[i] = rs.Name
		if len(notes) > 0 {
			cells[i] += " (" + strings.Join(notes, ", ") + ")"
		}
	}
	return strings.Join(cells, ", ")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
