import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'

const main = join(__dirname, 'main.ts')
let child: ChildProcess | undefined

afterEach(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child?.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
  child = undefined
})

/** Runs main.ts the way `npm run service` does (tsx), and waits for its banner. */
async function run(args: string[]): Promise<{ output: string }> {
  child = spawn(process.execPath, ['--import', 'tsx', main, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  await new Promise<void>((resolve, reject) => {
    child?.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('Ctrl+C')) resolve()
    })
    child?.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child?.once('exit', (code) => reject(new Error(`exited with ${String(code)}: ${output}`)))
  })
  return { output }
}

function field(output: string, label: string): string {
  const match = new RegExp(`${label}: (\\S+)`).exec(output)
  if (!match?.[1]) throw new Error(`no ${label} in:\n${output}`)
  return match[1]
}

describe('npm run service', () => {
  it('starts with demo data, prints the URL and credentials, and answers curl-style requests with them', async () => {
    const { output } = await run(['--size', 'demo', '--port', '0'])
    // How fast it starts is a figure the banner prints ("started in N ms"), not a pass mark.
    expect(output).toMatch(/started in \d+ ms/)
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1]
    expect(url).toBeDefined()
    const apiKey = { 'x-apiKey': field(output, 'x-apiKey'), 'x-apiSecret': field(output, 'x-apiSecret') }
    const catalogs = (await (await fetch(`${url}/v1/catalogs`, { headers: apiKey })).json()) as {
      catalogs: { guid: string }[]
      resource: string
    }
    expect(catalogs.resource).toBe('Catalog')
    const items = (await (
      await fetch(`${url}/v1/catalog/${catalogs.catalogs[0]?.guid}/catalog_items?limit=100`, { headers: apiKey })
    ).json()) as { catalog_items: unknown[]; totalCatalogItems: number }
    expect(items.catalog_items).toHaveLength(100)
    expect(items.totalCatalogItems).toBeGreaterThan(1000)
    const session = {
      userGuid: field(output, 'userGuid'),
      userToken: field(output, 'userToken'),
      supplierGuid: field(output, 'supplierGuid'),
    }
    const vendors = (await (await fetch(`${url}/vendors?limit=2`, { headers: session })).json()) as { total: number }
    expect(vendors.total).toBe(300)
    expect((await fetch(`${url}/__control/now`)).status).toBe(404)
    // A hang guard, not a figure: the demo data took 5.5 s to start on a busy CI machine.
  }, 60_000)

  it('--control serves the control surface and --seed picks the data', async () => {
    const { output } = await run(['--size', 'tiny', '--port', '0', '--seed', '9', '--control'])
    const url = /listening on (\S+)/.exec(output)?.[1]
    const now = (await (await fetch(`${url}/__control/now`)).json()) as { result: string }
    expect(Date.parse(now.result)).toBeGreaterThan(0)
    expect(output).toContain('seed 9')
  })

  it('--cache-replies puts the reply cache in front of it, as the benches run it', async () => {
    const { output } = await run(['--size', 'tiny', '--port', '0', '--control', '--cache-replies'])
    expect(output).toContain('reply cache: on')
    const url = /listening on (\S+)/.exec(output)?.[1]
    const apiKey = { 'x-apiKey': field(output, 'x-apiKey'), 'x-apiSecret': field(output, 'x-apiSecret') }
    for (let i = 0; i < 2; i++) expect((await fetch(`${url}/v1/catalogs`, { headers: apiKey })).status).toBe(200)
    const figures = (await (await fetch(`${url}/__control/replyCache`)).json()) as { result: { hits: number } }
    expect(figures.result).toMatchObject({ entries: 1, hits: 1 })
  })

  it('rejects an unknown size', async () => {
    await expect(run(['--size', 'huge'])).rejects.toThrow(/--size/)
  })
})
