import { describe, expect, it } from 'vitest';
import { ConditionReason, reasonRetryClass } from './conditions.js';
import { parseCron, validateCron } from './cron.js';
import { Duration, parseDuration } from './duration.js';
import {
  DurationError,
  KatalogError,
  OrkestraError,
  ProviderError,
  TerminalError,
  toOrkestraError,
} from './errors.js';
import { RESOURCE_KINDS, RESOURCE_LIST_KEYS } from './kinds/index.js';
import {
  ORKESTRA_PREFIX,
  OrkestraAnnotation,
  OrkestraFinalizer,
  OrkestraLabel,
  isReservedLabelKey,
} from './metadata.js';
import { formatPath, getPath, stringForm } from './paths.js';

describe('getPath', () => {
  const value = { spec: { ports: [{ port: 80 }], 'a-b': 1, n: null }, list: ['x'] };
  it('reads dot paths, ignores a leading dot and indexes lists', () => {
    expect(getPath(value, 'spec.ports.0.port')).toBe(80);
    expect(getPath(value, '.spec.a-b')).toBe(1);
    expect(getPath(value, 'list.0')).toBe('x');
    expect(getPath(value, '')).toBe(value);
    expect(getPath(value, 'spec.n')).toBeNull();
  });
  it('gives undefined for missing keys, out-of-range indexes and steps through scalars', () => {
    expect(getPath(value, 'spec.missing')).toBeUndefined();
    expect(getPath(value, 'list.1')).toBeUndefined();
    expect(getPath(value, 'list.-1')).toBeUndefined();
    expect(getPath(value, 'list.01')).toBeUndefined();
    expect(getPath(value, 'spec.a-b.c')).toBeUndefined();
    expect(getPath(value, 'spec.n.x')).toBeUndefined();
    expect(getPath(value, 'spec.toString')).toBeUndefined();
  });
});

describe('stringForm', () => {
  it('follows docs/reference/katalog.md §8.4 rule 3', () => {
    expect(stringForm(undefined)).toBe('');
    expect(stringForm(null)).toBe('');
    expect(stringForm('a')).toBe('a');
    expect(stringForm(3)).toBe('3');
    expect(stringForm(2.5)).toBe('2.5');
    expect(stringForm(true)).toBe('true');
    expect(stringForm({ a: [1, 'b'] })).toBe('{"a":[1,"b"]}');
  });
  it('prints numbers in decimal form, never in exponent notation', () => {
    expect(stringForm(1.5e21)).toBe('1500000000000000000000');
    expect(stringForm(1e-7)).toBe('0.0000001');
    expect(stringForm(-1.25e-10)).toBe('-0.000000000125');
    expect(stringForm(Infinity)).toBe('Infinity');
  });
  it('formatPath quotes keys that are not identifiers', () => {
    expect(
      formatPath([
        'spec',
        'crds',
        'website',
        'deployments',
        0,
        'nodeSelector',
        'topology.kubernetes.io/region',
      ]),
    ).toBe('spec.crds.website.deployments[0].nodeSelector["topology.kubernetes.io/region"]');
  });
});

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['90s', 90_000],
    ['10m', 600_000],
    ['1h30m', 5_400_000],
    ['1.5d', 129_600_000],
    ['2w', 1_209_600_000],
    ['1mo', 2_592_000_000],
    ['1y', 31_536_000_000],
    ['0', 0],
    [0, 0],
  ] as const)('%s → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
  it.each(['', '10', '1x', '-5s', '1 h', 'm', '5s '])('rejects %j with a DurationError', (text) => {
    expect(() => parseDuration(text)).toThrow(DurationError);
  });
  it('Duration schema keeps the text and turns 0 into "0"', () => {
    expect(Duration.parse('30s')).toBe('30s');
    expect(Duration.parse(0)).toBe('0');
    expect(Duration.safeParse('30 s').success).toBe(false);
  });
});

