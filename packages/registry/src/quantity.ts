const BINARY: Readonly<Record<string, bigint>> = {
  Ki: 1024n,
  Mi: 1024n ** 2n,
  Gi: 1024n ** 3n,
  Ti: 1024n ** 4n,
  Pi: 1024n ** 5n,
  Ei: 1024n ** 6n,
};
const DECIMAL_EXP: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;

/**
 * parseQuantity reads a Kubernetes resource quantity (`500m`, `1Gi`, `0.5`, `1e3`) and returns
 * its value in nano-units as a bigint (values finer than 1n are rounded up, as Kubernetes does),
 * or undefined when the text is not a quantity.
 */
export function parseQuantity(value: string | number): bigint | undefined {
  const text = typeof value === 'number' ? numberText(value) : value.trim();
  if (text == null) return undefined;
  const m = QUANTITY.exec(text);
  if (m == null) return undefined;
  const sign = m[1] === '-' ? -1n : 1n;
  const digits = m[2] ?? '0';
  const suffix = m[3] ?? '';
  const [intPart = '', fracPart = ''] = digits.split('.');
  // mantissa = intPart.fracPart as a scaled integer: value = mantissa * 10^-frac.length
  const mantissa = BigInt((intPart === '' ? '0' : intPart) + fracPart);
  let scale = -fracPart.length;
  let multiplier = 1n;
  const binary = BINARY[suffix];
  if (binary != null) multiplier = binary;
  else if (/^[eE]/.test(suffix)) scale += Number.parseInt(suffix.slice(1), 10);
  else scale += DECIMAL_EXP[suffix] ?? 0;
  // nano-units: value * 10^9
  const exp = scale + 9;
  let nanos: bigint;
  if (exp >= 0) nanos = mantissa * multiplier * 10n ** BigInt(exp);
  else {
    const div = 10n ** BigInt(-exp);
    const num = mantissa * multiplier;
    nanos = num / div + (num % div === 0n ? 0n : 1n);
  }
  return sign * nanos;
}

function numberText(n: number): string | undefined {
  if (!Number.isFinite(n)) return undefined;
  // Avoid exponent forms JavaScript may produce for tiny/huge numbers by using toString,
  // which the regexp above accepts as `1e-7` or `1e+21`.
  return String(n);
}

/** isQuantity tells whether a value parses as a Kubernetes quantity. */
export function isQuantity(value: unknown): value is string | number {
  return (typeof value === 'string' || typeof value === 'number') && parseQuantity(value) !== undefined;
}

/**
 * canonicalQuantity returns a comparison key for a quantity: equal values give equal keys
 * (`0.5` and `500m`, `1Gi` and `1024Mi`). Non-quantities are returned unchanged.
 */
export function canonicalQuantity(value: unknown): unknown {
  if (typeof value !== 'string' && typeof value !== 'number') return value;
  const n = parseQuantity(value);
  return n == null ? value : `quantity:${n.toString()}n`;
}
