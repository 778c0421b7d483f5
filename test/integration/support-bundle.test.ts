import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createCore } from '../../src/main/core/compose'
import type { Core } from '../../src/main/core/types'
import { call } from '../../src/main/core/handlers'
import { createMemoryKeychain } from '../../src/main/ports'
import { createProfileManager, type ProfileManager } from '../../src/main/profiles/manager'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { cli, json } from '../support/cli'
import { findOrderable } from '../support/orderable'
import { unzipAll } from '../support/unzip'

let service: RunningService | undefined
let otherService: RunningService | undefined
let core: Core | undefined
let manager: ProfileManager | undefined
let directory: string | undefined
afterEach(async () => {
  await core?.close()
  await manager?.close()
  await service?.close()
  await otherService?.close()
  if (directory) rmSync(directory, { recursive: true, force: true })
  core = manager = service = otherService = directory = undefined
})

/** A log line as electron-log writes it, at `at` in local time. */
function logLine(at: Date, text: string): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, '0')
  return `[${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}.${pad(at.getMilliseconds(), 3)}] [info] ${text}`
}

describe('the support bundle', () => {
  it('holds versions, settings, counts, outbox states, sync reports and a week of logs, and none of the credentials or a customer’s email or phone', async () => {
    service = await startService({ size: 'tiny', seed: 21 })
    directory = mkdtempSync(join(tmpdir(), 'satchel-bundle-'))
    const logs = join(directory, 'logs')
    mkdirSync(logs)
    const databasePath = join(directory, 'satchel.db')
    const { apiKey, apiSecret } = service.credentials
    let saved: { name: string; bytes: Buffer } | null = null
    core = createCore({
      databasePath,
      appVersion: '9.8.7',
      backgroundSync: false,
      ports: {
        secrets: createMemoryKeychain(),
        desktop: {
          logsDirectory: logs,
          runtime: { electron: '0.0.0-test' },
          saveFile: async (name, bytes) => {
            saved = { name, bytes }
            return join(directory!, name)
          },
        },
      },
    })
    const api = async <T>(method: Parameters<typeof call>[1], argument?: unknown): Promise<T> => {
      const result = await call(core!.handlers, method, argument as never)
      if (!result.ok) throw new Error(`${method}: ${result.error.message}`)
      return result.value as T
    }
    await api('saveConnection', { baseUrl: service.url, auth: { kind: 'apiKey', apiKey, apiSecret } })
    for (let run = 0; run < 12; run++) await api('syncNow', {})

    // A customer's email and phone as the service sent them, in the places a bundle takes text from.
    const target = findOrderable(core.db, 1)
    const record = JSON.parse(
      core.db.prepare<[string], string>('SELECT json FROM customers WHERE guid = ?').pluck().get(target.customerGuid)!,
    ) as { email: string; phone: string }
    expect(record.email).toContain('@')
    expect(record.phone).toMatch(/\(\d{3}\) 555-\d{4}/)
    const draft = await api<{ draft: { id: number } }>('createDraft', {
      customerGuid: target.customerGuid,
      catalogGuid: target.catalogGuid,
    })
    await api('addDraftLines', { id: draft.draft.id, lines: [{ sku: target.skus[0]!, qty: 1 }] })
    core.orders.desk.outbox.pause('held by the test')
    const queued = await api<{ apiGuid: string }>('sendDraft', { id: draft.draft.id })
    const work = core.orders.desk.outbox.claimNext(Date.now())!
    core.orders.desk.outbox.markNeedsAttention(
      work,
      `The supplier refused it; call ${record.phone} or write to ${record.email}.`,
      [],
    )

    const now = new Date()
    const lastWeek = new Date(now.getTime() - 3 * 86_400_000)
    const tooOld = new Date(now.getTime() - 10 * 86_400_000)
    writeFileSync(
      join(logs, 'main.1.log'),
      [
        logLine(tooOld, 'a line from ten days ago'),
        logLine(lastWeek, `request headers {"x-apiKey":"${apiKey}","x-apiSecret":"${apiSecret}"}`),
        logLine(
          lastWeek,
          `customer ${record.email} phone ${record.phone} at 2026-11-25T15:13:12.345Z, 1764083592000 ms`,
        ),
        '    at a stack frame without a time of its own',
        '',
      ].join('\n'),
    )
    writeFileSync(
      join(logs, 'main.log'),
      // The second line as a build that kept a proxy's quote of the headers would have logged it.
      `${logLine(now, `sent with secret ${apiSecret} and key ${apiKey} for ${record.email.toUpperCase()}`)}\n${logLine(now, `proxy: X-APISECRET ${apiSecret.toUpperCase()}`)}\n`,
    )
    const ancient = join(logs, 'main.2.log')
    writeFileSync(ancient, `${logLine(tooOld, 'a whole file from ten days ago')}\n`)
    utimesSync(ancient, tooOld, tooOld)

    const exported = await api<{ path: string | null }>('exportSupportBundle')
    expect(exported.path).toMatch(/satchel-support-\d{4}-\d{2}-\d{2}-\d{4}\.zip$/)
    const files = unzipAll(saved!.bytes)

    expect([...files.keys()].sort()).toEqual(
      [
        'README.txt',
        'about.json',
        'counts.json',
        'logs/main.1.log',
        'logs/main.log',
        'outbox.json',
        'settings.json',
        'sync-reports.json',
      ].sort(),
    )
    for (const [name, text] of files) {
      for (const forbidden of [apiKey, apiSecret, record.email, record.phone]) {
        expect(text.toLowerCase().includes(forbidden.toLowerCase()), `${name} holds ${forbidden}`).toBe(false)
      }
    }

    const about = JSON.parse(files.get('about.json')!) as {
      app: { version: string }
      schema: { version: number }
      os: { platform: string }
      runtime: { electron: string }
    }
    expect(about.app.version).toBe('9.8.7')
    expect(about.schema.version).toBe(core.db.pragma('user_version', { simple: true }))
    expect(about.os.platform).toBe(process.platform)
    expect(about.runtime.electron).toBe('0.0.0-test')
    const settings = JSON.parse(files.get('settings.json')!) as {
      settings: Record<string, unknown>
      connection: Record<string, unknown>
    }
    expect(settings.settings).toMatchObject({ keepSentOrdersMonths: 24, keepExpiredQuotesDays: 90 })
    expect(settings.connection).toEqual({ service: new URL(service.url).origin, signsInWith: 'apiKey' })
    const counts = JSON.parse(files.get('counts.json')!) as { customers: number; outbox: Record<string, number> }
    expect(counts.customers).toBeGreaterThan(0)
    expect(counts.outbox.needsAttention).toBe(1)
    const outbox = JSON.parse(files.get('outbox.json')!) as {
      apiGuid: string
      state: string
      attempts: number
      lastError: string
    }[]
    expect(outbox).toEqual([expect.objectContaining({ apiGuid: queued.apiGuid, state: 'needsAttention', attempts: 1 })])
    expect(outbox[0]!.lastError).toBe('The supplier refused it; call [masked] or write to [masked].')
    expect(JSON.parse(files.get('sync-reports.json')!)).toHaveLength(10)

    const olderLog = files.get('logs/main.1.log')!
    expect(olderLog).not.toContain('ten days ago')
    expect(olderLog).toContain('at a stack frame without a time of its own')
    // Dates, times and long numbers are not phone numbers.
    expect(olderLog).toContain('at 2026-11-25T15:13:12.345Z, 1764083592000 ms')
    expect(olderLog).toContain('customer [masked] phone [masked]')
    expect(files.get('logs/main.log')).toContain('proxy: X-APISECRET [redacted]')
  })

  it('satchel support-bundle --out FILE writes the same zip from the command line', async () => {
    service = await startService({ size: 'tiny', seed: 21 })
    directory = mkdtempSync(join(tmpdir(), 'satchel-bundle-'))
    const db = join(directory, 'satchel.db')
    const logs = join(directory, 'logs')
    mkdirSync(logs)
    const { apiKey, apiSecret } = service.credentials
    writeFileSync(
      join(logs, 'main.log'),
      `${logLine(new Date(), `x-apiSecret=${apiSecret} key ${apiKey} purchasing@harbor.example (503) 555-0142`)}\n`,
    )
    const env = { SATCHEL_BASE_URL: service.url, SATCHEL_API_KEY: apiKey, SATCHEL_API_SECRET: apiSecret }
    expect((await cli(['--db', db, 'sync'], env)).code).toBe(0)

    const out = join(directory, 'bundle.zip')
    const run = await cli(['--db', db, '--json', 'support-bundle', '--out', out, '--logs', logs], env)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(json(run)).toMatchObject({
      path: out,
      files: expect.arrayContaining(['about.json', 'outbox.json', 'logs/main.log']),
    })
    const files = unzipAll(readFileSync(out))
    expect(files.get('logs/main.log')).toContain('[masked] [masked]')
    for (const [name, text] of files) {
      for (const forbidden of [apiKey, apiSecret, 'purchasing@harbor.example', '555-0142']) {
        expect(text.includes(forbidden), `${name} holds ${forbidden}`).toBe(false)
      }
    }
    expect((await cli(['--db', db, 'support-bundle'], env)).code).toBe(2)
  })
})

