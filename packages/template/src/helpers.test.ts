import { createHash } from 'node:crypto';
import { OrkestraError } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { createHelpers } from './helpers.js';
import { createTemplateEngine } from './template-engine.js';
import type { TemplateContext } from './template-engine.js';
import { TemplateError } from './template-error.js';

/** A deterministic "random" source: bytes 0, 1, 2, … (wrapping), restarting per call. */
function countingRandom(): (size: number) => Uint8Array {
  return (size) => Uint8Array.from({ length: size }, (_, i) => i % 256);
}

const fixedNow = Date.UTC(2026, 3, 6, 8, 5, 9, 123);
const engine = createTemplateEngine({ clock: { now: () => fixedNow }, random: countingRandom() });
const render = (source: string, context: TemplateContext = {}): unknown =>
  engine.compileTemplate(source).render(context);

const ctx = {
  spec: {
    image: 'nginx:1.27',
    replicas: 3,
    zero: 0,
    no: false,
    empty: '',
    list: ['a', 'b'],
    nums: [1, 2],
    none: [],
    map: { b: 2, a: 1 },
    nomap: {},
    text: '  Hello World  ',
    numeric: '42',
    decimal: '2.5',
    unicode: 'héllo 🌍 wörld',
    nil: null,
  },
};

describe('comparison and logic', () => {
  it.each([
    ['{{ eq spec.replicas 3 }}', true],
    ['{{ eq spec.replicas "3" }}', true],
    ['{{ eq "3.0" spec.replicas }}', true],
    ['{{ eq spec.list (list "a" "b") }}', true],
    ['{{ eq spec.map (dict "a" 1 "b" 2) }}', true],
    ['{{ eq spec.missing spec.nil }}', true],
    ['{{ eq spec.missing "" }}', false],
    ['{{ eq "abc" "ABC" }}', false],
    ['{{ ne spec.image "nginx" }}', true],
    ['{{ lt spec.numeric 100 }}', true],
    ['{{ lt "10" "9" }}', false],
    ['{{ lt "10" "9a" }}', true],
    ['{{ le 3 3 }}', true],
    ['{{ gt spec.decimal 2 }}', true],
    ['{{ ge "b" "a" }}', true],
    ['{{ lt "\uffff" "😀" }}', true],
    ['{{ and spec.replicas spec.image }}', true],
    ['{{ and spec.replicas spec.zero }}', false],
    ['{{ and spec.list spec.none }}', false],
    ['{{ or spec.zero spec.no spec.empty spec.missing }}', false],
    ['{{ or spec.zero spec.nomap }}', true],
    ['{{ not spec.none }}', true],
    ['{{ not spec.image }}', false],
  ])('%s → %j', (source, expected) => {
    expect(render(source, ctx)).toBe(expected);
  });
});

describe('default, coalesce, empty, ternary, typeOf', () => {
  it.each([
    ['{{ default spec.missing "x" }}', 'x'],
    ['{{ default spec.empty "x" }}', 'x'],
    ['{{ default spec.none "x" }}', 'x'],
    ['{{ default spec.nomap "x" }}', 'x'],
    ['{{ default spec.zero 5 }}', 0],
    ['{{ default spec.no true }}', false],
    ['{{ default spec.image "x" }}', 'nginx:1.27'],
    ['{{ coalesce spec.missing spec.empty spec.none spec.zero 9 }}', 0],
    ['{{ coalesce spec.missing spec.empty }}', undefined],
    ['{{ empty spec.nomap }}', true],
    ['{{ empty spec.zero }}', false],
    ['{{ empty spec.missing }}', true],
    ['{{ ternary spec.replicas "on" "off" }}', 'on'],
    ['{{ ternary spec.zero "on" "off" }}', 'off'],
    ['{{ typeOf spec.map }}', 'map'],
    ['{{ typeOf spec.list }}', 'slice'],
    ['{{ typeOf spec.image }}', 'string'],
    ['{{ typeOf spec.replicas }}', 'number'],
    ['{{ typeOf spec.no }}', 'bool'],
    ['{{ typeOf spec.nil }}', 'null'],
    ['{{ typeOf spec.missing }}', 'null'],
  ])('%s → %j', (source, expected) => {
    expect(render(source, ctx)).toEqual(expected);
  });
});

