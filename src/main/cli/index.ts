/**
 * `satchel`: the command line for support staff, laptop imaging and scripted checks.
 * `npm run cli -- <command>`; documented in docs/cli.md, which is its public contract.
 *
 * Start-up must stay well under a second, so this file imports only Node built-ins; each command
 * loads what it needs (the store, or the service client and sync engine) when it runs.
 */
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { credentialsInAddressProblem } from '../../shared/service-address'
import { defaultDataDirectory, defaultLogsDirectory } from '../paths'
import type { BundleProfile } from '../housekeeping/support-bundle'
import { CliFailure, UsageError, type GlobalOptions, type Output } from './errors'
import { readUserFile } from './input-files'
import { usage } from './usage'

const options = {
  db: { type: 'string' },
  profile: { type: 'string' },
  'data-dir': { type: 'string' },
  yes: { type: 'boolean' },
  none: { type: 'boolean' },
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  'api-secret': { type: 'string' },
  'api-secret-file': { type: 'string' },
  'user-guid': { type: 'string' },
  'user-token': { type: 'string' },
  'user-token-file': { type: 'string' },
  'supplier-guid': { type: 'string' },
  'allow-insecure-http': { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  full: { type: 'boolean' },
  catalog: { type: 'string' },
  customer: { type: 'string' },
  limit: { type: 'string' },
  file: { type: 'string' },
  out: { type: 'string' },
  logs: { type: 'string' },
  changed: { type: 'boolean' },
  state: { type: 'string' },
  export: { type: 'string' },
  partial: { type: 'boolean' },
  whole: { type: 'boolean' },
  hold: { type: 'boolean' },
  release: { type: 'boolean' },
  cancel: { type: 'boolean' },
  po: { type: 'string' },
  note: { type: 'string' },
  'ship-after': { type: 'string' },
  'cancel-after': { type: 'string' },
  name: { type: 'string' },
  email: { type: 'string' },
  phone: { type: 'string' },
  refresh: { type: 'boolean' },
} as const

/** Which command options each command takes; anything else is invalid input. */
const commandOptions: Record<string, readonly string[]> = {
  sync: ['full'],
  status: [],
  'items search': ['catalog', 'customer', 'limit'],
  'items family': ['customer'],
  'customers search': [],
  'customers add': ['name', 'email', 'phone', 'file'],
  'customers change': ['name', 'email', 'phone', 'file'],
  'customers choose': ['none'],
  'customers brief': ['refresh'],
  'order queue': ['file'],
  flush: [],
  outbox: ['export'],
  quotes: ['customer'],
  'customer usual': ['limit'],
  'images status': [],
  'images fetch': ['customer', 'limit'],
  'support-bundle': ['out', 'logs'],
  'orders list': ['customer', 'changed', 'state', 'limit'],
  'orders show': [],
  'orders submit': ['partial', 'whole'],
  'orders change': ['hold', 'release', 'cancel', 'po', 'note', 'ship-after', 'cancel-after'],
  'orders apply-mine': [],
  'orders drop-mine': [],
  'profiles list': [],
  'profiles add': [],
  'profiles remove': ['yes'],
}

/**
 * A secret given on the command line, or by a file that holds it (`-`: standard input), so it need
 * not show in the process list as an argument does. The file's first line, trimmed.
 */
function secretOption(value: string | undefined, file: string | undefined, name: string): string | undefined {
  if (file === undefined) return nonEmpty(value)
  if (value !== undefined) throw new UsageError(`--${name} and --${name}-file do not go together`)
  const secret = nonEmpty(readUserFile(file, 64 * 1024, { stdin: true }).split(/\r?\n/)[0])
  if (!secret) throw new UsageError(`--${name}-file ${file} holds no ${name.replace('-', ' ')} on its first line`)
  return secret
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim()
}

export function parseLimit(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 500)
    throw new UsageError(`--limit must be a whole number from 1 to 500 (got '${value}')`)
  return Number(value)
}

