/**
 * `npx tsx test/service/throughput.ts [--size bench] [--seconds 10] [--concurrency 8] [--session] [--separate]`
 * Measures how fast the double serves 100-item catalog_items pages over keep-alive connections,
 * so the sync benchmark can trust that the double is not its bottleneck. `--separate` runs the
 * double in its own process (as `npm run service` does), so client and server each get a core.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Pool } from 'undici'
import { startService } from './server'
import type { ServiceCredentials, ServiceSize } from './types'

interface Target {
  url: string
  credentials: Pick<ServiceCredentials, 'apiKey' | 'apiSecret' | 'userGuid' | 'userToken' | 'supplierGuid'>
  catalogGuid: string
  startup: number
  stop(): Promise<void>
}

async function inProcess(size: ServiceSize): Promise<Target> {
  const started = Date.now()
  const service = await startService({ size, logBodies: false })
  const startup = Date.now() - started
  const [catalog] = service.control.catalogs()
  return {
    url: service.url,
    credentials: service.credentials,
    catalogGuid: String(catalog?.guid),
    startup,
    stop: () => service.close(),
  }
}

/** Starts main.ts in a child process and reads the URL and credentials it prints. */
async function separateProcess(size: ServiceSize): Promise<Target> {
  const started = Date.now()
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'main.ts'), '--size', String(size), '--port', '0'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  let output = ''
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('Ctrl+C')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`the double exited with ${String(code)}`)))
  })
  const startup = Date.now() - started
  const read = (label: string): string => new RegExp(`${label}: (\\S+)`).exec(output)?.[1] ?? ''
  const url = /listening on (\S+)/.exec(output)?.[1] ?? ''
  const credentials = {
    apiKey: read('x-apiKey'),
    apiSecret: read('x-apiSecret'),
    userGuid: read('userGuid'),
    userToken: read('userToken'),
    supplierGuid: read('supplierGuid'),
  }
  const response = await fetch(`${url}/v1/catalogs`, {
    headers: { 'x-apiKey': credentials.apiKey, 'x-apiSecret': credentials.apiSecret },
  })
  const { catalogs } = (await response.json()) as { catalogs: { guid: string }[] }
  return {
    url,
    credentials,
    catalogGuid: catalogs[0]?.guid ?? '',
    startup,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      size: { type: 'string', default: 'bench' },
      seconds: { type: 'string', default: '10' },
      concurrency: { type: 'string', default: '8' },
      session: { type: 'boolean', default: false },
      separate: { type: 'boolean', default: false },
    },
  })
  const size: ServiceSize = /^\d+$/.test(values.size) ? Number(values.size) : (values.size as ServiceSize)
  const seconds = Number(values.seconds)
  const concurrency = Number(values.concurrency)
  const target = values.separate ? await separateProcess(size) : await inProcess(size)
  const c = target.credentials
  const headers: Record<string, string> = values.session
    ? { userGuid: c.userGuid, userToken: c.userToken, supplierGuid: c.supplierGuid }
    : { 'x-apiKey': c.apiKey, 'x-apiSecret': c.apiSecret }
  const catalogGuid = target.catalogGuid
  const pool = new Pool(target.url, { connections: concurrency, pipelining: 1 })

  const first = await pool.request({
    method: 'GET',
    path: `/v1/catalog/${catalogGuid}/catalog_items?limit=100`,
    headers,
  })
  const firstBody = (await first.body.json()) as { totalCatalogItems: number }
  const pages = Math.ceil(firstBody.totalCatalogItems / 100)

  let requests = 0
  let bytes = 0
  let failures = 0
  const latencies: number[] = []
  const fetchPage = async (offset: number, record: boolean): Promise<void> => {
    const t = performance.now()
    const response = await pool.request({
      method: 'GET',
      path: `/v1/catalog/${catalogGuid}/catalog_items?limit=100&offset=${offset}`,
      headers,
    })
    const body = await response.body.arrayBuffer()
    if (!record) return
    latencies.push(performance.now() - t)
    if (response.statusCode !== 200) failures++
    requests++
    bytes += body.byteLength
  }
  // The cold pass reads every page once, serializing each item for the first time, as the first
  // full sync of a run does; later passes are served from the per-item cache.
  let nextCold = 0
  const coldStart = Date.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (nextCold < pages) await fetchPage(nextCold++, false)
    }),
  )
  const coldSeconds = (Date.now() - coldStart) / 1000
  const t0 = Date.now()
  const deadline = t0 + seconds * 1000
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) await fetchPage(next++ % pages, true)
    }),
  )
  const elapsed = (Date.now() - t0) / 1000
  latencies.sort((a, b) => a - b)
  const pct = (p: number): string => (latencies[Math.floor((latencies.length - 1) * p)] ?? 0).toFixed(1)
  process.stdout.write(
    [
      `size ${String(size)}, double ${values.separate ? 'in its own process' : 'in-process'}, ${values.session ? 'user session' : 'API key'} headers, concurrency ${concurrency}, startup ${target.startup} ms`,
      `${requests} pages of 100 items in ${elapsed.toFixed(1)} s: ${(requests / elapsed).toFixed(0)} requests/s, ${(bytes / elapsed / 1e6).toFixed(1)} MB/s, ${(bytes / Math.max(1, requests) / 1024).toFixed(0)} KiB/page`,
      `latency p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms; non-200: ${failures}`,
      `cold first pass (every item serialized once): ${pages} pages in ${coldSeconds.toFixed(1)} s, ${(pages / coldSeconds).toFixed(0)} requests/s`,
    ].join('\n') + '\n',
  )
  await pool.close()
  await target.stop()
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
