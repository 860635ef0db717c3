{{/* The chart's name, or nameOverride: app.kubernetes.io/name. */}}
{{- define "mazziere.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The release's base name, as `helm create` makes it: fullnameOverride, else the release name where it holds the
chart's name (release "mazziere": "mazziere", the Kustomize manifests' names), else <release>-<name>. Every object
is named from it, so two releases live in one namespace side by side. 63 characters at most (a DNS label).
*/}}
{{- define "mazziere.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* helm.sh/chart: the chart's name and version. */}}
{{- define "mazziere.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The name of a component's Deployment, Service, disruption budget and autoscaler: the fullname for the engine,
<fullname>-gateway and <fullname>-host for the others. Called with (dict "root" $ "component" C).
*/}}
{{- define "mazziere.componentName" -}}
{{- $fullname := include "mazziere.fullname" .root -}}
{{- if eq .component "engine" }}{{ $fullname }}{{ else }}{{ printf "%s-%s" $fullname .component | trunc 63 | trimSuffix "-" }}{{ end }}
{{- end }}

{{/* The engine pods' headless Service, which the gateway and the host call round robin. */}}
{{- define "mazziere.engineTarget" -}}
dns:///{{ include "mazziere.fullname" . }}-headless:50051
{{- end }}

{{/*
The labels of an object of a component (engine, gateway, host), as the Kustomize manifests set them, with the
release's (instance, chart, version) as `helm create` sets them. No app.kubernetes.io/managed-by: `helm install`
sets it to Helm itself. Called with (dict "root" $ "component" C).
*/}}
{{- define "mazziere.labels" -}}
helm.sh/chart: {{ include "mazziere.chart" .root }}
{{ include "mazziere.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/part-of: mazziere
{{- end }}

{{/*
The labels a component's selectors match (and its pods carry): the release's instance among them, so a release
never selects another's pods. Called with (dict "root" $ "component" C).
*/}}
{{- define "mazziere.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mazziere.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* The service account of every pod: serviceAccount.name, else the fullname when the chart makes it. */}}
{{- define "mazziere.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "mazziere.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
A pod template's labels (a component's selector labels and podLabels) and annotations (the scrape annotations
and podAnnotations). Called with (dict "root" $ "component" C "labels" INCLUDE) where labels names the helper of
the template's labels (mazziere.labels or mazziere.selectorLabels).
*/}}
{{- define "mazziere.podMetadata" -}}
labels:
  {{- include .labels . | nindent 2 }}
  {{- with .root.Values.podLabels }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
annotations:
  {{- include "mazziere.scrapeAnnotations" .root | nindent 2 }}
  {{- with .root.Values.podAnnotations }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}

{{/* The image of every container. */}}
{{- define "mazziere.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* The ConfigMap's data: .Values.config as strings. */}}
{{- define "mazziere.configData" -}}
{{- $data := dict -}}
{{- range $key, $value := .Values.config -}}
{{- $_ := set $data $key (toString $value) -}}
{{- end -}}
{{- toJson $data -}}
{{- end }}

{{/*
The ConfigMap's name, mazziere-config-<hash>, with the hash kustomize's configMapGenerator gives it: the first ten
hex digits of the sha256 of {"data":...,"kind":"ConfigMap","name":""} (Go's JSON, keys sorted; kustomize reads no
name there), with 0, 1, 3, a, e spelt g, h, k, m, t. The same content has the same name as in the overlay, and a
change of content a new name, which rolls the pods.
*/}}
{{- define "mazziere.configName" -}}
{{- $encoded := dict "data" (include "mazziere.configData" . | fromJson) "kind" "ConfigMap" "name" "" | toJson -}}
{{- $hash := sha256sum $encoded | trunc 10 -}}
{{ include "mazziere.fullname" . }}-config-{{ $hash | replace "0" "g" | replace "1" "h" | replace "3" "k" | replace "a" "m" | replace "e" "t" }}
{{- end }}

{{/* The pod's security context (the image's user 10001) and the container's: the Pod Security Standard restricted. */}}
{{- define "mazziere.podSecurityContext" -}}
securityContext:
  runAsNonRoot: true
  runAsUser: 10001
  runAsGroup: 10001
  fsGroup: 10001
  seccompProfile:
    type: RuntimeDefault
{{- end }}

{{- define "mazziere.containerSecurityContext" -}}
securityContext:
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  runAsNonRoot: true
  privileged: false
  capabilities:
    drop: ["ALL"]
{{- end }}

{{/*
What every pod shares: its service account (no token unless serviceAccount.automount), grace period, security, pull
secrets and placement (nodeSelector, affinity, tolerations).
*/}}
{{- define "mazziere.podCommon" -}}
serviceAccountName: {{ include "mazziere.serviceAccountName" . }}
automountServiceAccountToken: {{ .Values.serviceAccount.automount }}
terminationGracePeriodSeconds: {{ .Values.terminationGracePeriodSeconds }}
{{ include "mazziere.podSecurityContext" . }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
Spread a component's pods over nodes (spreadByNode) and, where zone is true, zones (always ScheduleAnyway: nodes
without a zone label would otherwise take no pod). Called with (dict "root" $ "component" NAME "zone" BOOL).
*/}}
{{- define "mazziere.topologySpread" -}}
topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: {{ .root.Values.spreadByNode }}
    nodeTaintsPolicy: Honor
    labelSelector:
      matchLabels:
        {{- include "mazziere.selectorLabels" . | nindent 8 }}
    matchLabelKeys:
      - pod-template-hash
  {{- if .zone }}
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- include "mazziere.selectorLabels" . | nindent 8 }}
    matchLabelKeys:
      - pod-template-hash
  {{- end }}
{{- end }}

{{/* The pod template's scrape annotations, for a Prometheus that discovers pods by annotation. */}}
{{- define "mazziere.scrapeAnnotations" -}}
prometheus.io/scrape: "true"
prometheus.io/port: "9090"
prometheus.io/path: /metrics
{{- end }}

{{/* The engine's and the host's probes: the gRPC health service of the process, on the gRPC port. */}}
{{- define "mazziere.grpcProbes" -}}
startupProbe:
  grpc:
    port: 50051
  periodSeconds: 2
  failureThreshold: 30
readinessProbe:
  grpc:
    port: 50051
  periodSeconds: 5
  timeoutSeconds: 2
  failureThreshold: 2
livenessProbe:
  grpc:
    port: 50051
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
{{- end }}

{{/* The three ports of `mazziere serve`. */}}
{{- define "mazziere.servePorts" -}}
ports:
  - name: grpc
    containerPort: 50051
    protocol: TCP
  - name: http
    containerPort: 8080
    protocol: TCP
  - name: metrics
    containerPort: 9090
    protocol: TCP
{{- end }}

{{/* The sealing keys' volume: the Secret's key as the file seal-keys. */}}
{{- define "mazziere.sealKeysVolume" -}}
- name: seal-keys
  secret:
    secretName: {{ .Values.sealKeys.secretName }}
    defaultMode: 0440
    items:
      - key: {{ .Values.sealKeys.key }}
        path: seal-keys
{{- end }}

{{/* A small scratch /tmp in memory, for libraries that expect one. */}}
{{- define "mazziere.tmpVolume" -}}
- name: tmp
  emptyDir:
    medium: Memory
    sizeLimit: 16Mi
{{- end }}

{{/*
The OTEL_* variables of a container when tracing is on, its service name given. Called with
(dict "root" $ "service" NAME).
*/}}
{{- define "mazziere.tracingEnv" -}}
{{- $tracing := .root.Values.tracing -}}
{{- if $tracing.enabled -}}
- name: OTEL_SERVICE_NAME
  value: {{ .service }}
- name: OTEL_TRACES_EXPORTER
  value: otlp
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ required "tracing.endpoint is required when tracing.enabled is true" $tracing.endpoint | quote }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ $tracing.protocol | quote }}
- name: OTEL_TRACES_SAMPLER
  value: {{ $tracing.sampler | quote }}
{{- if $tracing.samplerArg }}
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ $tracing.samplerArg | toString | quote }}
{{- end }}
{{- with $tracing.resourceAttributes }}
{{- $pairs := list }}
{{- range $key, $value := . }}
{{- $pairs = append $pairs (printf "%s=%v" $key $value) }}
{{- end }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ join "," $pairs | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/* The NetworkPolicy egress rule to the trace collector, when tracing is on. */}}
{{- define "mazziere.collectorEgress" -}}
{{- $tracing := .Values.tracing -}}
{{- if $tracing.enabled -}}
# The trace collector (OTLP).
- ports:
    - port: {{ $tracing.collector.port }}
      protocol: TCP
  {{- with $tracing.collector.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end }}

