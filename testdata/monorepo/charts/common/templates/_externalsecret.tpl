{{/* common.externalsecrets: one ExternalSecret (External Secrets Operator, v1 API) per .Values.externalSecrets entry. */}}
{{- define "common.externalsecrets" -}}
{{- $root := . -}}
{{- range $i, $es := .Values.externalSecrets }}
{{- if $i }}
---
{{- end }}
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: {{ $es.name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "common.labels" $root | nindent 4 }}
spec:
  refreshInterval: {{ $es.refreshInterval | default "1h" }}
  secretStoreRef:
    kind: ClusterSecretStore
    name: {{ $es.store | default $root.Values.secretStore }}
  target:
    name: {{ $es.target | default $es.name }}
    creationPolicy: Owner
  data:
    {{- range $es.data }}
    - secretKey: {{ .secretKey }}
      remoteRef:
        key: {{ .key }}
        {{- with .property }}
        property: {{ . }}
        {{- end }}
    {{- end }}
{{- end }}
{{- end -}}
