# shellcheck shell=bash
# Shared by the side-by-side benchmark scripts (sourced from the module
# root, with $work set to their scratch folder).

# bench_setup builds repotool, and helm and sops from the module versions in
# go.mod, into $bin, and points SOPS at the test key and HOME and helm's
# folders inside $work, so nothing on the machine plays a part (but Go's
# build and module caches).
bench_setup() {
  : "${work:?bench_setup needs work, the scratch folder}"
  bin=$work/bin
  mkdir -p "$bin"
  # A binary the linker has just written can start with up to some 9 MB
  # more resident on this machine than a copy of it (how its pages sit in
  # the page cache): measure a copy, so that builds compare alike.
  go build -o "$bin/repotool.built" ./cmd/repotool
  cp "$bin/repotool.built" "$bin/repotool"
  rm "$bin/repotool.built"
  go build -o "$bin/helm" helm.sh/helm/v3/cmd/helm
  go build -o "$bin/sops" github.com/getsops/sops/v3/cmd/sops
  export SOPS_AGE_KEY_FILE=$PWD/testdata/age-TEST-ONLY.key
  # Go keeps its caches where they are: HOME moves below.
  GOCACHE=$(go env GOCACHE) GOMODCACHE=$(go env GOMODCACHE) GOPATH=$(go env GOPATH)
  export GOCACHE GOMODCACHE GOPATH
  export HOME=$work/home HELM_CACHE_HOME=$work/helm/cache HELM_CONFIG_HOME=$work/helm/config HELM_DATA_HOME=$work/helm/data
  mkdir -p "$HOME"
}

# now is the time in seconds; median the median of numbers, one a line;
# elapsed the seconds a command takes (its output and status ignored).
# bench_hydratable REPO commits a generated repository for hydrate, which
# reads a commit, with a .sops.yaml rule (the fixture's, copied by
# gensynth, gains it) that encrypts the hydrated manifests' Secrets for
# the test key's recipient.
bench_hydratable() {
  local repo=$1
  printf '  - path_regex: (^|/)manifest\\.yaml$\n    age: %s\n' "$(awk '/public key:/ {print $4}' "$SOPS_AGE_KEY_FILE")" >>"$repo/.sops.yaml"
  git -C "$repo" init -q
  git -C "$repo" add -A
  git -C "$repo" -c user.name=bench -c user.email=bench@example.com commit -qm dry
}

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
elapsed() { local t0 t1; t0=$(now); "$@" >/dev/null 2>&1 || true; t1=$(now); echo "$t1 - $t0" | bc; }

# The shell loop users ran before repotool (needs $bin/helm and $bin/sops):
#
#   old_render_loop REPO OUT [dep-build]
#
# Per target: `helm dependency build` of its chart when asked, `sops -d` of
# each secret values file onto disk, then `helm template` with the values
# files in layout order, into OUT/<cluster>/<namespace>.yaml.
old_render_loop() {
  local repo=$1 out=$2 deps=${3:-} tmp c ns chart f
  : "${bin:?old_render_loop needs bin, the folder holding helm and sops}"
  tmp=$(mktemp -d)
  for cdir in "$repo"/clusters/*/; do
    c=$(basename "$cdir")
    for tdir in "$cdir"*/; do
      ns=$(basename "$tdir")
      chart=$repo/namespaces/$ns
      if [ "$deps" = dep-build ]; then "$bin/helm" dependency build "$chart" >/dev/null; fi
      args=()
      for f in "$chart"/*values*.yaml; do case $f in */values.yaml|*.secret.yaml) ;; *) args+=(-f "$f");; esac; done
      for f in "$chart"/*.secret.yaml; do [ -e "$f" ] || continue; "$bin/sops" -d "$f" > "$tmp/$(basename "$f")"; args+=(-f "$tmp/$(basename "$f")"); done
      for f in "$tdir"*values*.yaml; do case $f in *.secret.yaml) ;; *) args+=(-f "$f");; esac; done
      for f in "$tdir"*.secret.yaml; do [ -e "$f" ] || continue; "$bin/sops" -d "$f" > "$tmp/c-$(basename "$f")"; args+=(-f "$tmp/c-$(basename "$f")"); done
      mkdir -p "$out/$c"
      "$bin/helm" template "$ns" "$chart" -n "$ns" --kube-version v1.33.0 --include-crds "${args[@]}" > "$out/$c/$ns.yaml"
      rm -f "$tmp"/*
    done
  done
  rm -rf "$tmp"
}

# p2_setup REPO picks the target P2 measures in a repository gensynth -real
# wrote with 200 clusters: cluster-107/ns-0003 (external-secrets, with a
# secret values file), whose secret values it decrypts into $work for
# helm_one beforehand (not timed). It sets c, ns, tdir, chart and p2_values.
#
#   p2_plugin [TOOL]that target as Argo CD's plugin renders it (render
#                   --argocd, process start included; TOOL defaults to
#                   repotool, in $bin)
#   helm_one        one helm template of the same chart and values
p2_setup() {
  c=cluster-107 ns=ns-0003
  tdir=$1/clusters/$c/$ns chart=$1/namespaces/$ns
  p2_values=()
  local f
  for f in "$chart"/common-values-*.yaml "$tdir"/*-values-*.yaml; do
    case $f in *.secret.yaml) ;; *) p2_values+=(-f "$f") ;; esac
  done
  for f in "$tdir"/*.secret.yaml; do
    [ -e "$f" ] || continue
    "$bin/sops" -d "$f" > "$work/$(basename "$f")"
    p2_values+=(-f "$work/$(basename "$f")")
  done
}
p2_plugin() {
  (cd "$tdir" && ARGOCD_APP_NAMESPACE=$ns ARGOCD_APP_SOURCE_PATH=clusters/$c/$ns \
    ARGOCD_ENV_CLUSTER=$c ARGOCD_ENV_NAMESPACE=$ns REPOTOOL_CLUSTER=$c "$bin/${1:-repotool}" render --argocd)
}
helm_one() { "$bin/helm" template "$ns" "$chart" -n "$ns" --kube-version v1.33.0 --include-crds "${p2_values[@]}"; }
