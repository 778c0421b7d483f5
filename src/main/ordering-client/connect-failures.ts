/**
 * Failures of the connect phase: the name not found (ENOTFOUND, EAI_AGAIN), the connection refused
 * or timed out, TLS that never completed (a certificate refused, a handshake failed). undici writes
 * a request only on a connected socket, and fails the requests waiting for one with the connect's
 * own error, so a request that failed with one of these provably never left this laptop. Told by
 * where the error came from, not by its code: a reset or a TLS error once the socket is up comes
 * after the request may have been written, and says nothing of the kind.
 */
const connectFailures = new WeakSet<object>()

/**
 * Marks a connector's failure as having happened before any request was written (transport.ts's
 * connector). Apart from undici, so ServiceError, which asks failedToConnect, loads without it: sync's
 * page reader thread makes ServiceErrors and never connects.
 */
export function markConnectFailure(error: object): void {
  connectFailures.add(error)
}

/** Whether `error` (or what it wraps) is a failure to connect: its request was never written. */
export function failedToConnect(error: unknown): boolean {
  for (
    let cause = error, depth = 0;
    typeof cause === 'object' && cause !== null && depth < 5;
    cause = (cause as { cause?: unknown }).cause, depth++
  ) {
    if (connectFailures.has(cause)) return true
  }
  return false
}
