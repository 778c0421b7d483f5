/**
 * `npm run service -- [--port N] [--size tiny|demo|bench|<items>] [--seed S] [--control] [--no-compress] [--cache-replies] [--history]`
 * Runs the ordering-service double for people: the demo, manual checks with curl, drills.
 */
import { parseArgs } from 'node:util'
import { sizeProfile } from './generate'
import { startService } from './server'
import type { ServiceSize } from './types'

const DEFAULT_PORT = 4010

function fail(message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(2)
}

function parseSize(value: string): ServiceSize {
  if (value === 'tiny' || value === 'demo' || value === 'bench') return value
  if (/^\d+$/.test(value) && Number(value) > 0) return Number(value)
  return fail(`--size must be tiny, demo, bench or a number of items (got '${value}')`)
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      size: { type: 'string' },
      seed: { type: 'string' },
      control: { type: 'boolean', default: false },
      // Replies are compressed as a web server in front of a service would (compression.ts) unless told not to.
      'no-compress': { type: 'boolean', default: false },
      // The benches': a CDN's cache in front of the double (reply-cache.ts), so a page is compressed once.
      'cache-replies': { type: 'boolean', default: false },
      // 24 months of orders for a few customers, for a customer's brief (history.ts).
      history: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  })
  if (values.help) {
    process.stdout.write(
      'npm run service -- [--port N] [--size tiny|demo|bench|<items>] [--seed S] [--control] [--no-compress] [--cache-replies] [--history]\n',
    )
    return
  }
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be 0..65535 (got '${values.port ?? ''}')`)
  const seed = values.seed === undefined ? 1 : Number(values.seed)
  if (!Number.isInteger(seed)) fail(`--seed must be an integer (got '${values.seed ?? ''}')`)
  const size = parseSize(values.size ?? 'demo')

  const started = Date.now()
  const service = await startService({
    port,
    size,
    seed,
    httpControl: values.control,
    logBodies: size !== 'bench',
    compress: !values['no-compress'],
    history: values.history,
    cacheReplies: values['cache-replies'],
  })
  const elapsed = Date.now() - started
  const profile = sizeProfile(size)
  const c = service.credentials
  const lines = [
    `Ordering-service double (interface v1.19) listening on ${service.url}`,
    `  data: size ${String(size)} (about ${profile.items} items, ${profile.customers} customers, ${profile.orders} orders), seed ${seed}; started in ${elapsed} ms`,
    `  replies: ${values['no-compress'] ? 'uncompressed (--no-compress)' : 'br, gzip or deflate as the request accepts, from 1 KB'}`,
    `  reply cache: ${values['cache-replies'] ? "on (--cache-replies): a 200 GET's reply is kept as sent until a write" : 'off'}`,
    '',
    '  API key headers:',
    `    x-apiKey: ${c.apiKey}`,
    `    x-apiSecret: ${c.apiSecret}`,
    '  User session headers (supplier user):',
    `    userGuid: ${c.userGuid}`,
    `    userToken: ${c.userToken}`,
    `    supplierGuid: ${c.supplierGuid}`,
  ]
  if (c.customerUser) {
    lines.push(
      '  User session headers (customer user):',
      `    userGuid: ${c.customerUser.userGuid}`,
      `    userToken: ${c.customerUser.userToken}`,
      `    supplierGuid: ${c.customerUser.supplierGuid}`,
      `    vendorGuid: ${c.customerUser.vendorGuid}`,
    )
  }
  lines.push(
    '',
    values.control
      ? `  Control surface: ${service.url}/__control`
      : '  Control surface: off (start with --control to enable /__control)',
    '',
    '  Try:',
    `    curl -s -H 'x-apiKey: ${c.apiKey}' -H 'x-apiSecret: ${c.apiSecret}' '${service.url}/v1/catalogs'`,
    '',
    'Ctrl+C stops it.',
  )
  process.stdout.write(lines.join('\n') + '\n')

  const stop = (): void => {
    service.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
