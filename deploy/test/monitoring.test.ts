import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderKustomization } from './kubectl-kustomize.renderer.js';
import { find } from './manifest.inspector.js';
import { selects } from './network-policy.evaluator.js';
import { REPO_ROOT } from './process.catalog.js';

const objects = renderKustomization(join(REPO_ROOT, 'deploy/k8s/overlays/prod'));
const DASHBOARD = readFileSync(join(REPO_ROOT, 'deploy/k8s/components/monitoring/inkwell-dashboard.json'), 'utf8');
const GUIDE = readFileSync(join(REPO_ROOT, 'deploy/README.md'), 'utf8');

/** Metric names used by a PromQL expression: identifiers that are not functions, keywords, label names or numbers. */
function metricNames(expression: string): string[] {
  const withoutLabels = expression
    .replace(/\{[^}]*\}/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/"[^"]*"/g, '');
  return [...withoutLabels.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)].map((match) => match[1] as string).filter((name) => !/^(and|or|unless|bool|offset|e\d*)$/.test(name) && !/^\d/.test(name));
}

/** Names of the metrics Inkwell's own code registers (`name: '<metric>'` in gateway, services and packages sources). */
function registeredMetrics(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      if (entry === 'node_modules' || entry === 'dist' || entry === 'gen') continue;
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.ts$/.test(entry) && !/\.test\.ts$/.test(entry)) for (const match of readFileSync(path, 'utf8').matchAll(/\bname: '([a-z_:][a-z0-9_:]*)'/g)) names.add(match[1] as string);
    }
  };
  for (const root of ['gateway/src', 'services', 'packages']) walk(join(REPO_ROOT, root));
  return names;
}

describe('deploy/k8s/components/monitoring (prod)', () => {
  it('scrapes every process that serves /metrics through a ServiceMonitor on its Service port', () => {
    const monitors = objects.filter((object) => object.kind === 'ServiceMonitor');
    const scraped = objects.filter((object) => object.kind === 'Deployment' && (object.spec as { template: { metadata: { annotations?: Record<string, string> } } }).template.metadata.annotations?.['prometheus.io/scrape'] === 'true');
    expect(scraped.length).toBeGreaterThan(0);
    for (const deployment of scraped) {
      const service = find(objects, 'Service', deployment.metadata.name);
      const monitor = monitors.find((candidate) => selects((candidate.spec as { selector: { matchLabels: Record<string, string> } }).selector, service.metadata.labels ?? {}));
      expect(monitor, `a ServiceMonitor for ${deployment.metadata.name}`).toBeDefined();
      const ports = (service.spec as { ports: { name: string }[] }).ports.map((port) => port.name);
      for (const endpoint of (monitor?.spec as { endpoints: { port: string; path: string }[] }).endpoints) {
        expect(ports).toContain(endpoint.port);
        expect(endpoint.path).toBe('/metrics');
      }
    }
  });

  it('alerts and charts only on metrics Inkwell registers, Node.js defaults, or ones deploy/README.md lists as coming from elsewhere or still needed', () => {
    const rules = objects.filter((object) => object.kind === 'PrometheusRule').flatMap((object) => (object.spec as { groups: { rules: { alert: string; expr: string }[] }[] }).groups.flatMap((group) => group.rules));
    const alerts = rules.map((rule) => rule.alert);
    for (const needed of ['InkwellApiErrorRate', 'InkwellApiLatencyP99', 'InkwellConsumerLag', 'InkwellOutboxBacklog']) expect(alerts).toContain(needed);
    const dashboard = JSON.parse(DASHBOARD) as { panels: { targets: { expr: string }[] }[] };
    const expressions = [...rules.map((rule) => rule.expr), ...dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr))];
    const known = registeredMetrics();
    const unknown = new Set<string>();
    for (const name of expressions.flatMap(metricNames)) {
      const base = name.replace(/_(bucket|sum|count)$/, '');
      if (known.has(name) || known.has(base) || /^(process|nodejs)_/.test(name)) continue;
      if (!GUIDE.includes(`\`${name}\``)) unknown.add(name);
    }
    expect([...unknown], 'metrics that neither exist nor appear in deploy/README.md').toEqual([]);
  });
});
