{{/* Labels every object of the release carries. */}}
{{- define "orkestra.labels" -}}
app.kubernetes.io/name: orkestra
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The selector labels (a subset of the labels that never changes between upgrades). */}}
{{- define "orkestra.selectorLabels" -}}
app.kubernetes.io/name: orkestra
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "orkestra.serviceAccountName" -}}
{{- default .Release.Name .Values.serviceAccount.name -}}
{{- end -}}

{{/* The image reference: repository@digest when a digest is set, else repository:tag. */}}
{{- define "orkestra.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{- define "orkestra.katalogConfigMap" -}}
{{- default (printf "%s-katalog" .Release.Name) .Values.katalog.existingConfigMap.name -}}
{{- end -}}

{{- define "orkestra.katalogKey" -}}
{{- if .Values.katalog.existingConfigMap.name -}}
{{- default "katalog.yaml" .Values.katalog.existingConfigMap.key -}}
{{- else -}}
katalog.yaml
{{- end -}}
{{- end -}}

{{/* The webhook endpoint runs: asked for (conversion, admission rules) or sharded (every replica serves the shard-assignment webhook, ADR 0110). */}}
{{- define "orkestra.webhookServed" -}}
{{- if or .Values.webhook.enabled .Values.sharding.enabled -}}true{{- end -}}
{{- end -}}