{{/* An autoscaler of a component's Deployment on CPU. Called with (dict "root" $ "name" NAME "component" C "scaling" VALUES). */}}
{{- define "mazziere.autoscaler" -}}
{{- if lt (int .scaling.maxReplicas) (int .scaling.minReplicas) }}
{{- fail (printf "%s: maxReplicas is below minReplicas" .name) }}
{{- end -}}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ .name }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "mazziere.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ .name }}
  minReplicas: {{ .scaling.minReplicas }}
  maxReplicas: {{ .scaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ .scaling.targetCPUUtilizationPercentage }}
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 300
      policies:
        - type: Pods
          value: 1
          periodSeconds: 60
{{- end }}

{{/* A disruption budget of one pod at a time. Called with (dict "root" $ "name" NAME "component" C). */}}
{{- define "mazziere.disruptionBudget" -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ .name }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "mazziere.labels" . | nindent 4 }}
spec:
  maxUnavailable: 1
  unhealthyPodEvictionPolicy: AlwaysAllow
  selector:
    matchLabels:
      {{- include "mazziere.selectorLabels" . | nindent 6 }}
{{- end }}

{{/* Whether the host runs on the embedded SQLite store (one replica). */}}
{{- define "mazziere.hostOnSqlite" -}}
{{- if eq .Values.host.store.type "sqlite" }}true{{ end }}
{{- end }}

{{/* MAZZIERE_HOST_REPLICAS: the most host replicas that may share the store. */}}
{{- define "mazziere.hostReplicas" -}}
{{- if include "mazziere.hostOnSqlite" . -}}
1
{{- else if .Values.host.autoscaling.enabled -}}
{{ .Values.host.autoscaling.maxReplicas }}
{{- else -}}
{{ .Values.host.replicas }}
{{- end }}
{{- end }}
