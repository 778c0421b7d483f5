import { zipSync, strToU8 } from 'fflate'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { arch, platform, release, type as osType } from 'node:os'
import { join } from 'node:path'
import { closeDatabase, latestSchemaVersion, openDatabase } from '../db/database'
import { openLocalData, type LocalData } from '../local/data'
import { SettingsTable } from '../db/settings'
import { databaseSize, lastPurge } from '../db/storage'
import { credentialRedactor } from '../errors'
import { DraftRepository } from '../orders/drafts'
import { needingAttention, unsentOf } from '../orders/outbox/attention'
import { OutboxReader } from '../orders/outbox/reader'
import type { Clock, ProfilesPort } from '../ports'
import { QuoteRepository } from '../quotes/repository'
import { AppSettings } from '../settings/app-settings'
import { savedConnection } from '../settings/connection'

interface ZipFile {
  /** A path inside the archive, with forward slashes. */
  name: string
  data: string
}

/** The files as one zip (deflate; fflate writes UTF-8 names), each stamped with the bundle's time. */
function zip(files: readonly ZipFile[], at: Date): Buffer {
  return Buffer.from(zipSync(Object.fromEntries(files.map((file) => [file.name, [strToU8(file.data), { mtime: at }]]))))
}

export interface SupportBundleSources {
  /** The bundle's own profile's local copy (its database is `local.db`). */
  local: LocalData
  appName: string
  appVersion: string
  /**
   * Every credential value this laptop holds (the API key, its secret, the session token): masked
   * wherever it appears, whatever the text around it looks like.
   */
  secrets: () => Promise<readonly string[]>
  /** The folder the app writes its logs to; null where there is none (a browser through the bridge). */
  logsDirectory: string | null
  clock: Clock
  /** Versions of the runtime beyond Node's (Electron's, Chromium's), from the shell. */
  runtime?: Record<string, string>
  /** Every profile on the laptop (the app's profile manager, or the CLI's data folder). */
  profiles?: () => readonly BundleProfile[]
  /** better_sqlite3.node for the runtime, to read the other profiles' databases. */
  nativeBinding?: string
  /** Why the profiles list could not be read, when `profiles` came from the databases in the folder instead. */
  profilesListProblem?: string
}

/** A profile the bundle describes: its database is read (read-only) for its counts, outbox and sync reports. */
export interface BundleProfile {
  name: string
  supplier: string | null
  databasePath: string
  /** The profile the top-level files describe (the one on screen, or the CLI's). */
  inThisBundle: boolean
}

/** Every profile, for the support bundle: its name, supplier and database, and whether it is on screen. */
export function bundleProfiles(profiles: ProfilesPort): BundleProfile[] {
  const paths = profiles.databasePaths()
  return profiles.list().profiles.flatMap((profile) => {
    const databasePath = paths.get(profile.id)
    return databasePath
      ? [{ name: profile.name, supplier: profile.supplier, databasePath, inThisBundle: profile.onScreen }]
      : []
  })
}

const logDays = 7
const syncReports = 10

/**
 * The zip a rep sends to support: what the app is and runs on, its settings, counts, the outbox's
 * states, the last sync reports and the last week of logs. Nothing in it is a credential, and
 * customers' emails and phone numbers are masked, in the logs too: every file passes the same scrub,
 * by the known credential values and by pattern, after it is written and before it is zipped.
 */
export async function buildSupportBundle(sources: SupportBundleSources): Promise<{ bytes: Buffer; files: string[] }> {
  const { local, clock } = sources
  const { db } = local
  const now = new Date(clock.now())
  const scrub = scrubber(await sources.secrets())
  const table = new SettingsTable(db)
  const connection = savedConnection(table)

  const json = (name: string, value: unknown): ZipFile => ({
    name,
    data: `${JSON.stringify(scrub.value(value), null, 2)}\n`,
  })
  const files: ZipFile[] = [
    { name: 'README.txt', data: readme(now) },
    json('about.json', {
      createdAt: now.toISOString(),
      app: { name: sources.appName, version: sources.appVersion },
      schema: { version: db.pragma('user_version', { simple: true }) as number, latest: latestSchemaVersion() },
      os: { type: osType(), platform: platform(), release: release(), arch: arch() },
      runtime: { node: process.versions.node, ...sources.runtime },
      database: { ...databaseSize(db), journalMode: String(db.pragma('journal_mode', { simple: true })) },
    }),
    json('settings.json', {
      settings: new AppSettings(db).get(),
      // Where and how the laptop connects, without the key or any secret.
      connection: connection ? { service: safeOrigin(connection.baseUrl), signsInWith: connection.auth.kind } : null,
      outboxPaused: table.get('outboxPause') ?? null,
      lastPurge: lastPurge(db),
      keys: Object.keys(table.all()).sort(),
    }),
    json('counts.json', {
      ...local.counts(),
      drafts: new DraftRepository(db, clock).ids().length,
      quotes: new QuoteRepository(db).count(),
      outbox: OutboxReader.counts(db),
    }),
    json('outbox.json', new OutboxReader(db).states()),
    json('sync-reports.json', local.syncState.recentReports(syncReports)),
    ...everyProfile(sources, json),
    ...(sources.profilesListProblem
      ? [{ name: 'profiles-list-problem.txt', data: `${scrub.text(sources.profilesListProblem)}\n` }]
      : []),
    ...recentLogs(sources.logsDirectory, now).map((log) => ({ name: `logs/${log.name}`, data: scrub.text(log.text) })),
  ]
  return { bytes: zip(files, now), files: files.map((file) => file.name) }
}

