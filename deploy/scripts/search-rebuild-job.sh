#!/usr/bin/env bash
# Rebuilds the story search index in a cluster: runs `npm run search:rebuild`'s program
# (services/stories dist/cli/search-rebuild.js) once, as a Job made from the running stories
# Deployment's own pod spec, so it has the same image, ConfigMap, Secrets and security context.
# The service keeps serving from the old index until the new one is complete (docs/api/stories.md,
# "Search"). The image has no npm, so the Job runs node on the built file.
#
#   deploy/scripts/search-rebuild-job.sh <namespace>
#
# The Job's pods are labelled app.kubernetes.io/name=stories-search-rebuild, not stories: the
# stories Service must not send gRPC calls to them. The dev stores admit that label
# (components/dev-stores/network-policies.yaml); managed stores are reached through
# inkwell-allow-stores-egress like every Inkwell pod.
#
# Needs kubectl and jq. Waits for the Job and prints its log; exit 1 if it failed.
set -euo pipefail
namespace=${1:?usage: search-rebuild-job.sh <namespace>}
name="stories-search-rebuild-$(date -u +%Y%m%d%H%M%S)"
kubectl -n "$namespace" get deployment stories -o json | jq --arg name "$name" '{
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name: $name, labels: { "app.kubernetes.io/name": "stories-search-rebuild", "app.kubernetes.io/part-of": "inkwell" } },
  spec: {
    backoffLimit: 0,
    ttlSecondsAfterFinished: 86400,
    template: {


      metadata: { labels: { "app.kubernetes.io/name": "stories-search-rebuild", "app.kubernetes.io/part-of": "inkwell" } },
      spec: (.spec.template.spec
        | .restartPolicy = "Never"
        | .priorityClassName = "inkwell-batch"
        | .topologySpreadConstraints = []
        | .containers = [.containers[0]
            | .name = "search-rebuild"
            | .command = ["node", "dist/cli/search-rebuild.js"]
            | del(.ports, .startupProbe, .readinessProbe, .livenessProbe, .lifecycle)])
    }
  }
}' | kubectl -n "$namespace" apply -f -
if kubectl -n "$namespace" wait --for=condition=complete --timeout=6h "job/$name"; then status=0; else status=1; fi
kubectl -n "$namespace" logs "job/$name" --tail=50 || true
exit "$status"
