/**
 * OperationResult says what an operation did to a child; the word completes
 * "Deployment shop/web was …".
 */
export const OperationResult = {
  Unchanged: 'unchanged',
  Created: 'created',
  Updated: 'updated',
  Deleted: 'deleted',
  Absent: 'absent',
} as const;
export type OperationResult = (typeof OperationResult)[keyof typeof OperationResult];

/** EnsureResult is what `ensure` reports: `created`, `updated` or `unchanged`. */
export type EnsureResult =
  typeof OperationResult.Created | typeof OperationResult.Updated | typeof OperationResult.Unchanged;

/** RemoveResult is what `remove` reports: `deleted`, or `absent` when there was nothing to delete. */
export type RemoveResult = typeof OperationResult.Deleted | typeof OperationResult.Absent;

/** WriteMode is how a child is written: `create` if absent, or server-side `apply`. */
export const WriteMode = {
  Create: 'create',
  Apply: 'apply',
} as const;
export type WriteMode = (typeof WriteMode)[keyof typeof WriteMode];