describe('conversion and encoding', () => {
  it.each([
    ['{{ int 3.9 }}', 3],
    ['{{ int -3.9 }}', -3],
    ['{{ int spec.numeric }}', 42],
    ['{{ int "-7" }}', -7],
    ['{{ int true }}', 1],
    ['{{ toInt false }}', 0],
    ['{{ float spec.decimal }}', 2.5],
    ['{{ toFloat "1e3" }}', 1000],
    ['{{ toString spec.replicas }}', '3'],
    ['{{ toString spec.map }}', '{"b":2,"a":1}'],
    ['{{ toString spec.missing }}', ''],
    ['{{ toJson spec.list }}', '["a","b"]'],
    ['{{ toJSON spec.missing }}', 'null'],
    ['{{ toYaml spec.map }}', 'b: 2\na: 1'],
    ['{{ toYaml spec.list }}', '- a\n- b'],
    ['{{ fromJson "{\\"a\\":[1,true]}" }}', { a: [1, true] }],
    ['{{ b64enc spec.unicode }}', Buffer.from('héllo 🌍 wörld').toString('base64')],
    ['{{ toBase64 "a" }}', 'YQ=='],
    ['{{ b64dec "aMOpbGxv" }}', 'héllo'],
    ['{{ b64dec "YQ" }}', 'a'],
    ['{{ fromBase64 "YQ==" }}', 'a'],
    ['{{ b64dec "fn5-" }}', '~~~'],
    ['{{ b64dec "fn5+" }}', '~~~'],
    ['{{ b64dec (b64enc spec.unicode) }}', 'héllo 🌍 wörld'],
    ['{{ sha256 "abc" }}', createHash('sha256').update('abc').digest('hex')],
    ['{{ sha256sum "abc" }}', createHash('sha256').update('abc').digest('hex').slice(0, 8)],
    ['{{ quote spec.image }}', '"nginx:1.27"'],
    ['{{ quote "say \\"hi\\"" }}', '"say \\"hi\\""'],
    ['{{ quote spec.replicas }}', '"3"'],
  ])('%s → %j', (source, expected) => {
    expect(render(source, ctx)).toEqual(expected);
  });

  it.each([
    ['{{ int "3.5" }}', 'int: cannot convert "3.5" to an integer'],
    ['{{ int spec.missing }}', 'int: cannot convert absent to an integer'],
    ['{{ float "abc" }}', 'float: expected a number, got "abc"'],
    ['{{ fromJson "{nope" }}', 'fromJson: invalid JSON'],
    ['{{ b64dec "a" }}', 'b64dec: invalid base64 input'],
    ['{{ b64dec "a$b=" }}', 'b64dec: invalid base64 input'],
    ['{{ b64dec "/w==" }}', 'b64dec: decoded bytes of "/w==" are not UTF-8'],
  ])('%s fails: %s', (source, message) => {
    expect(() => engine.compileTemplate(source, { path: 'x.y' }).render(ctx)).toThrow(message);
  });
});

describe('strings', () => {
  it.each([
    ['{{ upper spec.unicode }}', 'HÉLLO 🌍 WÖRLD'],
    ['{{ toUpper "abc" }}', 'ABC'],
    ['{{ lower "ÀB" }}', 'àb'],
    ['{{ toLower "X" }}', 'x'],
    ['{{ title "hello wide-world o\'neil élan" }}', "Hello Wide-World O'Neil Élan"],
    ['{{ trim spec.text }}', 'Hello World'],
    ['{{ trimSpace spec.text }}', 'Hello World'],
    ['{{ trim "xxhixyx" "xy" }}', 'hi'],
    ['{{ trim "🌍a🌍" "🌍" }}', 'a'],
    ['{{ trunc spec.unicode 7 }}', 'héllo 🌍'],
    ['{{ trunc spec.unicode -5 }}', 'wörld'],
    ['{{ trunc "ab" 10 }}', 'ab'],
    ['{{ trunc "ab" -10 }}', 'ab'],
    ['{{ trunc "abc" "2" }}', 'ab'],
    ['{{ replace "a.b.c" "." "-" }}', 'a-b-c'],
    ['{{ replace "price" "price" "$&" }}', '$&'],
    ['{{ replace "abc" "" "-" }}', 'abc'],
    ['{{ contains spec.image "nginx" }}', true],
    ['{{ contains spec.list "b" }}', true],
    ['{{ contains spec.nums "2" }}', true],
    ['{{ contains spec.list "c" }}', false],
    ['{{ hasPrefix spec.image "ngi" }}', true],
    ['{{ hasSuffix spec.image "1.27" }}', true],
    ['{{ hasPrefix spec.missing "x" }}', false],
    ['{{ split "a,b,,c" "," }}', ['a', 'b', '', 'c']],
    ['{{ split "" "," }}', []],
    ['{{ split "a🌍" "" }}', ['a', '🌍']],
    ['{{ join spec.nums "-" }}', '1-2'],
    ['{{ join (list "a" spec.map true) "," }}', 'a,{"b":2,"a":1},true'],
    ['{{ join spec.missing "," }}', ''],
  ])('%s → %j', (source, expected) => {
    expect(render(source, ctx)).toEqual(expected);
  });
});

