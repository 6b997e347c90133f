#!/usr/bin/env bash
# The install and build steps of deploy/Dockerfile, one subcommand per stage. The Dockerfile runs
# them, and deploy/image/verify runs the very same commands on a machine without Docker.
#
#   steps.sh prune <workspace> <out>    in the repository: two pruned copies of the monorepo
#                                        <out>/build   (what building <workspace> needs)
#                                        <out>/runtime (only its runtime workspaces, no devDependencies)
#   steps.sh install-build              in <out>/build/json: npm ci, every dependency as locked
#   steps.sh build <workspace>          in the build tree: turbo build of <workspace> and its deps
#   steps.sh install-runtime            in <out>/runtime/json: npm ci --omit=dev, as locked
#   steps.sh assemble <built> <release> copies each runtime workspace's dist/ (and the gateway's
#                                        supergraph.graphql) from the built tree into the release
set -euo pipefail

NPM_FLAGS=(--no-audit --no-fund --ignore-scripts)
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 npm_config_update_notifier=false

step=${1:?usage: steps.sh prune|install-build|build|install-runtime|assemble ...}
shift
case "$step" in
  prune)
    ws=${1:?workspace, e.g. @convo/tickets} out=${2:?output folder}
    turbo=(${TURBO:-turbo})
    # The gateway's build composes the supergraph from the services' subgraph.graphql files
    # (gateway/src/compose-supergraph.ts): its build tree holds the services, its runtime tree not.
    build_scope=("$ws")
    if [ "$ws" = "@convo/gateway" ]; then
      build_scope+=(@convo/tickets @convo/messaging @convo/channel-engines @convo/social-config @convo/tenants)
    fi
    "${turbo[@]}" prune "${build_scope[@]}" --docker --out-dir "$out/build"
    "${turbo[@]}" prune "$ws" --docker --production --out-dir "$out/runtime"
    # The runtime tree keeps only the workspaces <workspace> runs, but their package.json files
    # still list devDependencies, some on workspaces that are not there: npm would look for those
    # on the registry even with --omit=dev. A runtime install has no use for them.
    (cd "$out/runtime/json" && npm pkg delete devDependencies --workspaces --include-workspace-root)
    ;;
  install-build)
    # --ignore-scripts: native tools (turbo, swc) come as platform packages; npm 11 skips
    # dependency scripts anyway, npm 10 (in node:22) would run them.
    npm ci "${NPM_FLAGS[@]}"
    ;;
  build)
    ws=${1:?workspace}
    npx --offline turbo run build --filter="$ws" --output-logs=errors-only
    ;;
  install-runtime)
    npm ci --omit=dev "${NPM_FLAGS[@]}"
    ;;
  assemble)
    built=${1:?built tree} release=${2:?release folder}
    found=0
    while IFS= read -r manifest; do
      dir=$(dirname "$manifest")
      [ -d "$built/$dir/dist" ] || { echo "assemble: $built/$dir/dist is missing (not built?)" >&2; exit 1; }
      cp -R "$built/$dir/dist" "$release/$dir/dist"
      if [ -f "$built/$dir/supergraph.graphql" ]; then cp "$built/$dir/supergraph.graphql" "$release/$dir/"; fi
      found=$((found + 1))
    done < <(cd "$release" && find . -mindepth 2 -name package.json -not -path '*/node_modules/*')
    [ "$found" -gt 0 ] || { echo "assemble: no workspace in $release" >&2; exit 1; }
    ;;
  *)
    echo "steps.sh: unknown step $step" >&2
    exit 2
    ;;
esac