/** How many items one `images fetch` asks about: a catalog's worth at most. */
function parsePictureLimit(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 10_000_000)
    throw new UsageError(`--limit must be a whole number from 1 to 10000000 (got '${value}')`)
  return Number(value)
}

/**
 * With --json the result is held until the command has finished (closing the database included), so
 * a failure after it still leaves exactly one object on stdout: the result with the `error` added.
 */
interface CliOutput extends Output {
  /** Prints the held JSON result, with `error` added when the command failed after producing it. */
  finish(error?: Record<string, unknown>): boolean
}

function createOutput(json: boolean): CliOutput {
  const tty = !json && process.stderr.isTTY === true
  let drawn = false
  let held: Record<string, unknown> | null = null
  return {
    json,
    result(value, human) {
      if (json) held = value
      else process.stdout.write(human.endsWith('\n') ? human : `${human}\n`)
    },
    finish(error) {
      if (!json) return false
      const value = held === null ? error : error ? { ...held, ...error } : held
      held = null
      if (value === undefined) return false
      process.stdout.write(`${JSON.stringify(value)}\n`)
      return true
    },
    progress: tty
      ? (line) => {
          // A terminal that does not report its width (columns 0 or undefined) gets 80.
          const width = process.stderr.columns || 80
          process.stderr.write(`\r${line.slice(0, width - 1).padEnd(width - 1)}`)
          drawn = true
        }
      : null,
    endProgress() {
      if (drawn) process.stderr.write('\r\x1b[2K')
      drawn = false
    },
  }
}

export async function main(argv: string[]): Promise<number> {
  const holder = { current: createOutput(argv.includes('--json')) }
  const code = await runCommand(argv, holder)
  holder.current.finish()
  return code
}