describe('the support bundle of a laptop with two profiles', () => {
  it(
    'holds every profile’s counts, outbox states and last 10 sync reports, from the app and from the CLI, and none of either profile’s credentials or a customer’s email',
    { timeout: 120_000 },
    async () => {
      service = await startService({ size: 'tiny', seed: 21 })
      otherService = await startService({ size: 'tiny', seed: 33 })
      directory = mkdtempSync(join(tmpdir(), 'satchel-bundle-'))
      const logs = join(directory, 'logs')
      mkdirSync(logs)
      const saved: Buffer[] = []
      const m = (manager = createProfileManager({
        dataDir: directory,
        secrets: createMemoryKeychain(),
        coreConfig: () => ({
          appVersion: '9.8.7',
          backgroundSync: false,
          ports: {
            desktop: {
              logsDirectory: logs,
              saveFile: async (name, bytes) => {
                saved.push(bytes)
                return join(directory!, name)
              },
            },
          },
        }),
      }))
      const api = async <T>(method: Parameters<typeof call>[1], argument?: unknown): Promise<T> => {
        const result = await call(m.handlers, method, argument as never)
        if (!result.ok) throw new Error(`${method}: ${result.error.message}`)
        return result.value as T
      }
      const connect = async (to: RunningService, syncs: number) => {
        await api('saveConnection', {
          baseUrl: to.url,
          auth: { kind: 'apiKey', apiKey: to.credentials.apiKey, apiSecret: to.credentials.apiSecret },
        })
        for (let run = 0; run < syncs; run++) await api('syncNow', {})
      }
      await connect(service, 2)
      const mainId = m.onScreen().profile.id
      const secondId = (await m.add('Second Line')).profiles.find((profile) => profile.name === 'Second Line')!.id
      await api('switchProfile', { id: secondId })
      await connect(otherService, 12)

      // An order the second supplier refused, with its customer's email and phone in the error.
      const second = m.onScreen().core
      const target = findOrderable(second.db, 1)
      const record = JSON.parse(
        second.db
          .prepare<[string], string>('SELECT json FROM customers WHERE guid = ?')
          .pluck()
          .get(target.customerGuid)!,
      ) as { email: string; phone: string }
      const draft = await api<{ draft: { id: number } }>('createDraft', {
        customerGuid: target.customerGuid,
        catalogGuid: target.catalogGuid,
      })
      await api('addDraftLines', { id: draft.draft.id, lines: [{ sku: target.skus[0]!, qty: 1 }] })
      second.orders.desk.outbox.pause('held by the test')
      const queued = await api<{ apiGuid: string }>('sendDraft', { id: draft.draft.id })
      const work = second.orders.desk.outbox.claimNext(Date.now())!
      second.orders.desk.outbox.markNeedsAttention(
        work,
        `Refused; call ${record.phone} or write to ${record.email}.`,
        [],
      )
      await api('switchProfile', { id: mainId })

      const forbidden = [
        service.credentials.apiKey,
        service.credentials.apiSecret,
        otherService.credentials.apiKey,
        otherService.credentials.apiSecret,
        record.email,
        record.phone,
      ]
      const check = (files: Map<string, string>, onScreen: string) => {
        expect([...files.keys()].filter((name) => name.startsWith('profiles')).sort()).toEqual(
          [
            'profiles.json',
            ...['1-main', '2-second-line'].flatMap((folder) =>
              ['counts.json', 'outbox.json', 'sync-reports.json'].map((file) => `profiles/${folder}/${file}`),
            ),
          ].sort(),
        )
        for (const [name, text] of files) {
          for (const value of forbidden)
            expect(text.toLowerCase().includes(value.toLowerCase()), `${name} holds ${value}`).toBe(false)
        }
        expect(JSON.parse(files.get('profiles.json')!)).toEqual([
          {
            name: 'Main',
            supplier: new URL(service!.url).origin,
            inThisBundle: onScreen === 'Main',
            folder: 'profiles/1-main/',
            unsent: 0,
            needsAttention: 0,
          },
          {
            name: 'Second Line',
            supplier: new URL(otherService!.url).origin,
            inThisBundle: onScreen === 'Second Line',
            folder: 'profiles/2-second-line/',
            unsent: 1,
            needsAttention: 1,
          },
        ])
        const outbox = JSON.parse(files.get('profiles/2-second-line/outbox.json')!) as {
          apiGuid: string
          state: string
          attempts: number
          lastError: string
        }[]
        expect(outbox).toEqual([
          expect.objectContaining({
            apiGuid: queued.apiGuid,
            state: 'needsAttention',
            attempts: 1,
            lastError: 'Refused; call [masked] or write to [masked].',
          }),
        ])
        expect(JSON.parse(files.get('profiles/1-main/outbox.json')!)).toEqual([])
        expect(JSON.parse(files.get('profiles/2-second-line/sync-reports.json')!)).toHaveLength(10)
        expect(JSON.parse(files.get('profiles/1-main/sync-reports.json')!)).toHaveLength(2)
        const counts = JSON.parse(files.get('profiles/2-second-line/counts.json')!) as {
          customers: number
          outbox: Record<string, number>
        }
        expect(counts.customers).toBe(
          otherService!.control.customers().filter((customer) => customer.deleted_at === null).length,
        )
        expect(counts.outbox.needsAttention).toBe(1)
      }

      // From the app, Main on screen: the second profile's database is read, not opened for writing.
      await api('exportSupportBundle')
      check(unzipAll(saved.at(-1)!), 'Main')

      // From the command line, on the same folder, the app closed.
      await m.close()
      manager = undefined
      const out = join(directory, 'cli-bundle.zip')
      const run = await cli(['support-bundle', '--profile', 'Second Line', '--out', out, '--logs', logs, '--json'], {
        SATCHEL_DATA_DIR: directory,
      })
      expect(run.code).toBe(0)
      const files = unzipAll(readFileSync(out))
      check(files, 'Second Line')
      expect(JSON.parse(files.get('outbox.json')!)).toEqual([expect.objectContaining({ apiGuid: queued.apiGuid })])
    },
  )
})
