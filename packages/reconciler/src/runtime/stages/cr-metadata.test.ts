import { compileValue } from '@orkestra/template';
import { describe, expect, it } from 'vitest';
import type { CompiledCrd } from '../compile-katalog.js';
import { renderCrMetadata } from './cr-metadata.js';
import { newRunState } from './run-state.js';

const crdWith = (labels: Record<string, string>, annotations: Record<string, string> = {}) =>
  ({
    katalogPath: 'spec.crds.team',
    crMetadata: compileValue({ labels, annotations }, { path: 'spec.crds.team' }),
  }) as unknown as CompiledCrd;

describe('renderCrMetadata', () => {
  it('renders the entry labels and annotations against the CR into the run state', () => {
    const state = newRunState();
    renderCrMetadata(
      { crd: crdWith({ team: '{{ .spec.team }}' }, { owner: '{{ .spec.team }}-owners' }) },
      { spec: { team: 'blue' } },
      state,
    );
    expect(Object.fromEntries(state.labels)).toEqual({ team: 'blue' });
    expect(Object.fromEntries(state.annotations)).toEqual({ owner: 'blue-owners' });
  });

  it('refuses a rendered label value the API server would refuse, naming the label', () => {
    const render = (team: string) => () =>
      renderCrMetadata({ crd: crdWith({ team: '{{ .spec.team }}' }) }, { spec: { team } }, newRunState());
    expect(render('not a label')).toThrow(/labels\.team renders "not a label", which is not a label value/);
    expect(render('x'.repeat(64))).toThrow(/not a label value/);
    expect(render('-edge')).toThrow(/not a label value/);
    expect(render('')).not.toThrow();
    expect(render('a.b_c-9')).not.toThrow();
  });

  it('does nothing for an entry without labels or annotations', () => {
    const state = newRunState();
    renderCrMetadata({ crd: { crMetadata: undefined } as unknown as CompiledCrd }, {}, state);
    expect(state.labels.size + state.annotations.size).toBe(0);
  });
});
