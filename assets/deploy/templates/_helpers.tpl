{{/*
Names are fixed, not derived from the release: the controller's
ClusterRole is cluster-wide and its Lease is found by name, so a cluster
runs one controller, in its Liqo namespace (the release namespace).
*/}}
{{- define "liqo-auth-controller.name" -}}
liqo-auth-controller
{{- end }}

{{/* Labels every object carries; the selector uses only the name. */}}
{{- define "liqo-auth-controller.selectorLabels" -}}
app.kubernetes.io/name: {{ include "liqo-auth-controller.name" . }}
{{- end }}

{{/*
Common labels. The last four are Helm's: hack/generate.sh leaves them out
of the plain manifests in controller/.
*/}}
{{- define "liqo-auth-controller.labels" -}}
{{ include "liqo-auth-controller.selectorLabels" . }}
app.kubernetes.io/part-of: liqo
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end }}

{{- define "liqo-auth-controller.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* The port of an address such as ":8080" or "0.0.0.0:8080". */}}
{{- define "liqo-auth-controller.port" -}}
{{- $parts := splitList ":" . -}}
{{- last $parts | int -}}
{{- end }}

{{/* --default-node-resources: name=quantity pairs sorted by name. */}}
{{- define "liqo-auth-controller.defaultNodeResources" -}}
{{- $pairs := list -}}
{{- range $name, $quantity := . -}}
{{- if not (kindIs "invalid" $quantity) -}}
{{- $pairs = append $pairs (printf "%s=%v" $name $quantity) -}}
{{- end -}}
{{- end -}}
{{- join "," $pairs -}}
{{- end }}

{{/* A class list in Liqo's flag syntax: nginx;default,traefik. */}}
{{- define "liqo-auth-controller.classList" -}}
{{- $items := list -}}
{{- range . -}}
{{- $items = append $items (printf "%s%s" .name (ternary ";default" "" (default false .default))) -}}
{{- end -}}
{{- join "," $items -}}
{{- end }}

{{/* Labels in Liqo's --cluster-labels syntax, sorted by key. */}}
{{- define "liqo-auth-controller.labelList" -}}
{{- $pairs := list -}}
{{- range $key, $value := . -}}
{{- $pairs = append $pairs (printf "%s=%s" $key $value) -}}
{{- end -}}
{{- join "," $pairs -}}
{{- end }}
