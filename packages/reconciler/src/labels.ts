/**
 * labelsMatch tells whether `labels` carry every `key: value` of an equality selector
 * (`matchLabels`): the one check behind cross reads (in process and over HTTP) and rollout selectors.
 */
export function labelsMatch(
  labels: Readonly<Record<string, string>> | undefined,
  selector: Readonly<Record<string, string>>,
): boolean {
  for (const [key, value] of Object.entries(selector)) if (labels?.[key] !== value) return false;
  return true;
}
