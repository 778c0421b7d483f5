/**
 * Is the ordering service reachable from here? net.isOnline() only says a network interface is up;
 * a hotel Wi-Fi login page or a dead VPN still looks "online" to it. So we ask the configured service
 * itself and accept only an answer that could have come from it.
 */

type ProbeStatus = 'online' | 'captive-portal' | 'unreachable'

export interface ProbeResult {
  status: ProbeStatus
  /** One line for the log and for Settings; never contains credentials (the probe sends none). */
  detail: string
  /** The service's Retry-After on a 429 or 503, in milliseconds: no probe goes before it runs out. */
  retryAfterMs?: number
  /**
   * Not reachable, but the service itself answered (a 5xx): it is down for every laptop at once, not
   * this laptop's network. Its return is the whole fleet's, and what waited is sent spread out.
   */
  serviceAnswered?: true
}

type FetchLike = (url: string, init: RequestInit) => Promise<Response>

export interface ProbeOptions {
  fetch?: FetchLike
  /** Short, so a rep on a flaky connection sees "offline" quickly instead of a hung sync. */
  timeoutMs?: number
  /**
   * A path every ordering service answers. Unauthenticated it gives 401 with a JSON body, which is
   * still proof that the service, not a portal, answered. GET /v1/catalogs is cheap and read-only.
   */
  path?: string
}

const defaultProbePath = '/v1/catalogs'
/** With the 5 s interval of a watched monitor (counted from the last check's end), a service that went silent shows within 10 s. */
const defaultProbeTimeoutMs = 4_000

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host.toLowerCase()
  } catch {
    return undefined
  }
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: { code?: unknown; message?: unknown } }).cause
    if (cause && typeof cause.code === 'string') return cause.code
    if (cause && typeof cause.message === 'string') return cause.message
    return error.message
  }
  return String(error)
}

/** Probes `${baseUrl}${path}` once, with no credentials, following no redirects. */
export async function probeService(baseUrl: string, options: ProbeOptions = {}): Promise<ProbeResult> {
  const fetchImpl = options.fetch ?? globalThis.fetch
  const timeoutMs = options.timeoutMs ?? defaultProbeTimeoutMs
  const target = `${baseUrl.replace(/\/+$/, '')}${options.path ?? defaultProbePath}`
  const expectedHost = hostOf(target)
  if (!expectedHost) return { status: 'unreachable', detail: 'The service address is not a valid URL.' }

  let response: Response
  try {
    response = await fetchImpl(target, {
      method: 'GET',
      // A portal's first move is a redirect to its own login host; following it would hide that.
      redirect: 'manual',
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    })
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')
    return {
      status: 'unreachable',
      detail: timedOut ? `No answer within ${timeoutMs / 1000} s.` : `Could not connect (${describeError(error)}).`,
    }
  }
  // Only the status line and headers matter; release the connection instead of reading the body.
  void response.body?.cancel().catch(() => undefined)

  // A fetch that follows redirects despite `manual` (or a transparent proxy) shows up here.
  const answeredFrom = response.url ? hostOf(response.url) : expectedHost
  if (answeredFrom && answeredFrom !== expectedHost) {
    return {
      status: 'captive-portal',
      detail: `Answered by ${answeredFrom} instead of ${expectedHost}; sign in to the network first.`,
    }
  }
  if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
    const location = response.headers.get('location')
    const redirectHost = location ? hostOf(new URL(location, target).href) : undefined
    if (!redirectHost || redirectHost !== expectedHost) {
      return {
        status: 'captive-portal',
        detail: `Redirected to ${redirectHost ?? 'an unknown page'}; sign in to the network first.`,
      }
    }
    return { status: 'online', detail: `The service answered (${response.status}).` }
  }
  const retryAfterMs =
    response.status === 429 || response.status === 503 ? retryAfterOf(response.headers.get('retry-after')) : undefined
  const quiet = retryAfterMs === undefined ? {} : { retryAfterMs }
  if (response.status >= 500)
    return {
      status: 'unreachable',
      detail: `The service answered ${response.status}.`,
      serviceAnswered: true,
      ...quiet,
    }
  // The service answers JSON (or plain text on a few legacy errors); a login page is HTML.
  const contentType = response.headers.get('content-type') ?? ''
  if (/text\/html|application\/xhtml/i.test(contentType)) {
    return {
      status: 'captive-portal',
      detail: `A web page (${response.status}) answered instead of the service; sign in to the network first.`,
    }
  }
  return { status: 'online', detail: `The service answered (${response.status}).`, ...quiet }
}

/** Retry-After as seconds or an HTTP date, in milliseconds from now; undefined when absent or unreadable. */
function retryAfterOf(header: string | null): number | undefined {
  if (header === null) return undefined
  const trimmed = header.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const at = Date.parse(trimmed)
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now())
}
