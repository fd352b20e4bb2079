import { describe, expect, it } from 'vitest';
import {
  RECONCILE_TIME_BUCKETS,
  WORKQUEUE_DURATION_BUCKETS,
  createOperatorMetrics,
  metricSamples,
} from './metrics.js';
import type { MetricsSink } from './metrics.js';

/** The table of docs/reference/runtime.md §18.2: name → [type, labels]. */
const SPEC: Record<string, readonly [string, readonly string[]]> = {
  orkestra_rollout_phase: ['gauge', ['katalog', 'phase']],
  orkestra_shard_lease_held: ['gauge', ['katalog', 'shard']],
  orkestra_sharder_live_shards: ['gauge', ['katalog']],
  orkestra_sharder_objects: ['gauge', ['katalog']],
  orkestra_sharder_patches_total: ['counter', ['katalog', 'result']],
  orkestra_rollout_step: ['gauge', ['katalog']],
  orkestra_rollout_crs: ['gauge', ['katalog', 'revision']],
  orkestra_rollout_gate_failures_total: ['counter', ['katalog']],
  orkestra_rollout_rolled_back_total: ['counter', ['katalog']],
  controller_runtime_reconcile_total: ['counter', ['controller', 'result']],
  controller_runtime_reconcile_errors_total: ['counter', ['controller']],
  controller_runtime_terminal_reconcile_errors_total: ['counter', ['controller']],
  controller_runtime_reconcile_panics_total: ['counter', ['controller']],
  controller_runtime_reconcile_timeouts_total: ['counter', ['controller']],
  controller_runtime_reconcile_time_seconds: ['histogram', ['controller']],
  controller_runtime_active_workers: ['gauge', ['controller']],
  controller_runtime_max_concurrent_reconciles: ['gauge', ['controller']],
  workqueue_depth: ['gauge', ['controller', 'name']],
  workqueue_adds_total: ['counter', ['controller', 'name']],
  workqueue_queue_duration_seconds: ['histogram', ['controller', 'name']],
  workqueue_work_duration_seconds: ['histogram', ['controller', 'name']],
  workqueue_retries_total: ['counter', ['controller', 'name']],
  workqueue_unfinished_work_seconds: ['gauge', ['controller', 'name']],
  workqueue_longest_running_processor_seconds: ['gauge', ['controller', 'name']],
  rest_client_requests_total: ['counter', ['code', 'method', 'host']],
  rest_client_request_duration_seconds: ['histogram', ['verb', 'host']],
  leader_election_master_status: ['gauge', ['name']],
  orkestra_katalog_info: ['gauge', ['katalog', 'version']],
  orkestra_cache_objects: ['gauge', ['resource']],
  orkestra_informer_relists_total: ['counter', ['resource', 'reason']],
  orkestra_informer_watch_restarts_total: ['counter', ['resource']],
  orkestra_informer_last_event_timestamp_seconds: ['gauge', ['resource']],
  orkestra_workqueue_dropped_total: ['counter', ['controller']],
  orkestra_reconcile_step_duration_seconds: ['histogram', ['controller', 'step']],
  orkestra_child_writes_total: ['counter', ['controller', 'kind', 'operation']],
  orkestra_child_writes_skipped_total: ['counter', ['controller', 'kind']],
  orkestra_status_writes_total: ['counter', ['controller', 'result']],
  orkestra_events_total: ['counter', ['controller', 'type', 'reason']],
  orkestra_events_dropped_total: ['counter', []],
  orkestra_validation_total: ['counter', ['controller', 'result']],
  orkestra_secret_generations_total: ['counter', ['controller', 'reason']],
  orkestra_reconcile_gated_total: ['counter', ['controller', 'gate', 'reason']],
  orkestra_external_calls_total: ['counter', ['controller', 'call', 'result']],
  orkestra_external_call_duration_seconds: ['histogram', ['controller', 'call']],
  orkestra_git_operations_total: ['counter', ['controller', 'operation', 'result']],
  orkestra_docker_builds_total: ['counter', ['controller', 'result']],
  orkestra_docker_build_duration_seconds: ['histogram', ['controller']],
  orkestra_provider_calls_total: ['counter', ['controller', 'provider', 'kind', 'operation', 'result']],
  orkestra_provider_call_duration_seconds: ['histogram', ['controller', 'provider', 'kind', 'operation']],
  orkestra_autoscale_workers: ['gauge', ['controller']],
  orkestra_autoscale_queue_depth_limit: ['gauge', ['controller']],
  orkestra_autoscale_resync_seconds: ['gauge', ['controller']],
  orkestra_autoscale_override_active: ['gauge', ['controller']],
  orkestra_autoscale_decisions_total: ['counter', ['controller', 'target', 'direction']],
};

