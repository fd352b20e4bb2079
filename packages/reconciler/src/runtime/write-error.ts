/**
 * Mapping of failed child writes to the runtime's reasons and retry classes (docs/reference/runtime.md §9.5).
 */
import { KubeApiError, KubeErrorCode, formatRef } from '@orkestra/registry';
import type { ObjectRef } from '@orkestra/registry';
import { ConditionReason, OrkestraError } from '@orkestra/types';
import { formatReasonMessage } from '../reason-message.js';

/**
 * toWriteError turns what a child write threw into an OrkestraError whose message starts with the
 * entry's Katalog path and names the child. API failures keep the registry's reason and retry
 * class (`ApplyConflict`, `ApplyFailed` terminal for 400/422, `PruneFailed`), with the server's
 * causes; registry failures keep their code (`ChildOwnedByOther`, `TemplateError`).
 */
export function toWriteError(
  error: unknown,
  katalogPath: string,
  ref: ObjectRef | undefined,
  reasonIfApi?: ConditionReason,
): OrkestraError {
  const child = ref == null ? undefined : { kind: ref.kind, namespace: ref.namespace, name: ref.name };
  if (error instanceof KubeApiError) {
    let detail = error.message;
    if (error.causes.length > 0) {
      detail += ` (${error.causes.map((c) => [c.field, c.message].filter((p) => p != null && p !== '').join(': ')).join('; ')})`;
    }
    if (error.reason === KubeErrorCode.Forbidden && ref != null) {
      detail = `RBAC: ${error.verb} ${formatRef(ref)} is forbidden: ${error.message}`;
    }
    const code = reasonIfApi != null && error.code === ConditionReason.ApplyFailed ? reasonIfApi : error.code;
    return new OrkestraError(formatReasonMessage(katalogPath, detail, child), {
      code,
      retryable: error.retryable,
      katalogPath,
      cause: error,
    });
  }
  if (error instanceof OrkestraError) {
    const message = formatReasonMessage(error.katalogPath ?? katalogPath, error.message, child);
    return new OrkestraError(message, {
      code: error.code,
      retryable: error.retryable,
      katalogPath: error.katalogPath ?? katalogPath,
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new OrkestraError(formatReasonMessage(katalogPath, message, child), {
    code: ConditionReason.InternalError,
    retryable: true,
    katalogPath,
    cause: error,
  });
}