describe('lists, maps and len', () => {
  it.each([
    ['{{ list }}', []],
    ['{{ list 1 "a" spec.map }}', [1, 'a', { b: 2, a: 1 }]],
    ['{{ dict }}', {}],
    ['{{ dict "k" spec.list 1 true }}', { k: ['a', 'b'], 1: true }],
    ['{{ len spec.unicode }}', 13],
    ['{{ len spec.list }}', 2],
    ['{{ len spec.map }}', 2],
    ['{{ len spec.missing }}', 0],
    ['{{ len "" }}', 0],
  ])('%s → %j', (source, expected) => {
    expect(render(source, ctx)).toEqual(expected);
  });

  it('dict with an odd number of arguments fails', () => {
    expect(() => render('{{ dict "a" 1 "b" }}')).toThrow('dict: expected key/value pairs, got 3 arguments');
  });

  it('len of a number fails', () => {
    expect(() => render('{{ len 5 }}')).toThrow('len: expected a string, list or map, got 5');
  });
});

describe('arithmetic', () => {
  it.each([
    ['{{ add 1 2 }}', 3],
    ['{{ add 1 2 3 }}', 6],
    ['{{ add spec.numeric 1 }}', 43],
    ['{{ add 0.5 1 }}', 1.5],
    ['{{ sub 1 5 }}', -4],
    ['{{ mul 2 "3" 4 }}', 24],
    ['{{ div 7 2 }}', 3],
    ['{{ div -7 2 }}', -3],
    ['{{ div 7.0 2 }}', 3],
    ['{{ div 7.5 2 }}', 3.75],
    ['{{ mod 7 3 }}', 1],
    ['{{ mod -7 3 }}', -1],
    ['{{ min 3 1 2 }}', 1],
    ['{{ max 3 "10" 2 }}', 10],
    ['{{ max 4 }}', 4],
  ])('%s → %j', (source, expected) => {
    expect(render(source, ctx)).toBe(expected);
  });

  it.each([
    ['{{ div 1 0 }}', 'div: division by zero'],
    ['{{ mod 1 0 }}', 'mod: division by zero'],
    ['{{ add 1 "x" }}', 'add: expected a number, got "x"'],
    ['{{ add 1 spec.missing }}', 'add: expected a number, got absent'],
  ])('%s fails: %s', (source, message) => {
    expect(() => render(source, ctx)).toThrow(message);
  });
});

describe('time', () => {
  it.each([
    ['{{ now }}', '2026-04-06T08:05:09Z'],
    ['{{ formatDate now "YYYY-MM-DD HH:mm:ss" }}', '2026-04-06 08:05:09'],
    ['{{ formatDate "2026-04-06T10:05:09.5+02:00" "RFC3339" }}', '2026-04-06T08:05:09Z'],
    ['{{ formatDate 0 "YYYY/MM/DD" }}', '1970/01/01'],
    ['{{ formatDate "1775462709" "unix" }}', '1775462709'],
    ['{{ formatDate 1.25 "ss.SSS" }}', '01.250'],
    ['{{ formatDate now "[YYYY] week" }}', '[2026] week'],
  ])('%s → %j', (source, expected) => {
    expect(render(source, ctx)).toBe(expected);
  });

  it('rejects text that is not a time', () => {
    expect(() => render('{{ formatDate "yesterday" "RFC3339" }}')).toThrow(
      'formatDate: expected an RFC 3339 time or epoch seconds, got "yesterday"',
    );
  });

  it('reads the injected clock on every render', () => {
    let now = Date.UTC(2026, 0, 1);
    const ticking = createTemplateEngine({ clock: { now: () => now } });
    const template = ticking.compileTemplate('{{ now }}');
    expect(template.render({})).toBe('2026-01-01T00:00:00Z');
    now += 61_000;
    expect(template.render({})).toBe('2026-01-01T00:01:01Z');
  });
});