async function runCommand(argv: string[], holder: { current: CliOutput }): Promise<number> {
  let json = argv.includes('--json')
  let output = holder.current
  let databasePath: string | undefined
  try {
    let parsed
    try {
      parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true })
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error))
    }
    const { values, positionals } = parsed
    json = values.json === true
    output = holder.current = createOutput(json)
    if (values.help) {
      process.stdout.write(usage)
      return 0
    }
    const env = process.env
    const explicitDb = nonEmpty(values.db) ?? nonEmpty(env.SATCHEL_DB)
    const profileName = nonEmpty(values.profile)
    if (explicitDb && profileName)
      throw new UsageError('--db and --profile do not go together: --db names the database itself')
    // A folder is no database: said here, not as SQLite's "disk I/O error" from deep in the open.
    if (explicitDb && existsSync(explicitDb) && statSync(explicitDb).isDirectory())
      throw new UsageError(
        `--db ${explicitDb} is a folder: give the database file (for example ${join(explicitDb, 'satchel.db')})`,
      )
    const dataDir = nonEmpty(values['data-dir']) ?? nonEmpty(env.SATCHEL_DATA_DIR) ?? defaultDataDirectory()
    const baseUrl = nonEmpty(values['base-url']) ?? nonEmpty(env.SATCHEL_BASE_URL)
    const addressProblem = baseUrl ? credentialsInAddressProblem(baseUrl) : null
    if (addressProblem) throw new UsageError(`--base-url: ${addressProblem}`)
    const global: GlobalOptions = {
      db: explicitDb ?? '',
      baseUrl,
      apiKey: nonEmpty(values['api-key']) ?? nonEmpty(env.SATCHEL_API_KEY),
      apiSecret:
        secretOption(values['api-secret'], values['api-secret-file'], 'api-secret') ?? nonEmpty(env.SATCHEL_API_SECRET),
      userGuid: nonEmpty(values['user-guid']) ?? nonEmpty(env.SATCHEL_USER_GUID),
      userToken:
        secretOption(values['user-token'], values['user-token-file'], 'user-token') ?? nonEmpty(env.SATCHEL_USER_TOKEN),
      supplierGuid: nonEmpty(values['supplier-guid']) ?? nonEmpty(env.SATCHEL_SUPPLIER_GUID),
      allowInsecureHttp: values['allow-insecure-http'] === true,
      json,
    }
    const [first, second, ...rest] = positionals
    if (!first)
      throw new UsageError(
        'Give a command: sync, status, items search, customers search, order queue, flush or outbox (see --help)',
      )
    const twoWords =
      first === 'items' ||
      first === 'customers' ||
      first === 'order' ||
      first === 'customer' ||
      first === 'orders' ||
      first === 'images' ||
      first === 'profiles'
    const command = twoWords ? `${first} ${second ?? ''}`.trim() : first
    const allowed = commandOptions[command]
    if (!allowed) throw new UsageError(`Unknown command '${command}' (see --help)`)
    for (const name of [
      'full',
      'catalog',
      'customer',
      'limit',
      'file',
      'out',
      'logs',
      'changed',
      'state',
      'yes',
      'export',
      'partial',
      'whole',
      'hold',
      'release',
      'cancel',
      'po',
      'note',
      'ship-after',
      'cancel-after',
      'name',
      'email',
      'phone',
      'refresh',
    ] as const) {
      if (values[name] !== undefined && !allowed.includes(name))
        throw new UsageError(`--${name} does not apply to '${command}'`)
    }
    const args = twoWords ? rest : [second, ...rest].filter((value) => value !== undefined)
    if (first === 'profiles') {
      if (explicitDb || profileName)
        throw new UsageError(`${command} works on the data folder (--data-dir), not on --db or --profile`)
      return await runProfiles(command, args, dataDir, global, values.yes === true, output)
    }
    let everyProfile: BundleProfile[] | undefined
    let listProblem: string | undefined
    if (!explicitDb && command === 'support-bundle') {
      // The bundle is most needed when things are broken: with a list that cannot be read, it is made
      // from the databases in the folder, and says why.
      const { databaseProfiles, ProfileRegistry } = await import('../profiles/registry')
      try {
        ProfileRegistry.open(dataDir)
      } catch (error) {
        const found = databaseProfiles(dataDir)
        const chosen = profileName
          ? found.find((each) => each.name.toLowerCase() === profileName.toLowerCase())
          : found[0]
        if (!chosen || !(error instanceof Error)) throw error
        listProblem = error.message
        global.db = join(dataDir, chosen.databaseFile)
        everyProfile = found.map((each) => ({
          name: each.name,
          supplier: each.supplier,
          databasePath: join(dataDir, each.databaseFile),
          inThisBundle: each.id === chosen.id,
        }))
      }
    }
    if (!explicitDb && listProblem === undefined) {
      const { ProfileRegistry } = await import('../profiles/registry')
      const registry = ProfileRegistry.open(dataDir)
      const profile = registry.resolve(profileName)
      global.db = registry.databasePath(profile)
      global.stillListed = () => ProfileRegistry.open(dataDir).byId(profile.id) !== null
      // The bundle describes every profile of the folder; its top-level files are this one's.
      everyProfile = registry.list().map((each) => ({
        name: each.name,
        supplier: each.supplier,
        databasePath: registry.databasePath(each),
        inThisBundle: each.id === profile.id,
      }))
      // The bundle masks the secret it is given: the keyring's, where no option gave one. A user
      // session needs no API secret.
      if ((command === 'sync' || command === 'flush' || command === 'images fetch') && !global.userToken) {
        const { storedApiSecret } = await import('./connection')
        await storedApiSecret(global, dataDir, profile)
      } else if (command === 'support-bundle') {
        const { storedApiSecret } = await import('./connection')
        await storedApiSecret(global, dataDir, profile)
      }
    }
    databasePath = global.db

    switch (command) {
      case 'sync': {
        if (args.length > 0) throw new UsageError(`sync takes no arguments (got '${args.join(' ')}')`)
        const { runSync } = await import('./sync')
        return await runSync(global, { full: values.full === true }, output)
      }
      case 'status': {
        if (args.length > 0) throw new UsageError(`status takes no arguments (got '${args.join(' ')}')`)
        const { runStatus } = await import('./read')
        return runStatus(global, output)
      }
      case 'items search': {
        if (args.length !== 1)
          throw new UsageError('items search takes one query: items search <query> --catalog <catalogGuid>')
        const catalog = nonEmpty(values.catalog)
        if (!catalog) throw new UsageError('items search needs --catalog <catalogGuid>')
        const { runItemsSearch } = await import('./read')
        return runItemsSearch(
          global,
          { query: args[0] ?? '', catalog, customer: nonEmpty(values.customer), limit: parseLimit(values.limit, 20) },
          output,
        )
      }
      case 'items family': {
        if (args.length !== 1 || !nonEmpty(args[0]))
          throw new UsageError('items family takes one guid: items family <guid> [--customer <vendorGuid>]')
        const { runItemsFamily } = await import('./read')
        return runItemsFamily(global, { guid: args[0]!.trim(), customer: nonEmpty(values.customer) }, output)
      }
      case 'customers add': {
        if (args.length > 0) throw new UsageError(`customers add takes --name (got '${args.join(' ')}')`)
        const { runCustomersAdd } = await import('./customers')
        return await runCustomersAdd(
          global,
          {
            ...(values.name !== undefined ? { name: values.name } : {}),
            ...(nonEmpty(values.email) ? { email: nonEmpty(values.email) } : {}),
            ...(nonEmpty(values.phone) ? { phone: nonEmpty(values.phone) } : {}),
            ...(nonEmpty(values.file) ? { file: nonEmpty(values.file) } : {}),
          },
          output,
        )
      }
      case 'customers change': {
        if (args.length !== 1 || !nonEmpty(args[0]))
          throw new UsageError('customers change takes one customer: customers change <guid> [--name N] …')
        const { runCustomersChange } = await import('./customers')
        return await runCustomersChange(
          global,
          {
            customer: args[0]!.trim(),
            ...(values.name !== undefined ? { name: values.name } : {}),
            ...(values.email !== undefined ? { email: values.email } : {}),
            ...(values.phone !== undefined ? { phone: values.phone } : {}),
            ...(nonEmpty(values.file) ? { file: nonEmpty(values.file) } : {}),
          },
          output,
        )
      }
      case 'customers choose': {
        const [key, customer] = args.map((arg) => arg.trim())
        const shape = 'customers choose <key> <customer guid>, or customers choose <key> --none'
        if (!nonEmpty(key) || args.length !== (values.none ? 1 : 2))
          throw new UsageError(`customers choose takes an entry key and one of its candidates: ${shape}`)
        const { runCustomerChoice } = await import('./writes')
        return await runCustomerChoice(global, { key: key!, customerGuid: values.none ? null : customer! }, output)
      }
      case 'customers brief': {
        if (args.length !== 1 || !nonEmpty(args[0]))
          throw new UsageError('customers brief takes one customer: customers brief <customerGuid> [--refresh]')
        const { runCustomersBrief } = await import('./brief')
        return await runCustomersBrief(
          global,
          { customerGuid: args[0]!.trim(), refresh: values.refresh === true },
          output,
        )
      }
      case 'customers search': {
        if (args.length !== 1) throw new UsageError('customers search takes one query: customers search <query>')
        const { runCustomersSearch } = await import('./read')
        return runCustomersSearch(global, { query: args[0] ?? '' }, output)
      }
      case 'order queue': {
        if (args.length > 0) throw new UsageError(`order queue takes its draft from --file (got '${args.join(' ')}')`)
        const file = nonEmpty(values.file)
        if (!file) throw new UsageError('order queue needs --file <draft.json>')
        const { runOrderQueue } = await import('./orders')
        return await runOrderQueue(global, { file }, output)
      }
      case 'flush': {
        if (args.length > 0) throw new UsageError(`flush takes no arguments (got '${args.join(' ')}')`)
        const { runFlush } = await import('./orders')
        return await runFlush(global, output)
      }
      case 'outbox': {
        if (args.length > 0) throw new UsageError(`outbox takes no arguments (got '${args.join(' ')}')`)
        const { runOutbox } = await import('./orders')
        const folder = nonEmpty(values.export)
        if (values.export !== undefined && !folder)
          throw new UsageError('outbox --export needs a folder to save the unsent orders in')
        return await runOutbox(global, folder ? { export: folder } : {}, output)
      }
      case 'quotes': {
        if (args.length > 0) throw new UsageError(`quotes takes no arguments (got '${args.join(' ')}')`)
        const { runQuotes } = await import('./quotes')
        const customer = nonEmpty(values.customer)
        return runQuotes(global, customer ? { customer } : {}, output)
      }
      case 'customer usual': {
        if (args.length !== 1 || !nonEmpty(args[0]))
          throw new UsageError('customer usual takes one customer: customer usual <customerGuid> [--limit N]')
        const { runCustomerUsual } = await import('./quotes')
        return runCustomerUsual(global, { customerGuid: args[0]!.trim(), limit: parseLimit(values.limit, 20) }, output)
      }
      case 'support-bundle': {
        if (args.length > 0) throw new UsageError(`support-bundle takes its file from --out (got '${args.join(' ')}')`)
        const out = nonEmpty(values.out)
        if (!out) throw new UsageError('support-bundle needs --out <file.zip>')
        const { runSupportBundle } = await import('./support')
        return await runSupportBundle(
          global,
          {
            out,
            logs: nonEmpty(values.logs) ?? defaultLogsDirectory(),
            ...(everyProfile ? { profiles: everyProfile } : {}),
            ...(listProblem ? { listProblem } : {}),
          },
          output,
        )
      }
      case 'images status': {
        if (args.length > 0) throw new UsageError(`images status takes no arguments (got '${args.join(' ')}')`)
        const { runImagesStatus } = await import('./images')
        return await runImagesStatus(global, output)
      }
      case 'images fetch': {
        if (args.length > 0) throw new UsageError(`images fetch takes no arguments (got '${args.join(' ')}')`)
        const customer = nonEmpty(values.customer)
        if (values.customer !== undefined && !customer) throw new UsageError('--customer needs a customer guid')
        const { runImagesFetch } = await import('./images')
        return await runImagesFetch(
          global,
          {
            ...(customer ? { customer } : {}),
            ...(values.limit !== undefined ? { limit: parsePictureLimit(values.limit) } : {}),
          },
          output,
        )
      }
      case 'orders list': {
        if (args.length > 0) throw new UsageError(`orders list takes no arguments (got '${args.join(' ')}')`)
        const { runOrdersList } = await import('./tracking')
        const customer = nonEmpty(values.customer)
        const state = nonEmpty(values.state)
        return runOrdersList(
          global,
          {
            ...(customer ? { customer } : {}),
            ...(state ? { state } : {}),
            changed: values.changed === true,
            limit: parseLimit(values.limit, 50),
          },
          output,
        )
      }
      case 'orders submit': {
        if (args.length !== 1 || !nonEmpty(args[0]))
          throw new UsageError('orders submit takes one order: orders submit <number or guid> [--partial|--whole]')
        if (values.partial && values.whole) throw new UsageError('--partial and --whole do not go together')
        const { runOrderSubmit } = await import('./writes')
        const fulfilment = values.partial ? 'partial' : values.whole ? 'whole' : 'available'
        return await runOrderSubmit(global, { order: args[0]!.trim(), fulfilment }, output)
      }
      case 'orders change': {
        if (args.length !== 1 || !nonEmpty(args[0]))
          throw new UsageError('orders change takes one order: orders change <number or guid> [--hold] [--po T] …')
        if (values.hold && values.release) throw new UsageError('--hold and --release do not go together')
        const { runOrderChange } = await import('./writes')
        const changes = {
          ...(values.hold ? { onHold: true } : values.release ? { onHold: false } : {}),
          ...(values.cancel ? { cancel: true } : {}),
          ...(values.po !== undefined ? { poNo: values.po } : {}),
          ...(values.note !== undefined ? { note: values.note } : {}),
          ...(values['ship-after'] !== undefined ? { shipAfter: values['ship-after'] || null } : {}),
          ...(values['cancel-after'] !== undefined ? { cancelAfter: values['cancel-after'] || null } : {}),
        }
        return await runOrderChange(global, { order: args[0]!.trim(), changes }, output)
      }
      case 'orders apply-mine':
      case 'orders drop-mine': {
        if (args.length !== 1 || !nonEmpty(args[0]))
          throw new UsageError(`${command} takes one entry key: ${command} <key>`)
        const { runConflictChoice } = await import('./writes')
        const choice = command === 'orders apply-mine' ? 'apply' : 'drop'
        return await runConflictChoice(global, { key: args[0]!.trim(), choice }, output)
      }
      case 'orders show': {
        if (args.length !== 1 || !nonEmpty(args[0]))
          throw new UsageError('orders show takes one order: orders show <number or guid>')
        const { runOrderShow } = await import('./tracking')
        return runOrderShow(global, { order: args[0]!.trim() }, output)
      }
    }
    throw new UsageError(`Unknown command '${command}'`)
  } catch (error) {
    output.endProgress()
    if (error instanceof UsageError) {
      output.finish(error.json ?? { error: { code: 'INVALID_ARGUMENT', message: error.message } })
      process.stderr.write(`satchel: ${error.message}\n`)
      if (!json) process.stderr.write('Run with --help for usage.\n')
      return 2
    }
    const failure = error instanceof CliFailure ? error : await describeFailure(error, databasePath)
    output.finish(failure.json ?? { error: { code: failure.code, message: failure.message } })
    process.stderr.write(`satchel: ${failure.message.split('\n')[0]}\n`)
    return 1
  }
}

