/** isMap tells a map (an object that is not an array) from other values; the package's one copy. */
export function isMap(value: unknown): value is Record<string, unknown> {
  return value != null && typeof value === 'object' && !Array.isArray(value);
}