describe('random helpers and uuid', () => {
  it('use the injected source', () => {
    expect(render('{{ randomHex 4 }}')).toBe('00010203');
    expect(render('{{ randomBase64 3 }}')).toBe(Buffer.from([0, 1, 2]).toString('base64url'));
    expect(render('{{ randomAlphanumeric 5 }}')).toBe('ABCDE');
    expect(render('{{ uuid }}')).toBe('00010203-0405-4607-8809-0a0b0c0d0e0f');
    expect(render('{{ uuidv4 }}')).toBe('00010203-0405-4607-8809-0a0b0c0d0e0f');
  });

  it('randomAlphanumeric rejects bytes that would bias the alphabet', () => {
    const biased = createTemplateEngine({
      random: (size) => Uint8Array.from({ length: size }, (_, i) => (i === 0 ? 250 : 61)),
    });
    expect(biased.compileTemplate('{{ randomAlphanumeric 2 }}').render({})).toBe('99');
  });

  it('produce the documented shapes from the default secure source', () => {
    const secure = createTemplateEngine();
    expect(secure.compileTemplate('{{ randomAlphanumeric 32 }}').render({})).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(secure.compileTemplate('{{ randomHex 16 }}').render({})).toMatch(/^[0-9a-f]{32}$/);
    expect(secure.compileTemplate('{{ randomBase64 16 }}').render({})).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(secure.compileTemplate('{{ uuid }}').render({})).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    const a = secure.compileTemplate('{{ randomHex 16 }}').render({});
    const b = secure.compileTemplate('{{ randomHex 16 }}').render({});
    expect(a).not.toBe(b);
  });

  it('reject negative or huge sizes', () => {
    expect(() => render('{{ randomHex -1 }}')).toThrow('randomHex: size must be between 0 and 65536, got -1');
    expect(() => render('{{ randomAlphanumeric 100000 }}')).toThrow('size must be between');
    expect(render('{{ randomHex 0 }}')).toBe('');
  });
});

describe('cronExpr', () => {
  it.each([
    ['{{ cronExpr 5 2 }}', '5 2 * * *'],
    ['{{ cronExpr "*/5" spec.missing "" 1 "MON-FRI" }}', '*/5 * * 1 MON-FRI'],
    ['{{ cronExpr }}', '* * * * *'],
    ['{{ cronExpr 0 0 1 1 0 }}', '0 0 1 1 0'],
  ])('%s → %j', (source, expected) => {
    expect(render(source, ctx)).toBe(expected);
  });
});

describe('Kubernetes object helpers', () => {
  const deployment = {
    metadata: { generation: 4 },
    spec: { replicas: 2 },
    status: {
      observedGeneration: 4,
      readyReplicas: 2,
      conditions: [
        { type: 'Available', status: 'True' },
        { type: 'Progressing', status: 'False' },
      ],
    },
  };
  const complete = { status: { conditions: [{ type: 'Complete', status: 'True' }] } };
  const failed = { status: { conditions: [{ type: 'Failed', status: 'True' }] } };
  const context = {
    children: {
      web: deployment,
      stale: { ...deployment, status: { ...deployment.status, observedGeneration: 3 } },
      complete,
      failed,
    },
  };

  it.each([
    ['{{ readyReplicas children.web }}', 2],
    ['{{ readyReplicas children.missing }}', 0],
    ['{{ allReplicasReady children.web }}', true],
    ['{{ allReplicasReady children.stale }}', false],
    ['{{ allReplicasReady children.missing }}', false],
    ['{{ allReplicasReady (dict "status" (dict "readyReplicas" 1)) }}', true],
    ['{{ hasCondition children.web "Available" }}', true],
    ['{{ hasCondition children.web "Progressing" }}', false],
    ['{{ hasCondition children.web "Progressing" "False" }}', true],
    ['{{ hasCondition children.missing "Available" }}', false],
    ['{{ jobSucceeded children.complete }}', true],
    ['{{ jobFailed children.complete }}', false],
    ['{{ jobFailed children.failed }}', true],
    ['{{ jobSucceeded children.missing }}', false],
  ])('%s → %j', (source, expected) => {
    expect(render(source, context)).toBe(expected);
  });
});