/** Feeds every sink method once, so every labelled series appears in the text. */
function feedAll(sink: MetricsSink): void {
  sink.reconcileFinished('website', 'error', 0.2, { terminal: true });
  sink.reconcileFinished('website', 'success', 0.02);
  sink.reconcileTimedOut('website');
  sink.reconcilePanicked('website');
  sink.reconcileStep('website', 'apply', 0.01);
  sink.maxConcurrentReconciles('website', 4);
  sink.queueAdd('website');
  sink.queueRetry('website');
  sink.queueDropped('website');
  sink.queueWait('website', 0.001);
  sink.queueWork('website', 0.05);
  sink.restRequest('GET', '200', '127.0.0.1:6443', 0.003);
  sink.leaderStatus('orkestra-shop', true);
  sink.informerRelist('apps/v1/deployments', 'gone');
  sink.informerWatchRestart('apps/v1/deployments');
  sink.informerEvent('apps/v1/deployments', 1_700_000_000);
  sink.childWrite('website', 'Deployment', 'apply');
  sink.childWriteSkipped('website', 'Service');
  sink.statusWrite('website', 'written');
  sink.event('website', 'Normal', 'Reconciled');
  sink.eventDropped();
  sink.validation('website', 'denied');
  sink.secretGenerated('website', 'created');
  sink.reconcileGated('website', 'reconcile', 'not_met');
  sink.externalCall('website', 'dns', 'success', 0.1);
  sink.gitOperation('website', 'fetch', 'success');
  sink.dockerBuild('website', 'success', 42);
  sink.providerCall('website', 'aws', 's3', 'reconcile', 'ready', 0.5);
  sink.autoscaleState('website', {
    workers: 3,
    queueDepthLimit: 100,
    resyncSeconds: 600,
    overrideActive: false,
  });
  sink.autoscaleDecision('website', 'workers', 'up');
}

/** Label names seen per metric family in exposition text (histograms: from `_count` lines). */
function labelsByFamily(text: string): Map<string, { type: string; labels: Set<string> }> {
  const families = new Map<string, { type: string; labels: Set<string> }>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type?.[1] != null && type[2] != null) families.set(type[1], { type: type[2], labels: new Set() });
  }
  for (const line of text.split('\n')) {
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? /.exec(line);
    if (sample?.[1] == null) continue;
    const name = sample[1];
    const family = families.get(name) ?? families.get(name.replace(/_(bucket|sum|count)$/, '')) ?? undefined;
    for (const match of (sample[2] ?? '').matchAll(/(\w+)="/g)) {
      if (match[1] !== 'le' && match[1] != null) family?.labels.add(match[1]);
    }
  }
  return families;
}

