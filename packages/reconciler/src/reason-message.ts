/**
 * Condition and event messages (docs/reference/runtime.md §8): the Katalog path first, then the child the message
 * is about, then the detail, cut to {@link MAX_MESSAGE_LENGTH} characters.
 */

/** MAX_MESSAGE_LENGTH is the longest message the runtime writes on a condition or an event, in characters. */
export const MAX_MESSAGE_LENGTH = 1024;

/** ChildRef names the child object a message is about, e.g. `Deployment shop/shop-web`. */
export interface ChildRef {
  readonly kind: string;
  /** Absent or empty for cluster-scoped objects. */
  readonly namespace?: string | undefined;
  readonly name: string;
}

/**
 * truncateMessage cuts a message to at most `max` characters (Unicode code points), the last one
 * being `…` when anything was cut. Surrogate pairs are never split.
 *
 * @example
 * truncateMessage('x'.repeat(2000)).length; // 1024
 */
export function truncateMessage(message: string, max: number = MAX_MESSAGE_LENGTH): string {
  // Fast path: UTF-16 length is an upper bound of the code-point count.
  if (message.length <= max) return message;
  const codePoints = Array.from(message);
  if (codePoints.length <= max) return message;
  return `${codePoints.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** formatChildRef renders a child as `Kind namespace/name` (or `Kind name` for cluster-scoped objects). */
export function formatChildRef(child: ChildRef): string {
  const namespace = child.namespace ?? '';
  return namespace === '' ? `${child.kind} ${child.name}` : `${child.kind} ${child.namespace}/${child.name}`;
}

/**
 * formatReasonMessage builds a condition or event message (docs/reference/runtime.md §8): the Katalog path, the
 * child in parentheses when given, then the detail, cut to 1024 characters with a trailing `…`.
 *
 * When `detail` already starts with the Katalog path (as `TemplateError` messages do, e.g.
 * `shop.operatorBox.onReconcile.deployments[0].replicas: expected an integer`), the path is not
 * repeated and the child reference goes after the detail's own, longer, path. An empty Katalog
 * path leaves just the child reference and the detail.
 *
 * @example
 * formatReasonMessage(
 *   'shop.operatorBox.onReconcile.deployments[0]',
 *   'spec.template.spec.containers[0].image: Required value',
 *   { kind: 'Deployment', namespace: 'shop', name: 'shop-web' },
 * );
 * // 'shop.operatorBox.onReconcile.deployments[0] (Deployment shop/shop-web): spec.template.spec.containers[0].image: Required value'
 */
export function formatReasonMessage(katalogPath: string, detail: string, childRef?: ChildRef): string {
  const ref = childRef == null ? '' : `(${formatChildRef(childRef)})`;
  let location = katalogPath;
  let rest = detail;
  if (katalogPath !== '' && detail.startsWith(katalogPath)) {
    const next = detail.charAt(katalogPath.length);
    const colon = detail.indexOf(': ', katalogPath.length);
    if (next === ':' || next === '.' || next === '[') {
      if (colon >= 0) {
        location = detail.slice(0, colon);
        rest = detail.slice(colon + 2);
      } else if (next !== ':') {
        location = detail;
        rest = '';
      }
    }
  }
  const head = [location, ref].filter((part) => part !== '').join(' ');
  const message = head === '' ? rest : rest === '' ? head : `${head}: ${rest}`;
  return truncateMessage(message);
}
