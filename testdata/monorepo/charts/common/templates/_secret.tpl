{{/* common.secrets: one Secret per .Values.secrets entry. Its values must come from a SOPS-encrypted .secret.yaml file. */}}
{{- define "common.secrets" -}}
{{- $root := . -}}
{{- range $name, $data := .Values.secrets }}
---
apiVersion: v1
kind: Secret
metadata:
  name: {{ $name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "common.labels" $root | nindent 4 }}
type: Opaque
stringData:
  {{- range $k, $v := $data }}
  {{ $k }}: {{ $v | toString | quote }}
  {{- end }}
{{- end }}
{{- end -}}
