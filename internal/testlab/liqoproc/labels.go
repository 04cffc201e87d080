package liqoproc

// ChartLabels are the labels Liqo's Helm chart (release "liqo", the same in
// 0.x and 1.x: _helpers.tpl liqo.labels) puts on the component name of
// module, for the chart of version.
func ChartLabels(version, name, module string) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":       name,
		"app.kubernetes.io/instance":   "liqo-" + name,
		"app.kubernetes.io/component":  module,
		"app.kubernetes.io/part-of":    "liqo",
		"helm.sh/chart":                "liqo-" + version,
		"app.kubernetes.io/version":    version,
		"app.kubernetes.io/managed-by": "Helm",
	}
}