async function runProfiles(
  command: string,
  args: string[],
  dataDir: string,
  global: GlobalOptions,
  yes: boolean,
  output: Output,
): Promise<number> {
  const { runProfilesAdd, runProfilesList, runProfilesRemove } = await import('./profiles')
  const name = args.length === 1 ? nonEmpty(args[0]) : undefined
  if (command === 'profiles list') {
    if (args.length > 0) throw new UsageError(`profiles list takes no arguments (got '${args.join(' ')}')`)
    return runProfilesList(dataDir, output)
  }
  if (!name) throw new UsageError(`${command} takes one profile name: ${command} <name>`)
  if (command === 'profiles add') return await runProfilesAdd(dataDir, global, name, output)
  return await runProfilesRemove(dataDir, name, yes, output)
}

/**
 * A failure that is not the CLI's own: an expected one from the core keeps its code, and SQLite's
 * complaints about the database file become the message saying what to do (src/main/db/file-errors.ts,
 * loaded only here so a command that works never pays for it). Anything else is a bug: INTERNAL.
 */
async function describeFailure(error: unknown, databasePath: string | undefined): Promise<CliFailure> {
  const [{ CoreError }, { explainDatabaseError }, { explainDamage }] = await Promise.all([
    import('../errors'),
    import('../db/file-errors'),
    import('./health'),
  ])
  const known =
    databasePath === undefined
      ? error instanceof CoreError
        ? error
        : null
      : ((await explainDamage(error, databasePath)) ?? explainDatabaseError(error, databasePath, 'cli'))
  if (known) return new CliFailure(known.message, known.code)
  return new CliFailure(error instanceof Error ? error.message : String(error), 'INTERNAL')
}

/** Runs a command line as the process's own: its exit code, and a failure main let through on stderr. */
export function runAsProcess(args: string[]): void {
  main(args).then(
    (code) => {
      process.exitCode = code
    },
    (error: unknown) => {
      process.stderr.write(`satchel: ${error instanceof Error ? error.message : String(error)}\n`)
      process.exitCode = 1
    },
  )
}

// Run from source (`node --import tsx src/main/cli/index.ts`); the build's entry is bin.ts.
if (require.main === module && __filename.endsWith('.ts')) runAsProcess(process.argv.slice(2))