describe('createOperatorMetrics', () => {
  it('exposes every metric of docs/reference/runtime.md §18.2 with its type and exactly its labels', async () => {
    const metrics = createOperatorMetrics({ katalogName: 'shop', version: '1.2.0' });
    feedAll(metrics.sink);
    metrics.rollout({
      phase: 'Progressing',
      step: 1,
      crs: { abc: 3, def: 7 },
      gateFailures: 1,
      rolledBack: 2,
    });
    metrics.sharding({
      shard: 'op-0a1b2c3d',
      held: true,
      sharder: {
        live: ['a', 'b'],
        objects: 20,
        assigned: 3,
        drained: 1,
        undrained: 0,
        conflicts: 0,
        failures: 0,
      },
    });
    metrics.addCollector((gauges) => {
      gauges.queue('website', {
        depth: 3,
        activeWorkers: 2,
        unfinishedWorkSeconds: 1.5,
        longestRunningSeconds: 1,
      });
      gauges.cacheObjects('apps/v1/deployments', 12);
    });
    const families = labelsByFamily(await metrics.registry.metrics());
    for (const [name, [type, labels]] of Object.entries(SPEC)) {
      expect(families.get(name)?.type, name).toBe(type);
      expect([...(families.get(name)?.labels ?? [])].sort(), name).toEqual([...labels].sort());
    }
  });

  it('counts sharder patches by their increase, also across a new sharder (docs/reference/runtime.md §25)', async () => {
    const metrics = createOperatorMetrics({ katalogName: 'shop', version: '1.2.0', defaultMetrics: false });
    const stats = (assigned: number) => ({
      live: ['a'],
      objects: 5,
      assigned,
      drained: 0,
      undrained: 0,
      conflicts: 0,
      failures: 0,
    });
    metrics.sharding({ shard: 'a', held: true, sharder: stats(5) });
    metrics.sharding({ shard: 'a', held: true, sharder: stats(7) });
    metrics.sharding({ shard: 'a', held: true, sharder: stats(2) }); // a new sharder started from 0
    metrics.sharding({ shard: 'a', held: false });
    const text = await metrics.registry.metrics();
    expect(text).toContain('orkestra_sharder_patches_total{katalog="shop",result="assigned"} 9');
    expect(text).toContain('orkestra_shard_lease_held{katalog="shop",shard="a"} 0');
    expect(text).not.toContain('orkestra_sharder_live_shards{');
  });

  it('records values through the sink and the katalog info gauge', async () => {
    const metrics = createOperatorMetrics({ katalogName: 'shop', version: '1.2.0', defaultMetrics: false });
    metrics.sink.reconcileFinished('website', 'error', 0.2, { terminal: true });
    metrics.sink.reconcileFinished('website', 'error', 0.3);
    metrics.sink.reconcileFinished('website', 'requeue_after', 0.01);
    metrics.sink.childWrite('website', 'Deployment', 'create');
    metrics.sink.childWrite('website', 'Deployment', 'create');
    metrics.sink.leaderStatus('orkestra-shop', true);
    metrics.sink.leaderStatus('orkestra-shop', false);
    const text = await metrics.registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_total{controller="website",result="error"} 2');
    expect(text).toContain(
      'controller_runtime_reconcile_total{controller="website",result="requeue_after"} 1',
    );
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="website"} 2');
    expect(text).toContain('controller_runtime_terminal_reconcile_errors_total{controller="website"} 1');
    expect(text).toContain('controller_runtime_reconcile_time_seconds_count{controller="website"} 3');
    expect(text).toContain(
      'orkestra_child_writes_total{controller="website",kind="Deployment",operation="create"} 2',
    );
    expect(text).toContain('leader_election_master_status{name="orkestra-shop"} 0');
    expect(text).toContain('orkestra_katalog_info{katalog="shop",version="1.2.0"} 1');
    expect(text).not.toContain('process_cpu_user_seconds_total');
  });

  it('katalogLoaded replaces the katalog_info series instead of adding one', async () => {
    const metrics = createOperatorMetrics({ katalogName: 'shop', version: '1.0.0', defaultMetrics: false });
    metrics.katalogLoaded('1.1.0');
    const text = await metrics.registry.metrics();
    expect(text).toContain('orkestra_katalog_info{katalog="shop",version="1.1.0"} 1');
    expect(text).not.toContain('version="1.0.0"');
  });

  it("uses controller-runtime's buckets for reconcile time and workqueue durations", async () => {
    const metrics = createOperatorMetrics({ katalogName: 'shop', version: '1', defaultMetrics: false });
    metrics.sink.reconcileFinished('website', 'success', 0.02);
    metrics.sink.queueWait('website', 0.02);
    const text = await metrics.registry.metrics();
    const les = (name: string): string[] =>
      [...text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"`, 'gm'))].map((m) => m[1] ?? '');
    expect(les('controller_runtime_reconcile_time_seconds')).toEqual([
      ...RECONCILE_TIME_BUCKETS.map(String),
      '+Inf',
    ]);
    expect(RECONCILE_TIME_BUCKETS).toHaveLength(40);
    expect(les('workqueue_queue_duration_seconds')).toEqual([
      '1e-8',
      '1e-7',
      '0.000001',
      '0.00001',
      '0.0001',
      '0.001',
      '0.01',
      '0.1',
      '1',
      '10',
      '100',
      '1000',
      '+Inf',
    ]);
    expect(WORKQUEUE_DURATION_BUCKETS).toHaveLength(12);
  });

  it('includes the default process metrics', async () => {
    const metrics = createOperatorMetrics({ katalogName: 'shop', version: '1' });
    const text = await metrics.registry.metrics();
    expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
  });

  it('runs collectors at each scrape and forgets series a collector no longer reports', async () => {
    const metrics = createOperatorMetrics({ katalogName: 'shop', version: '1', defaultMetrics: false });
    let depth = 1;
    const remove = metrics.addCollector((gauges) => {
      gauges.queue('website', {
        depth,
        activeWorkers: 1,
        unfinishedWorkSeconds: 0,
        longestRunningSeconds: 0,
      });
    });
    expect(await metrics.registry.metrics()).toContain(
      'workqueue_depth{controller="website",name="website"} 1',
    );
    depth = 7;
    expect(await metrics.registry.metrics()).toContain(
      'workqueue_depth{controller="website",name="website"} 7',
    );
    const json = await metrics.registry.getMetricsAsJSON();
    expect(json.find((m) => m.name === 'workqueue_depth')?.values).toEqual([
      { value: 7, labels: { controller: 'website', name: 'website' } },
    ]);
    remove();
    expect(await metrics.registry.metrics()).not.toContain('workqueue_depth{');
  });
});

