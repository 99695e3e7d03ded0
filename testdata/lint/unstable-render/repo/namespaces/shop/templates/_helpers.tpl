{{/* The webhook's serving certificate, made at render time. */}}
{{- define "shop.ca" -}}
{{- $ca := genCA "shop-ca" 365 -}}
{{ $ca.Cert | b64enc }}
{{- end }}
