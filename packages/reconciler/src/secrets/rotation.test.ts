import { OrkestraAnnotation } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import {
  formatRfc3339,
  generationStamp,
  parseGeneratedAt,
  rotationIntervalMs,
  secretRotationState,
  tlsValidForMs,
} from './rotation.js';

const DAY = 86_400_000;
const t0 = new Date('2026-01-01T00:00:00Z');

function secret(generatedAt?: string) {
  return {
    metadata: { annotations: generatedAt == null ? {} : { [OrkestraAnnotation.GeneratedAt]: generatedAt } },
  };
}

function at(ms: number): Date {
  return new Date(t0.getTime() + ms);
}

describe('rotationIntervalMs', () => {
  it('uses rotateAfter, else two thirds of the TLS validity', () => {
    expect(rotationIntervalMs({ rotateAfter: '90d' })).toBe(90 * DAY);
    expect(rotationIntervalMs({ rotateAfter: '1h', tls: { validFor: '1y' } })).toBe(3_600_000);
    expect(rotationIntervalMs({ tls: { validFor: '90d' } })).toBe(60 * DAY);
    expect(rotationIntervalMs({ tls: {} })).toBe(Math.floor((365 * DAY * 2) / 3));
  });

  it('is undefined for entries that do not rotate, including rotateAfter 0', () => {
    expect(rotationIntervalMs({})).toBeUndefined();
    expect(rotationIntervalMs({ rotateAfter: '0' })).toBeUndefined();
  });

  it('rejects invalid durations', () => {
    expect(() => rotationIntervalMs({ rotateAfter: 'soon' })).toThrow(/invalid duration/);
  });
});

describe('tlsValidForMs', () => {
  it('defaults validFor to rotateAfter, then one year', () => {
    expect(tlsValidForMs({ tls: { validFor: '30d' }, rotateAfter: '10d' })).toBe(30 * DAY);
    expect(tlsValidForMs({ tls: {}, rotateAfter: '10d' })).toBe(10 * DAY);
    expect(tlsValidForMs({ tls: {} })).toBe(365 * DAY);
  });
});

describe('secretRotationState', () => {
  it('never rotates plain or once Secrets', () => {
    expect(secretRotationState({ secret: secret(), entry: {}, now: t0 })).toEqual({
      due: false,
      stampNeeded: false,
    });
  });

  it('does nothing for a Secret that does not exist yet', () => {
    expect(secretRotationState({ secret: undefined, entry: { rotateAfter: '1d' }, now: t0 })).toEqual({
      due: false,
      stampNeeded: false,
    });
  });

  it('is due exactly at generated-at + rotateAfter', () => {
    const entry = { rotateAfter: '90d' };
    const s = secret('2026-01-01T00:00:00Z');
    const before = secretRotationState({ secret: s, entry, now: at(90 * DAY - 1) });
    expect(before).toEqual({ due: false, dueAt: at(90 * DAY), stampNeeded: false });
    expect(secretRotationState({ secret: s, entry, now: at(90 * DAY) }).due).toBe(true);
    expect(secretRotationState({ secret: s, entry, now: at(200 * DAY) }).due).toBe(true);
  });

  it('rotates TLS without rotateAfter at two thirds of validFor', () => {
    const s = secret('2026-01-01T00:00:00Z');
    const entry = { tls: { validFor: '30d' } };
    expect(secretRotationState({ secret: s, entry, now: at(20 * DAY - 1) }).due).toBe(false);
    const state = secretRotationState({ secret: s, entry, now: at(20 * DAY) });
    expect(state).toEqual({ due: true, dueAt: at(20 * DAY), stampNeeded: false });
  });

  it('asks for a stamp when generated-at is missing or unparseable, starting the clock now', () => {
    for (const value of [undefined, '', 'yesterday', '2026-01-01', '2026-13-45T00:00:00Z']) {
      const state = secretRotationState({ secret: secret(value), entry: { rotateAfter: '1d' }, now: t0 });
      expect(state).toEqual({ due: false, dueAt: at(DAY), stampNeeded: true });
    }
    const bare = secretRotationState({ secret: { metadata: {} }, entry: { tls: {} }, now: t0 });
    expect(bare.stampNeeded).toBe(true);
  });

  it('accepts offsets and fractional seconds in generated-at', () => {
    const state = secretRotationState({
      secret: secret('2026-01-01T02:00:00.500+02:00'),
      entry: { rotateAfter: '1h' },
      now: t0,
    });
    expect(state.dueAt?.toISOString()).toBe('2026-01-01T01:00:00.500Z');
    expect(state.due).toBe(false);
  });

  it("counts from upstream's stamp on a Secret upstream generated, Orkestra's winning when both are there", () => {
    for (const key of ['orkestra.orkspace.io/generated-at', 'inrun.dev/generated-at']) {
      const upstream = { metadata: { annotations: { [key]: '2025-12-31T00:00:00Z' } } };
      const state = secretRotationState({ secret: upstream, entry: { rotateAfter: '1d' }, now: t0 });
      expect(state).toEqual({ due: true, dueAt: t0, stampNeeded: false });
    }
    const both = {
      metadata: {
        annotations: {
          'orkestra.orkspace.io/generated-at': '2025-01-01T00:00:00Z',
          [OrkestraAnnotation.GeneratedAt]: '2026-01-01T00:00:00Z',
        },
      },
    };
    expect(secretRotationState({ secret: both, entry: { rotateAfter: '1d' }, now: t0 })).toEqual({
      due: false,
      dueAt: at(DAY),
      stampNeeded: false,
    });
  });
});

describe('generationStamp', () => {
  it('writes generated-at in UTC with second precision and the declared rotate-after', () => {
    expect(generationStamp(new Date('2026-11-30T09:12:44.987Z'), '90d')).toEqual({
      'orkestra.konductor.io/generated-at': '2026-11-30T09:12:44Z',
      'orkestra.konductor.io/rotate-after': '90d',
    });
  });

  it('leaves out rotate-after when the entry has none', () => {
    expect(generationStamp(t0)).toEqual({ [OrkestraAnnotation.GeneratedAt]: '2026-01-01T00:00:00Z' });
  });

  it('round-trips through parseGeneratedAt', () => {
    const stamp = generationStamp(new Date('2030-06-15T12:34:56Z'));
    expect(parseGeneratedAt(stamp[OrkestraAnnotation.GeneratedAt])?.toISOString()).toBe(
      '2030-06-15T12:34:56.000Z',
    );
    expect(formatRfc3339(new Date(0))).toBe('1970-01-01T00:00:00Z');
  });
});