/** What the bundle tells of one profile's database: the same as the top-level files, less settings. */
function describeDatabase(local: LocalData, clock: Clock) {
  const { db } = local
  return {
    counts: {
      schemaVersion: db.pragma('user_version', { simple: true }) as number,
      ...local.counts(),
      drafts: new DraftRepository(db, clock).ids().length,
      quotes: new QuoteRepository(db).count(),
      outbox: OutboxReader.counts(db),
    },
    outbox: new OutboxReader(db).states(),
    syncReports: local.syncState.recentReports(syncReports),
  }
}

/**
 * profiles.json, and for every profile a folder with its counts, its outbox's states and its last
 * sync reports. Each database but the bundle's own is opened read-only for the moment it is read: a
 * reader in WAL mode neither waits for the app's writes nor takes its leases. A profile whose database
 * is not made yet, or cannot be read, says so instead.
 */
function everyProfile(sources: SupportBundleSources, json: (name: string, value: unknown) => ZipFile): ZipFile[] {
  if (!sources.profiles) return []
  const files: ZipFile[] = []
  const listed = sources.profiles().map((profile, index) => {
    const folder = `profiles/${index + 1}-${
      profile.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '') || 'profile'
    }/`
    const entry = {
      name: profile.name,
      supplier: profile.supplier === null ? null : safeOrigin(profile.supplier),
      inThisBundle: profile.inThisBundle,
      folder,
    }
    let described: ReturnType<typeof describeDatabase>
    try {
      if (profile.databasePath === sources.local.db.name) described = describeDatabase(sources.local, sources.clock)
      else if (!existsSync(profile.databasePath))
        return { ...entry, unsent: 0, needsAttention: 0, problem: 'no database yet (the profile was never opened)' }
      else {
        const db = openDatabase(profile.databasePath, {
          readOnly: true,
          create: false,
          ...(sources.nativeBinding ? { nativeBinding: sources.nativeBinding } : {}),
        })
        try {
          // Another profile's database, on a connection of its own for the moment it is read.
          described = describeDatabase(openLocalData(db), sources.clock)
        } finally {
          closeDatabase(db)
        }
      }
    } catch (error) {
      return {
        ...entry,
        unsent: null,
        needsAttention: null,
        problem: error instanceof Error ? error.message : String(error),
      }
    }
    const outbox = described.counts.outbox
    files.push(
      json(`${folder}counts.json`, described.counts),
      json(`${folder}outbox.json`, described.outbox),
      json(`${folder}sync-reports.json`, described.syncReports),
    )
    return {
      ...entry,
      unsent: unsentOf(outbox),
      needsAttention: needingAttention(outbox),
    }
  })
  return [json('profiles.json', listed), ...files]
}

function readme(now: Date): string {
  return [
    `Satchel support bundle, made ${now.toISOString()}.`,
    '',
    'about.json          app and schema versions, operating system, database size',
    "settings.json       the rep's settings, the service address and sign-in kind (no key, no secret)",
    'counts.json         how many catalogs, items, customers, orders, drafts, quotes; outbox entries by state',
    'outbox.json         each outbox entry: api_guid, state, attempts, last error, when queued and sent',
    'profiles.json       every profile on the laptop: name, supplier, unsent and needs-attention counts, its folder;',
    '                    the files above are of the profile marked inThisBundle',
    "profiles/N-name/    each profile's counts.json, outbox.json and its last sync-reports.json",
    `sync-reports.json   the last ${syncReports} sync reports, newest first`,
    `logs/               the last ${logDays} days of the app's log`,
    '',
    "API keys, secrets, tokens and passwords are left out or masked; customers' emails and phone numbers are masked.",
    '',
  ].join('\n')
}