describe('createHelpers', () => {
  it('lists every helper of the spec and the upstream aliases', () => {
    const names = Object.keys(createHelpers()).sort();
    const expected = [
      'add',
      'allReplicasReady',
      'and',
      'b64dec',
      'b64enc',
      'coalesce',
      'contains',
      'cronExpr',
      'default',
      'dict',
      'div',
      'empty',
      'eq',
      'float',
      'formatDate',
      'fromBase64',
      'fromJson',
      'ge',
      'gt',
      'hasCondition',
      'hasPrefix',
      'hasSuffix',
      'int',
      'jobFailed',
      'jobSucceeded',
      'join',
      'le',
      'len',
      'list',
      'lower',
      'lt',
      'max',
      'min',
      'mod',
      'mul',
      'ne',
      'not',
      'now',
      'or',
      'quote',
      'randomAlphanumeric',
      'randomBase64',
      'randomHex',
      'readyReplicas',
      'replace',
      'sha256',
      'sha256sum',
      'split',
      'sub',
      'ternary',
      'timeUntil',
      'title',
      'toBase64',
      'toFloat',
      'toInt',
      'toJSON',
      'toJson',
      'toLower',
      'toString',
      'toUpper',
      'toYaml',
      'trim',
      'trimSpace',
      'trunc',
      'typeOf',
      'upper',
      'uuid',
      'uuidv4',
      // Upstream's helpers (upstream-helpers.ts); Go's `index` is registered as __goIndex.
      '__goAnd',
      '__goEq',
      '__goHtml',
      '__goIndex',
      '__goJs',
      '__goLen',
      '__goNot',
      '__goOr',
      '__goPrintln',
      '__goRange',
      '__goSlice',
      '__goTruth',
      '__goUrlquery',
      'asString',
      'boolDefault',
      'boolTernary',
      'containerEnv',
      'containerImage',
      'containerPort',
      'creationTimestamp',
      'eqTernary',
      'get',
      'getBoolOr',
      'getIntOr',
      'getOr',
      'getStringOr',
      'listGet',
      'listHas',
      'listLen',
      'mapGet',
      'mapKeys',
      'mapValues',
      'notEmpty',
      'print',
      'printf',
      'promAboveThreshold',
      'promBelowThreshold',
      'promLabelValues',
      'promMax',
      'promSeriesCount',
      'promSum',
      // Upstream's Kubernetes notes (upstream-kube-notes.ts); the word-named ones internally.
      '__noteAnnotations',
      '__noteGeneration',
      '__noteLabels',
      '__noteMeta',
      '__noteName',
      '__noteNamespace',
      '__noteObservedGeneration',
      '__notePhase',
      '__noteSpec',
      '__noteStatus',
      'availableReplicas',
      'conditionMessage',
      'conditionReason',
      'containerCount',
      'containerPortByName',
      'containerPorts',
      'desiredReplicas',
      'endpointsReady',
      'hasContainerPort',
      'isSynced',
      'isTerminating',
      'domainHost',
      'domainBare',
      'getLabel',
      'getLabelInt',
      'hasLabel',
      'getAnnotation',
      'getAnnotationInt',
      'hasAnnotation',
      'labelMatches',
      'getStatus',
      'hasStatus',
      'ownerKind',
      'ownerName',
      'resourceCPU',
      'resourceMemory',
      'rolloutComplete',
      'serviceClusterIP',
      'serviceLoadBalancerHost',
      'serviceLoadBalancerIP',
      'serviceNodePort',
      'updatedReplicas',
      'jobActive',
      'cronJobActiveCount',
      'cronJobLastScheduleTime',
      'cronJobLastSuccessTime',
      'cronJobNextScheduleTime',
      'ingressClassName',
      'ingressHost',
      'ingressIP',
      'ingressReady',
      'ingressRules',
      'ingressTLSHosts',
      'pvcAccessModes',
      'pvcBound',
      'pvcCapacity',
      'pvcPhase',
      'pvcStorageClass',
      'hpaAbleToScale',
      'hpaAtMax',
      'hpaCurrentReplicas',
      'hpaDesiredReplicas',
      'hpaMaxReplicas',
      'hpaMetricTypes',
      'hpaMinReplicas',
      'hpaScaleTargetKind',
      'hpaScaleTargetName',
      'hpaScaling',
      'hpaScalingActive',
      'hpaScalingLimited',
      // Over enriched children (katalog.md §17.6.2).
      'hasEndpoints',
      'serviceEndpoints',
      'serviceEndpointCount',
      'serviceFirstEndpoint',
      'jobFirstExitCode',
      'jobActivePodNames',
      'jobSucceededPodNames',
      'jobFailedPodNames',
      'podNames',
      'podIPs',
      'podPhases',
      'podNodes',
      'podCount',
      'readyPodCount',
      'podMaxRestarts',
      'hasCrashingPod',
      'podCrashLoopDetected',
      'podImagePullBackOffDetected',
      'podErrImagePullDetected',
      'podErrorDetected',
      'podOOMKilledDetected',
      'podRunContainerErrorDetected',
      'podCreateContainerErrorDetected',
      'podInvalidImageNameDetected',
      'podPreStartHookErrorDetected',
      'podPostStartHookErrorDetected',
      'podContainerReasons',
      'podByOrdinal',
      'podContainerState',
      'promValue',
      'resourceExists',
      'resourceName',
      'resourceNamespace',
      'resourceUID',
      'resourceVersion',
      // Upstream's time notes (upstream-time-notes.ts).
      'weekday',
      'weekend',
      'timeInWindow',
      'timeNotInWindow',
      'timeSince',
      'timeAgo',
      'isExpired',
      'nextCron',
      'timeFormat',
      'durationSeconds',
      'durationAdd',
      'durationValid',
      // Upstream's newest notes (upstream-inrun-notes.ts, katalog.md §17.6.1, §17.6.2).
      'replicasReady',
      'getServeTarget',
      'getServeAlias',
      'getServeSource',
      'hasServeTarget',
      'hasServeAlias',
      'hasServeSource',
      'isDirectApply',
      'hasWarnings',
      'warningCount',
      'firstWarning',
      'warningMessages',
      'warningReasons',
      'replicaSetOwnerName',
      'replicaSetOwnerKind',
      'deploymentReplicaSetCount',
      'deploymentReplicaSets',
      'oldDeploymentReplicaSets',
      'podNodeName',
      'podNodeZone',
      'podNodeRegion',
      'podNodeInstanceType',
      'pvcProvisioner',
      'pvcVolumeMode',
      'pvcStorageClassProvisioner',
      'pvcStorageClassReclaimPolicy',
      'statefulSetPVCCount',
      'backingPodCount',
      'backingPodNames',
      'cronJobLastJobName',
      'cronJobLastJobSucceeded',
      'cronJobLastSuccessfulJobName',
      'ingressLoadBalancerIPs',
      'ingressTLSSecretCount',
    ].sort();
    expect(names).toEqual(expected);
  });

  it('a helper failure is a TemplateError naming the Katalog path', () => {
    const template = engine.compileTemplate('{{ div spec.replicas 0 }}', {
      path: 'web.operatorBox.onReconcile.deployments[0].replicas',
    });
    let caught: unknown;
    try {
      template.render(ctx);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TemplateError);
    expect((caught as TemplateError).message).toBe(
      'web.operatorBox.onReconcile.deployments[0].replicas: render failed: div: division by zero',
    );
    expect((caught as TemplateError).code).toBe('TemplateError');
    expect(caught).toBeInstanceOf(OrkestraError);
    expect((caught as TemplateError).katalogPath).toBe('web.operatorBox.onReconcile.deployments[0].replicas');
  });
});

describe('timeUntil', () => {
  // fixedNow is 2026-04-06T08:05:09.123Z.
  it.each([
    ['2026-04-09T08:05:09.123Z', '72h0m0s'],
    ['2026-04-06T08:06:39.623Z', '1m30.5s'],
    ['2026-04-06T08:05:09.373Z', '250ms'],
    ['2026-04-06T08:05:10.123Z', '1s'],
    ['2026-04-06T08:05:09.123Z', '0s'],
    ['2020-01-01T00:00:00Z', '0s'],
    ['not a time', '0s'],
  ])('until %s is %s (Go’s duration form, 0s when past or invalid)', (at, want) => {
    expect(render(`{{ timeUntil "${at}" }}`)).toBe(want);
  });

  it('reads the injected clock', () => {
    let now = Date.UTC(2026, 0, 1);
    const ticking = createTemplateEngine({ clock: { now: () => now } });
    const template = ticking.compileTemplate('{{ timeUntil .at }}');
    expect(template.render({ at: '2026-01-01T01:00:00Z' })).toBe('1h0m0s');
    now += 30 * 60_000;
    expect(template.render({ at: '2026-01-01T01:00:00Z' })).toBe('30m0s');
  });
});
