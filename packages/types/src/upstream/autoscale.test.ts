import { describe, expect, it } from 'vitest';
import { expandAutoscaleProfile } from '../schema/autoscale-profiles.js';
import { head, load, ok } from './dialect-fixtures.test-support.js';

/**
 * Upstream's `autoscale.profile` presets and HPA `behavior.profile` (docs/reference/katalog.md §18,
 * ADR 0065), one test per written form. The fixtures are written here from upstream's type
 * definitions and validator documentation, not copied from upstream files.
 */

const entryOf = (text: string) => ok(load(text)).katalog.spec.crds['website'];
const errorsOf = (text: string) => {
  const result = load(text);
  if (result.ok) throw new Error('expected the Katalog to be refused');
  return result.errors.map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`);
};

describe('autoscale.profile', () => {
  it('G2: operatorBox.autoscale.profile loads with the preset interval and cooldown', () => {
    const entry = entryOf(`${head()}      operatorBox:
        reconciler:
          workers: 4
          queue:
            maxDepth: 100
        autoscale:
          profile: Steady
`);
    expect(entry?.autoscale).toMatchObject({ profile: 'steady', interval: '30s', cooldown: '2m', rules: [] });
    expect(entry?.workers).toBe(4);
  });

  it('canonical: entry-level autoscale.profile loads', () => {
    const entry = entryOf(`${head()}      autoscale:
        profile: burst
`);
    expect(entry?.autoscale).toMatchObject({ profile: 'burst', interval: '5s', cooldown: '30s' });
  });

  it('a profile beside manual fields is refused at `profile`, naming them (upstream rule 1)', () => {
    const errors = errorsOf(`${head()}      operatorBox:
        autoscale:
          profile: steady
          cooldown: 1m
`);
    expect(errors).toEqual([
      expect.stringMatching(
        /^\d+:\d+ spec\.crds\.website\.autoscale\.profile: autoscale\.profile "steady" cannot be combined with manual autoscale fields; remove cooldown when using a profile$/,
      ),
    ]);
  });

  it('an unknown profile is refused with the allowed names (upstream rule 2)', () => {
    const errors = errorsOf(`${head()}      autoscale:
        profile: turbo
`);
    expect(errors).toEqual([
      expect.stringContaining(
        'autoscale.profile: unknown autoscale profile: "turbo" — allowed: burst, steady, batch, latency-sensitive, cost-optimized',
      ),
    ]);
    expect(errors[0]).toMatch(/^14:18 /);
  });

  it('expands each preset from the declared workers and queue depth', () => {
    const base = { workers: 4, maxDepth: 100 };
    expect(expandAutoscaleProfile('burst', base).rule).toEqual({
      name: 'profile:burst',
      when: [{ field: 'metrics.queueDepth', greaterThan: 60 }],
      do: { workers: 16, queueDepth: 1000 },
    });
    expect(expandAutoscaleProfile('steady', base).rule.when).toHaveLength(2);
    expect(expandAutoscaleProfile('batch', base).rule).toMatchObject({
      anyOf: [{ cron: '0 23 * * *', duration: '3h' }],
      do: { workers: 12, queueDepth: 800 },
    });
    expect(expandAutoscaleProfile('latency-sensitive', base).rule.do).toEqual({ workers: 10 });
    expect(expandAutoscaleProfile('cost-optimized', base).rule.do).toEqual({ workers: 2, queueDepth: 50 });
    // An unlimited queue (0) sets no queue depth; workers stay within 1..50.
    expect(expandAutoscaleProfile('burst', { workers: 20, maxDepth: 0 }).rule.do).toEqual({ workers: 50 });
    expect(expandAutoscaleProfile('cost-optimized', { workers: 1, maxDepth: 0 }).rule.do).toEqual({
      workers: 1,
    });
  });
});

describe('autoscale conditions[].source', () => {
  it('G2: a condition `source` with endpoint moves to autoscale.sources as a url, named by the field', () => {
    const entry = entryOf(`${head()}      operatorBox:
        autoscale:
          conditions:
            when:
              - field: cross.managed-database.metrics.queueDepth
                greaterThan: "500"
                source:
                  endpoint: "http://database-operator:8080/katalog/managed-database"
                  token: $DB_TOKEN
          do:
            workers: 2
`);
    expect(entry?.autoscale?.sources).toEqual([
      {
        as: 'managed-database',
        crd: 'managed-database',
        url: 'http://database-operator:8080/katalog/managed-database',
        auth: { env: '$DB_TOKEN' },
        timeout: '5s',
        cacheFor: '30s',
      },
    ]);
    expect(entry?.autoscale?.rules[0]?.when[0]).toMatchObject({
      field: 'cross.managed-database.metrics.queueDepth',
    });
  });

  it('G3: host + protocol (older `type`) reads the peer Live API, in `or`', () => {
    const entry = entryOf(`${head()}      operatorBox:
        autoscale:
          conditions:
            or:
              - field: cross.loader.metrics.queueDepth
                greaterThan: "60"
                source:
                  host: "http://loader.loader-system:8080"
                  type: metrics
                  cacheFor: 10s
          do:
            workers: 8
`);
    expect(entry?.autoscale?.sources).toEqual([
      expect.objectContaining({
        as: 'loader',
        endpoint: 'http://loader.loader-system:8080',
        protocol: 'metrics',
        cacheFor: '10s',
      }),
    ]);
  });

  it('a literal token is refused at its position', () => {
    const errors = errorsOf(`${head()}      operatorBox:
        autoscale:
          conditions:
            when:
              - field: cross.db.metrics.queueDepth
                greaterThan: "1"
                source:
                  host: "http://db:8080"
                  token: hunter2
          do:
            workers: 2
`);
    expect(errors).toEqual([expect.stringContaining('a literal token in the Katalog is refused')]);
  });

  it('a templated source address is refused: the autoscaler reads for the entry', () => {
    const errors = errorsOf(`${head()}      autoscale:
        sources:
          - as: db
            url: "http://{{ .spec.host }}/m"
        conditions:
          when:
            - field: cross.db.metrics.queueDepth
              greaterThan: 1
        do:
          workers: 2
`);
    expect(errors).toEqual([expect.stringContaining('autoscale.sources[0].url: `url` must be literal')]);
  });

  it('G2: a source with auth.secretRef (upstream APISecretRef) moves to autoscale.sources with its Secret', () => {
    const entry = entryOf(`${head()}      operatorBox:
        autoscale:
          conditions:
            when:
              - field: cross.billing.metrics.queueDepth
                greaterThan: "100"
                source:
                  host: "http://billing.billing-system:8080"
                  protocol: metrics
                  auth:
                    secretRef:
                      name: billing-reader
                      key: token
          do:
            workers: 6
`);
    expect(entry?.autoscale?.sources).toEqual([
      expect.objectContaining({
        as: 'billing',
        endpoint: 'http://billing.billing-system:8080',
        protocol: 'metrics',
        auth: { secretRef: { name: 'billing-reader', key: 'token' } },
      }),
    ]);
  });

  it('a secretRef beside a token, a templated secretRef name or namespace are refused at their position', () => {
    const both = errorsOf(`${head()}      operatorBox:
        autoscale:
          conditions:
            when:
              - field: cross.billing.metrics.queueDepth
                greaterThan: "100"
                source:
                  host: "http://billing:8080"
                  auth:
                    token: $BILLING_TOKEN
                    secretRef: {name: billing-reader, key: token}
          do:
            workers: 6
`);
    expect(both).toEqual([
      expect.stringMatching(
        /^22:21 spec\.crds\.website\.autoscale\.conditions\.when\[0\]\.source\.auth\.token: upstream `auth\.token` and `auth\.secretRef` are exclusive/,
      ),
    ]);
    const templated = errorsOf(`${head()}      autoscale:
        sources:
          - as: billing
            url: "http://billing:8080/m"
            auth:
              secretRef:
                name: "{{ .spec.reader }}"
                key: token
                namespace: "{{ .metadata.namespace }}"
        conditions:
          when:
            - field: cross.billing.metrics.queueDepth
              greaterThan: 1
        do:
          workers: 2
`);
    expect(templated).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^19:23 spec\.crds\.website\.autoscale\.sources\[0\]\.auth\.secretRef\.name: `auth\.secretRef\.name` must be literal/,
        ),
        expect.stringMatching(
          /^21:28 spec\.crds\.website\.autoscale\.sources\[0\]\.auth\.secretRef\.namespace: must be a literal namespace/,
        ),
      ]),
    );
  });
});

describe('workload autoscale', () => {
  it("G2: a scale condition's `source` moves to operatorBox.cross: read per CR, its Secret the CR's (ADR 0079)", () => {
    const entry = entryOf(`${head()}      operatorBox:
        onReconcile:
          deployments:
            - image: nginx
              replicas: "2"
              autoscale:
                max: 10
                scaleUp:
                  conditions:
                    when:
                      - field: cross.billing.metrics.queueDepth
                        greaterThan: "100"
                        source:
                          host: "http://billing:8080"
                          protocol: metrics
                          auth:
                            secretRef: {name: billing-reader, key: token}
                  increment: 1
`);
    expect(entry?.operatorBox.cross).toEqual([
      expect.objectContaining({
        as: 'billing',
        crd: 'billing',
        endpoint: 'http://billing:8080',
        protocol: 'metrics',
        auth: { secretRef: { name: 'billing-reader', key: 'token' } },
      }),
    ]);
    expect(
      entry?.operatorBox.onReconcile.deployments[0]?.autoscale?.scaleUp?.conditions.when[0],
    ).not.toHaveProperty('source');
  });

  it('G2: autoscale on an onCreate deployment (upstream WorkloadAutoscale) loads with its defaults', () => {
    const entry = entryOf(`${head()}      operatorBox:
        onCreate:
          deployments:
            - image: nginx
              replicas: "2"
              reconcile: true
              autoscale:
                min: 2
                max: 10
                scaleUp:
                  conditions:
                    when:
                      - time: { after: "09:00", before: "18:00" }
                  target: 8
                scaleDown:
                  conditions:
                    anyOf:
                      - field: cross.loader.status.phase
                        equals: Idle
                  decrement: 1
`);
    expect(entry?.operatorBox.onCreate.deployments[0]?.autoscale).toMatchObject({
      min: 2,
      max: 10,
      cooldown: '1m',
      scaleUp: { target: 8, conditions: { when: [expect.objectContaining({ time: expect.anything() })] } },
      scaleDown: {
        decrement: 1,
        conditions: { anyOf: [expect.objectContaining({ field: 'cross.loader.status.phase' })] },
      },
    });
  });

  it('target beside increment, and min above max, are refused at their keys', () => {
    const errors = errorsOf(`${head()}      operatorBox:
        onReconcile:
          statefulSets:
            - image: redis
              autoscale:
                min: 5
                max: 3
                scaleUp:
                  target: 4
                  increment: 1
`);
    expect(errors).toEqual([
      expect.stringContaining('statefulSets[0].autoscale.min: `min` must not exceed `max`'),
      expect.stringContaining(
        'statefulSets[0].autoscale.scaleUp.increment: `target` and `increment` are exclusive',
      ),
    ]);
  });
});

describe('hpa behavior.profile', () => {
  const hpa = (behavior: string) => `${head()}      operatorBox:
        onCreate:
          hpa:
            - name: web-hpa
              maxReplicas: 10
              behavior:
${behavior}`;

  it('a known profile expands into the behavior block and the CPU target', () => {
    const entry = entryOf(hpa('                profile: api\n'));
    const item = entry?.operatorBox.onCreate.hpa[0];
    expect(item?.targetCPUUtilizationPercentage).toBe(60);
    expect(item?.behavior).toMatchObject({
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max' },
      scaleDown: {
        stabilizationWindowSeconds: 600,
        policies: [{ type: 'Percent', value: 5, periodSeconds: 60 }],
      },
    });
    expect(item?.behavior).not.toHaveProperty('profile');
  });

  it('an unknown profile is refused at behavior.profile', () => {
    expect(errorsOf(hpa('                profile: aggressive\n'))).toEqual([
      expect.stringContaining(
        'hpa[0].behavior.profile: unknown behavior.profile "aggressive" — allowed: web, api, latency-sensitive, batch, cost-optimized',
      ),
    ]);
  });

  it('a templated profile loads as written: the HPA builder picks the preset per CR', () => {
    const entry = entryOf(hpa("                profile: '{{ .spec.scaling }}'\n"));
    const item = entry?.operatorBox.onCreate.hpa[0];
    expect(item?.behavior).toEqual({ profile: '{{ .spec.scaling }}' });
    expect(item?.targetCPUUtilizationPercentage).toBeUndefined();
  });

  it('a templated profile beside scaleDown is refused too', () => {
    expect(
      errorsOf(
        hpa(
          "                profile: '{{ .spec.scaling }}'\n                scaleDown:\n                  stabilizationWindowSeconds: 5\n",
        ),
      ),
    ).toEqual([expect.stringContaining('use one or the other, not both')]);
  });

  it('a profile beside scaleUp is refused', () => {
    expect(
      errorsOf(
        hpa(
          '                profile: web\n                scaleUp:\n                  stabilizationWindowSeconds: 5\n',
        ),
      ),
    ).toEqual([expect.stringContaining('use one or the other, not both')]);
  });
});
