/**
 * runLimited calls `task` for every item with at most `concurrency` calls in flight, in item
 * order, and resolves when all are done; the first rejection rejects the whole run (the other
 * lanes stop taking items).
 *
 * @example
 * await runLimited(names, 8, (name) => create(name));
 */
export async function runLimited<T>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        await task(items[index] as T, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const lanes = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, lane);
  await Promise.all(lanes);
}
