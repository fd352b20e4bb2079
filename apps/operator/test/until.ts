/** sleep resolves after `ms`. */
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * until reads `read` every 200 ms (150 times at most) until `done` accepts its value, and returns
 * it; the deadline only turns a hang into a failure naming `what` and the last value.
 */
export async function until<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
): Promise<T> {
  let value = await read();
  for (let attempt = 0; attempt < 150 && !done(value); attempt++) {
    await sleep(200);
    value = await read();
  }
  if (!done(value)) throw new Error(`${what}: still ${JSON.stringify(value)}`);
  return value;
}
