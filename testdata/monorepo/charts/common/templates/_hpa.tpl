{{- define "common.hpa" -}}
{{- if .Values.autoscaling.enabled -}}
apiVersion: {{ if .Capabilities.APIVersions.Has "autoscaling/v2" }}autoscaling/v2{{ else }}autoscaling/v2beta2{{ end }}
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "common.name" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "common.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "common.name" . }}
  minReplicas: {{ .Values.autoscaling.minReplicas }}
  maxReplicas: {{ .Values.autoscaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ .Values.autoscaling.targetCPUUtilizationPercentage }}
{{- end -}}
{{- end -}}