describe('errors', () => {
  it('OrkestraError carries code, retryable, katalogPath and cause', () => {
    const cause = new Error('boom');
    const error = new OrkestraError('failed', {
      code: ConditionReason.ApplyFailed,
      katalogPath: 'web.operatorBox',
      cause,
    });
    expect(error).toMatchObject({
      name: 'OrkestraError',
      code: 'ApplyFailed',
      retryable: true,
      katalogPath: 'web.operatorBox',
      cause,
    });
    expect(new OrkestraError('x', { code: 'ValidationFailed' }).retryable).toBe(false);
    expect(new TerminalError('x', { code: 'ApplyFailed' })).toMatchObject({
      name: 'TerminalError',
      retryable: false,
    });
    expect(
      new KatalogError([{ file: 'k.yaml', line: 1, column: 2, path: 'spec', message: 'bad' }]).message,
    ).toContain('k.yaml:1:2 spec: bad');
  });
  it('toOrkestraError normalizes anything thrown', () => {
    const terminal = new TerminalError('t', { code: 'DuplicateChild' });
    expect(toOrkestraError(terminal)).toBe(terminal);
    const provider = toOrkestraError(
      new ProviderError('no bucket', { code: 'NoSuchBucket', retryable: false }),
    );
    expect(provider).toMatchObject({
      code: 'ProviderFailed',
      retryable: false,
      message: 'NoSuchBucket: no bucket',
    });
    expect(toOrkestraError('text')).toMatchObject({
      code: 'InternalError',
      retryable: true,
      message: 'text',
    });
    expect(toOrkestraError({ a: 1 }).message).toBe('non-error thrown: {"a":1}');
  });
  it('every reason has a retry class', () => {
    for (const reason of Object.values(ConditionReason)) expect(reasonRetryClass[reason]).toBeDefined();
  });
});

describe('metadata keys', () => {
  it('derive from the one prefix', () => {
    for (const key of [
      ...Object.values(OrkestraLabel),
      ...Object.values(OrkestraAnnotation),
      ...Object.values(OrkestraFinalizer),
    ]) {
      if (key !== OrkestraLabel.ManagedBy) expect(key.startsWith(ORKESTRA_PREFIX)).toBe(true);
    }
    expect(OrkestraLabel.OwnerUid).toBe('orkestra.konductor.io/owner-uid');
    expect(isReservedLabelKey('app.kubernetes.io/managed-by')).toBe(true);
    expect(isReservedLabelKey('app.kubernetes.io/name')).toBe(false);
  });
});

describe('RESOURCE_KINDS', () => {
  it('lists the kinds in the fixed order with non-decreasing waves', () => {
    // The kinds of this list keep their order; a kind added to the table takes its own place (its wave decides).
    const pinned = (keys: readonly string[]): string[] =>
      RESOURCE_LIST_KEYS.filter((key) => keys.includes(key));
    const order = [
      'namespaces',
      'resourceQuotas',
      'limitRanges',
      'serviceAccounts',
      'roles',
      'roleBindings',
      'secrets',
      'configMaps',
      'persistentVolumeClaims',
      'services',
      'deployments',
      'statefulSets',
      'replicaSets',
      'pods',
      'jobs',
      'cronJobs',
      'ingresses',
      'hpa',
      'pdb',
      'networkPolicies',
      'custom',
    ];
    expect(pinned(order)).toEqual(order);
    expect(RESOURCE_LIST_KEYS.at(-1)).toBe('custom');
    const waves = RESOURCE_KINDS.map((k) => k.wave);
    expect([...waves].sort((a, b) => a - b)).toEqual(waves);
    expect(RESOURCE_KINDS.find((k) => k.listKey === 'statefulSets')?.defaultNameSuffix).toBe('');
    expect(Object.isFrozen(RESOURCE_KINDS[0])).toBe(true);
  });

  it('derives group, plural and children keys from the kind unless a kind file overrides them', () => {
    const byKey = new Map(RESOURCE_KINDS.map((k) => [k.listKey, k]));
    expect(byKey.get('deployments')).toMatchObject({ group: 'apps', plural: 'deployments' });
    expect(byKey.get('configMaps')).toMatchObject({ group: '', plural: 'configmaps' });
    expect(byKey.get('hpa')).toMatchObject({
      group: 'autoscaling',
      plural: 'horizontalpodautoscalers',
      childrenKeys: { singular: 'hpa', plural: 'hpas' },
    });
    expect(byKey.get('resourceQuotas')).toMatchObject({ group: '', plural: 'resourcequotas', wave: 2 });
    expect(byKey.get('custom')).toMatchObject({ group: null, plural: null });
  });
});

describe('cron', () => {
  it('parses fields, names, steps and macros', () => {
    const spec = parseCron('*/15 9-17 * jan,jul mon-fri');
    expect([...spec.minutes]).toEqual([0, 15, 30, 45]);
    expect([...spec.months]).toEqual([1, 7]);
    expect([...spec.daysOfWeek]).toEqual([1, 2, 3, 4, 5]);
    expect(validateCron('@daily')).toBeUndefined();
    expect(validateCron('@reboot')).toBe('unknown cron macro @reboot');
    expect(validateCron('0 0 32 * *')).toBe('day of month value 32 is out of range 1-31');
  });
});
