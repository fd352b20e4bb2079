import { describe, expect, it } from 'vitest';
import { createTemplateEngine } from './template-engine.js';

/** Upstream's Prometheus helpers over `external.<name>` of `protocol: prometheus` (docs/reference/katalog.md §15.1.1). */

const vector = (...values: string[]) => ({
  result: values[0] ?? '',
  raw: {
    status: 'success',
    data: {
      resultType: 'vector',
      result: values.map((v, i) => ({ metric: { pod: `p${i}` }, value: [1_700_000_000, v] })),
    },
  },
});

const engine = createTemplateEngine();
const render = (source: string, external: unknown): string =>
  String(engine.renderTemplate(source, { external: { q: external } } as never));

describe('prometheus helpers', () => {
  it('promValue is the canonical scalar, "" without a result', () => {
    expect(render('{{ promValue .external.q }}', vector('42', '7'))).toBe('42');
    expect(render('{{ promValue .external.missing }}', vector())).toBe('');
  });

  it('promAboveThreshold and promBelowThreshold are strict, over numbers and numeric text', () => {
    expect(render('{{ promAboveThreshold .external.q 41 }}', vector('42'))).toBe('true');
    expect(render('{{ promAboveThreshold .external.q 42 }}', vector('42'))).toBe('false');
    expect(render('{{ promAboveThreshold .external.q "41.5" }}', vector('42'))).toBe('true');
    expect(render('{{ promBelowThreshold .external.q 43 }}', vector('42'))).toBe('true');
    expect(render('{{ promAboveThreshold .external.q 1 }}', vector())).toBe('false');
    expect(render('{{ promAboveThreshold .external.q 1 }}', vector('+Inf'))).toBe('true');
  });

  it('promSeriesCount, promSum, promMax and promLabelValues read every series', () => {
    expect(render('{{ promSeriesCount .external.q }}', vector('1', '2', '3.5'))).toBe('3');
    expect(render('{{ promSeriesCount .external.missing }}', vector())).toBe('0');
    expect(render('{{ promSum .external.q }}', vector('1', '2', '3.5'))).toBe('6.5');
    expect(render('{{ promMax .external.q }}', vector('1', '9', '3.5'))).toBe('9');
    expect(render('{{ promLabelValues .external.q "pod" }}', vector('1', '9'))).toBe('p0,p1');
  });

  it('a range answer counts its series and reads the last sample of each', () => {
    const matrix = {
      result: '5',
      raw: {
        data: {
          resultType: 'matrix',
          result: [
            {
              metric: {},
              values: [
                [1, '1'],
                [2, '5'],
              ],
            },
            {
              metric: {},
              values: [
                [1, '2'],
                [2, '3'],
              ],
            },
          ],
        },
      },
    };
    expect(render('{{ promSeriesCount .external.q }}', matrix)).toBe('2');
    expect(render('{{ promSum .external.q }}', matrix)).toBe('8');
  });
});