describe('metricSamples (the Live API’s /api/v1/query, ADR 0083)', () => {
  it('reads every series as /metrics exposes it: histograms as _bucket (le), _sum and _count', async () => {
    const metrics = createOperatorMetrics({ katalogName: 'shop', version: '1.2.0', defaultMetrics: false });
    metrics.sink.reconcileFinished('website', 'success', 0.02);
    metrics.sink.reconcileFinished('website', 'success', 0.5);
    const rows = await metricSamples(metrics.registry);
    const one = (name: string, labels: Record<string, string>) =>
      rows.find((r) => r.name === name && Object.entries(labels).every(([k, v]) => r.labels[k] === v))?.value;
    expect(one('controller_runtime_reconcile_total', { controller: 'website', result: 'success' })).toBe(2);
    expect(
      one('controller_runtime_reconcile_time_seconds_bucket', { controller: 'website', le: '0.025' }),
    ).toBe(1);
    expect(
      one('controller_runtime_reconcile_time_seconds_bucket', { controller: 'website', le: '+Inf' }),
    ).toBe(2);
    expect(one('controller_runtime_reconcile_time_seconds_count', { controller: 'website' })).toBe(2);
    expect(one('controller_runtime_reconcile_time_seconds_sum', { controller: 'website' })).toBeCloseTo(0.52);
    expect(one('orkestra_katalog_info', { katalog: 'shop', version: '1.2.0' })).toBe(1);
    // Every label value is a string, as Prometheus answers them.
    expect(rows.every((r) => Object.values(r.labels).every((v) => typeof v === 'string'))).toBe(true);
  });
});
