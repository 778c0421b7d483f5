/** How long `until` waits, and how often it looks. */
export interface UntilOptions {
  /** The hang guard: how long to wait before failing (10 s unless told). */
  timeoutMs?: number
  /** The pause between two looks (20 ms unless told); 0 looks again on the next turn of the event loop. */
  everyMs?: number
}

/**
 * Waits until `condition` holds, looking again every `everyMs`, and fails naming `what` ("timed out
 * after 10 s waiting for the order to be sent") once `timeoutMs` has passed. The timeout is a hang
 * guard, never a figure the test asserts: tests assert outcomes, not how long they took. The one poll
 * the tests share; a condition may be async (a call through the contract).
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  { timeoutMs = 10_000, everyMs = 20 }: UntilOptions = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`)
    await new Promise((resolve) => (everyMs > 0 ? setTimeout(resolve, everyMs) : setImmediate(resolve)))
  }
}