/** The service's scheme, host and port: a path or query could carry something of the account. */
function safeOrigin(baseUrl: string): string {
  return URL.canParse(baseUrl) ? new URL(baseUrl).origin : '[not a URL]'
}

/** electron-log's line prefix, local time: `[2026-11-25 15:13:12.345]`. */
const logLineTime = /^\[(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})/

/**
 * The log files changed in the last week, oldest first, each cut to its lines from that week. A line
 * without a time of its own (a stack trace's) goes with the line before it.
 */
function recentLogs(directory: string | null, now: Date): { name: string; text: string }[] {
  if (!directory) return []
  const since = now.getTime() - logDays * 86_400_000
  let names: string[]
  try {
    names = readdirSync(directory).filter((name) => name.endsWith('.log'))
  } catch {
    return []
  }
  return names
    .map((name) => ({ name, path: join(directory, name), modified: statSync(join(directory, name)).mtimeMs }))
    .filter((file) => file.modified >= since)
    .sort((a, b) => a.modified - b.modified)
    .map((file) => {
      let keep = false
      const lines = readFileSync(file.path, 'utf8')
        .split('\n')
        .filter((line) => {
          const match = logLineTime.exec(line)
          if (match) {
            const [, y, mo, d, h, mi, s] = match.map(Number)
            keep = new Date(y!, mo! - 1, d!, h!, mi!, s!).getTime() >= since
          }
          return keep
        })
      return { name: file.name, text: lines.join('\n') }
    })
    .filter((log) => log.text !== '')
}

/** The service's headers that carry a credential (spec, Authentication). */
const credentialHeaders = ['x-apiKey', 'x-apiSecret', 'userToken']
const masked = '[masked]'
const redacted = '[redacted]'
const email = /[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g
/**
 * A phone number as customers' records hold them: an optional +country code, then 10 digits or more
 * in groups, e.g. (503) 555-0142, 503.555.0142, +44 20 7946 0958. Not inside a longer run of letters,
 * digits, dashes or colons, so GUIDs, dates, times and counts are left alone.
 */
const phone = /(?<![\w:.-])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)|\d{2,4})(?:[\s.-]?\d{2,4}){2,3}(?![\w:-])/g
const secretKey = /secret|token|passw(or)?d|authorization|cookie|credential|api.?key|private.?key|signature/i
const secretAssignment =
  /(["']?\b(?:x-api-?(?:key|secret)|api-?(?:key|secret)|user-?token|[a-z_-]*token|[a-z_-]*secret|password|authorization)\b["']?\s*[:=]\s*["']?)(?:Bearer\s+)?(?!(?:true|false|null)\b)([^\s"',;&}]+)/gi
const bearer = /\bBearer\s+[A-Za-z0-9._~+/=-]+/g
const jwt = /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\b/g

/**
 * 10 to 15 digits (E.164's most); written without any separator, at most 11 (a national number with
 * its trunk prefix), so an epoch time in milliseconds (13 digits) stays readable.
 */
function looksLikePhone(match: string): boolean {
  const digits = match.replace(/\D/g, '').length
  const bare = /^\d+$/.test(match)
  return digits >= 10 && digits <= (bare ? 11 : 15)
}

/**
 * Masks credentials (known values and patterns), emails and phone numbers. The known values go by
 * the client's rule (errors.ts credentialRedactor), in every spelling a reply may have used: a text
 * that reached the database before the client redacted its errors, or the log of another build, is
 * masked here as the client would have masked it.
 */
function scrubber(secrets: readonly string[]) {
  const known = credentialRedactor([...new Set(secrets)].map((value) => ({ value, headers: credentialHeaders })))
  const text = (input: string): string => {
    return known(input)
      .replace(jwt, redacted)
      .replace(bearer, `Bearer ${redacted}`)
      .replace(secretAssignment, `$1${redacted}`)
      .replace(email, masked)
      .replace(phone, (match) => (looksLikePhone(match) ? masked : match))
  }
  const value = (input: unknown, key = ''): unknown => {
    if (typeof input === 'string') return secretKey.test(key) ? redacted : text(input)
    if (Array.isArray(input)) return input.map((item) => value(item))
    if (input !== null && typeof input === 'object')
      return Object.fromEntries(Object.entries(input).map(([k, v]) => [k, value(v, k)]))
    return input
  }
  return { text, value }
}
