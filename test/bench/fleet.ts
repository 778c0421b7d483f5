/**
 * npm run bench:fleet [-- --laptops N] [--no-pictures] [--filling N]: a simulated day of N laptops (default 10,000) against one
 * service, each running Satchel's own scheduler, connectivity monitor and outbox driver on a virtual
 * clock (test/fleet/simulation.ts). Prints requests per second per phase and the fleet's figures
 * against their targets, and writes them to test/bench/results/. Item pictures (test/fleet/pictures.ts)
 * are in the day unless --no-pictures; --filling N gives every laptop N items it has never read (a new
 * laptop filling its cache), whose reads the background's hourly cap spreads out.
 */
import { defaultPictureModel } from '../fleet/pictures'
import { formatPhases, simulateFleet } from '../fleet/simulation'
import { printTable, writeResults } from './support'

const argument = (name: string): string | undefined => {
  const index = process.argv.indexOf(`--${name}`)
  return index >= 0 ? process.argv[index + 1] : undefined
}

async function main(): Promise<void> {
  const laptops = Number(argument('laptops') ?? 10_000)
  const pictures = process.argv.includes('--no-pictures')
    ? false
    : { ...defaultPictureModel, unread: Number(argument('filling') ?? 0) }
  const started = performance.now()
  const customersPerDay = Number(argument('customers') ?? 20)
  const results = await simulateFleet({ laptops, pictures, customersPerDay })
  const elapsedS = (performance.now() - started) / 1000

  process.stdout.write(
    `\n${laptops.toLocaleString('en-US')} laptops, ${results.simulated.from}–${results.simulated.until} simulated in ${elapsedS.toFixed(1)} s\n`,
  )
  process.stdout.write('\nRequests per second to the service (1-second buckets)\n\n')
  process.stdout.write(formatPhases(results) + '\n')

  const ratio = (value: number | null) => (value === null ? 'n/a' : value.toFixed(2))
  const minutes = (ms: number | null) => (ms === null ? 'n/a' : `${(ms / 60_000).toFixed(1)} min`)
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED')
  const idle = results.idle
  const byKind = `probe ${idle.byKind.probe.toFixed(1)}, sync ${idle.byKind.sync.toFixed(1)} (of which customers' histories ${idle.histories.toFixed(2)}), order ${idle.byKind.order.toFixed(1)}, picture ${idle.byKind.picture.toFixed(2)}`
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
  const shown = results.pictures
  const orders = results.orders
  printTable([
    [
      'idle requests per laptop-hour',
      `${idle.perLaptopHour.toFixed(1)} (${byKind}; ${idle.laptopHours.toFixed(0)} laptop-hours)`,
      '≤ 20',
      verdict(idle.perLaptopHour <= 20),
    ],
    [
      '8:00 opening: peak ÷ mean, 7:50–8:20',
      ratio(results.opening.peakOverMean),
      '≤ 3',
      verdict((results.opening.peakOverMean ?? Infinity) <= 3),
    ],
    [
      'after the 503 outage: peak ÷ mean, next 10 min',
      ratio(results.after503.peakOverMean),
      '≤ 3',
      verdict((results.after503.peakOverMean ?? Infinity) <= 3),
    ],
    [
      `orders waiting at recovery (${results.waitingAtRecovery.orders}): sent after`,
      `p50 ${minutes(results.waitingAtRecovery.p50Ms)}, p99 ${minutes(results.waitingAtRecovery.p99Ms)}`,
      '≤ 10 min (p99)',
      verdict(results.waitingAtRecovery.unsentAtClose === 0 && (results.waitingAtRecovery.p99Ms ?? 0) <= 10 * 60_000),
    ],
    [
      `orders sent more than once, or lost (of ${orders.written})`,
      `${orders.sentTwice} twice, ${orders.lost} lost, ${orders.leftWaitingAtClose} still waiting at close`,
      '0',
      verdict(orders.sentTwice === 0 && orders.lost === 0),
    ],
    [
      `429 phase: requests per laptop per Retry-After period (${results.retryAfter.laptopsTold} laptops told)`,
      `at most ${results.retryAfter.mostInOnePeriod}; ${results.retryAfter.periodsOverOne} laptops over 1`,
      '≤ 1',
      verdict(results.retryAfter.mostInOnePeriod <= 1),
    ],
    ['requests per order sent (all attempts)', results.perOrderRequests.toFixed(2), '—', '—'],
    ['requests per sync with nothing changed', String(results.perQuietSyncRequests), '—', '—'],
    [
      pictures
        ? `pictures: service requests per laptop-hour open (single-item reads)`
        : 'pictures: off (--no-pictures)',
      pictures ? `${shown.serviceReads.toFixed(2)}, ${kb(shown.serviceBytes)}` : '—',
      '—',
      '—',
    ],
    [
      'pictures: image host requests per laptop-hour open, and their bytes',
      pictures ? `${shown.hostRequests.toFixed(2)}, ${kb(shown.hostBytes)}` : '—',
      '—',
      '—',
    ],
  ])
  const record = { at: new Date().toISOString(), laptops, pictures, elapsedS, results }
  writeResults('fleet', record)
}

void main()
