/**
 * Every command of the CLI in one table: the options it takes, what it needs found before it runs,
 * the checks of its arguments, and the module that does it, loaded only when it runs (start-up stays
 * well under a second). docs/cli.md is the public contract of each.
 */
import type { BundleProfile } from '../housekeeping/support-bundle'
import { defaultLogsDirectory } from '../paths'
import { nonEmpty, parseLimit, parsePictureLimit, type OptionValues, type options } from './arguments'
import { UsageError, type GlobalOptions } from './errors'
import type { CliOutput } from './output'

type CommandOption = Exclude<
  keyof typeof options,
  | 'db'
  | 'profile'
  | 'data-dir'
  | 'base-url'
  | 'api-key'
  | 'api-secret'
  | 'api-secret-file'
  | 'user-guid'
  | 'user-token'
  | 'user-token-file'
  | 'supplier-guid'
  | 'allow-insecure-http'
  | 'json'
  | 'help'
>

export interface CommandRun {
  command: string
  args: string[]
  values: OptionValues
  global: GlobalOptions
  output: CliOutput
  dataDir: string
  /** support-bundle: every profile of the folder, and why the list could not be read, when it could not. */
  everyProfile?: BundleProfile[]
  listProblem?: string
}

interface Command {
  /** The command's own options; any other is refused. */
  options: readonly CommandOption[]
  /**
   * What it works on: a profile's database (the default), or the data folder itself (the profiles
   * commands, which refuse --db and --profile).
   */
  on?: 'data folder'
  /**
   * The profile's stored API secret is read from the keyring before it runs: to talk to the service
   * (unless a user session is given), or, for the support bundle, to mask it.
   */
  storedSecret?: 'to send' | 'to mask' | ((values: OptionValues) => 'to send' | undefined)
  run(c: CommandRun): Promise<number> | number
}

function noArguments(c: CommandRun, what = 'no arguments'): void {
  if (c.args.length > 0) throw new UsageError(`${c.command} takes ${what} (got '${c.args.join(' ')}')`)
}

/** The one argument a command takes, trimmed; the usage shown when it is missing or not alone. */
function oneArgument(c: CommandRun, usage: string): string {
  if (c.args.length !== 1 || !nonEmpty(c.args[0])) throw new UsageError(usage)
  return c.args[0]!.trim()
}

const picturesStatus: Command = {
  options: [],
  async run(c) {
    noArguments(c)
    const { runPicturesStatus } = await import('./pictures')
    return await runPicturesStatus(c.global, c.output)
  },
}

const picturesFetch: Command = {
  options: ['customer', 'limit'],
  storedSecret: 'to send',
  async run(c) {
    noArguments(c)
    const customer = nonEmpty(c.values.customer)
    if (c.values.customer !== undefined && !customer) throw new UsageError('--customer needs a customer guid')
    const { runPicturesFetch } = await import('./pictures')
    return await runPicturesFetch(
      c.global,
      {
        ...(customer ? { customer } : {}),
        ...(c.values.limit !== undefined ? { limit: parsePictureLimit(c.values.limit) } : {}),
      },
      c.output,
    )
  },
}

export const commands: Record<string, Command> = {
  sync: {
    options: ['full'],
    storedSecret: 'to send',
    async run(c) {
      noArguments(c)
      const { runSync } = await import('./sync')
      return await runSync(c.global, { full: c.values.full === true }, c.output)
    },
  },
  status: {
    options: [],
    async run(c) {
      noArguments(c)
      const { runStatus } = await import('./read')
      return runStatus(c.global, c.output)
    },
  },
  'items search': {
    options: ['catalog', 'customer', 'limit'],
    async run(c) {
      if (c.args.length !== 1)
        throw new UsageError('items search takes one query: items search <query> --catalog <catalogGuid>')
      const catalog = nonEmpty(c.values.catalog)
      if (!catalog) throw new UsageError('items search needs --catalog <catalogGuid>')
      const { runItemsSearch } = await import('./read')
      const query = c.args[0] ?? ''
      const limit = parseLimit(c.values.limit, 20)
      return runItemsSearch(c.global, { query, catalog, customer: nonEmpty(c.values.customer), limit }, c.output)
    },
  },
  'items family': {
    options: ['customer'],
    async run(c) {
      const guid = oneArgument(c, 'items family takes one guid: items family <guid> [--customer <vendorGuid>]')
      const { runItemsFamily } = await import('./read')
      return runItemsFamily(c.global, { guid, customer: nonEmpty(c.values.customer) }, c.output)
    },
  },
  'customers search': {
    options: [],
    async run(c) {
      if (c.args.length !== 1) throw new UsageError('customers search takes one query: customers search <query>')
      const { runCustomersSearch } = await import('./read')
      return runCustomersSearch(c.global, { query: c.args[0] ?? '' }, c.output)
    },
  },
  'customers add': {
    options: ['name', 'email', 'phone', 'file'],
    async run(c) {
      noArguments(c, '--name')
      const { runCustomersAdd } = await import('./customers')
      const { name, email, phone, file } = c.values
      return await runCustomersAdd(
        c.global,
        {
          ...(name !== undefined ? { name } : {}),
          ...(nonEmpty(email) ? { email: nonEmpty(email) } : {}),
          ...(nonEmpty(phone) ? { phone: nonEmpty(phone) } : {}),
          ...(nonEmpty(file) ? { file: nonEmpty(file) } : {}),
        },
        c.output,
      )
    },
  },
  'customers change': {
    options: ['name', 'email', 'phone', 'file'],
    async run(c) {
      const customer = oneArgument(c, 'customers change takes one customer: customers change <guid> [--name N] …')
      const { runCustomersChange } = await import('./customers')
      const { name, email, phone, file } = c.values
      return await runCustomersChange(
        c.global,
        {
          customer,
          ...(name !== undefined ? { name } : {}),
          ...(email !== undefined ? { email } : {}),
          ...(phone !== undefined ? { phone } : {}),
          ...(nonEmpty(file) ? { file: nonEmpty(file) } : {}),
        },
        c.output,
      )
    },
  },
  'customers choose': {
    options: ['none'],
    async run(c) {
      const [key, customer] = c.args.map((arg) => arg.trim())
      const shape = 'customers choose <key> <customer guid>, or customers choose <key> --none'
      if (!nonEmpty(key) || c.args.length !== (c.values.none ? 1 : 2))
        throw new UsageError(`customers choose takes an entry key and one of its candidates: ${shape}`)
      const { runCustomerChoice } = await import('./writes')
      return await runCustomerChoice(c.global, { key: key!, customerGuid: c.values.none ? null : customer! }, c.output)
    },
  },
  'customers brief': {
    options: ['refresh'],
    // Only a refresh talks to the service; the brief itself is read offline.
    storedSecret: (values) => (values.refresh ? 'to send' : undefined),
    async run(c) {
      const customerGuid = oneArgument(
        c,
        'customers brief takes one customer: customers brief <customerGuid> [--refresh]',
      )
      const { runCustomersBrief } = await import('./brief')
      return await runCustomersBrief(c.global, { customerGuid, refresh: c.values.refresh === true }, c.output)
    },
  },
  'customer usual': {
    options: ['limit'],
    async run(c) {
      const customerGuid = oneArgument(
        c,
        'customer usual takes one customer: customer usual <customerGuid> [--limit N]',
      )
      const { runCustomerUsual } = await import('./quotes')
      return runCustomerUsual(c.global, { customerGuid, limit: parseLimit(c.values.limit, 20) }, c.output)
    },
  },
  'order queue': {
    options: ['file'],
    async run(c) {
      noArguments(c, 'its draft from --file')
      const file = nonEmpty(c.values.file)
      if (!file) throw new UsageError('order queue needs --file <draft.json>')
      const { runOrderQueue } = await import('./orders')
      return await runOrderQueue(c.global, { file }, c.output)
    },
  },
  flush: {
    options: [],
    storedSecret: 'to send',
    async run(c) {
      noArguments(c)
      const { runFlush } = await import('./orders')
      return await runFlush(c.global, c.output)
    },
  },
  outbox: {
    options: ['export'],
    async run(c) {
      noArguments(c)
      const { runOutbox } = await import('./orders')
      const folder = nonEmpty(c.values.export)
      if (c.values.export !== undefined && !folder)
        throw new UsageError('outbox --export needs a folder to save the unsent orders in')
      return await runOutbox(c.global, folder ? { export: folder } : {}, c.output)
    },
  },
  quotes: {
    options: ['customer'],
    async run(c) {
      noArguments(c)
      const { runQuotes } = await import('./quotes')
      const customer = nonEmpty(c.values.customer)
      return runQuotes(c.global, customer ? { customer } : {}, c.output)
    },
  },
  'pictures status': picturesStatus,
  'pictures fetch': picturesFetch,
  'support-bundle': {
    options: ['out', 'logs'],
    storedSecret: 'to mask',
    async run(c) {
      noArguments(c, 'its file from --out')
      const out = nonEmpty(c.values.out)
      if (!out) throw new UsageError('support-bundle needs --out <file.zip>')
      const { runSupportBundle } = await import('./support')
      return await runSupportBundle(
        c.global,
        {
          out,
          logs: nonEmpty(c.values.logs) ?? defaultLogsDirectory(),
          ...(c.everyProfile ? { profiles: c.everyProfile } : {}),
          ...(c.listProblem ? { listProblem: c.listProblem } : {}),
        },
        c.output,
      )
    },
  },
  'orders list': {
    options: ['customer', 'changed', 'state', 'limit'],
    async run(c) {
      noArguments(c)
      const { runOrdersList } = await import('./tracking')
      const customer = nonEmpty(c.values.customer)
      const state = nonEmpty(c.values.state)
      return runOrdersList(
        c.global,
        {
          ...(customer ? { customer } : {}),
          ...(state ? { state } : {}),
          changed: c.values.changed === true,
          limit: parseLimit(c.values.limit, 50),
        },
        c.output,
      )
    },
  },
  'orders show': {
    options: [],
    async run(c) {
      const order = oneArgument(c, 'orders show takes one order: orders show <number or guid>')
      const { runOrderShow } = await import('./tracking')
      return runOrderShow(c.global, { order }, c.output)
    },
  },
  'orders submit': {
    options: ['partial', 'whole'],
    async run(c) {
      const order = oneArgument(c, 'orders submit takes one order: orders submit <number or guid> [--partial|--whole]')
      if (c.values.partial && c.values.whole) throw new UsageError('--partial and --whole do not go together')
      const { runOrderSubmit } = await import('./writes')
      const fulfilment = c.values.partial ? 'partial' : c.values.whole ? 'whole' : 'available'
      return await runOrderSubmit(c.global, { order, fulfilment }, c.output)
    },
  },
  'orders change': {
    options: ['hold', 'release', 'cancel', 'po', 'note', 'ship-after', 'cancel-after'],
    async run(c) {
      const order = oneArgument(c, 'orders change takes one order: orders change <number or guid> [--hold] [--po T] …')
      const v = c.values
      if (v.hold && v.release) throw new UsageError('--hold and --release do not go together')
      const { runOrderChange } = await import('./writes')
      const changes = {
        ...(v.hold ? { onHold: true } : v.release ? { onHold: false } : {}),
        ...(v.cancel ? { cancel: true } : {}),
        ...(v.po !== undefined ? { poNo: v.po } : {}),
        ...(v.note !== undefined ? { note: v.note } : {}),
        ...(v['ship-after'] !== undefined ? { shipAfter: v['ship-after'] || null } : {}),
        ...(v['cancel-after'] !== undefined ? { cancelAfter: v['cancel-after'] || null } : {}),
      }
      return await runOrderChange(c.global, { order, changes }, c.output)
    },
  },
  'orders apply-mine': conflictChoice('apply'),
  'orders drop-mine': conflictChoice('drop'),
  'profiles list': {
    options: [],
    on: 'data folder',
    async run(c) {
      noArguments(c)
      const { runProfilesList } = await import('./profiles')
      return runProfilesList(c.dataDir, c.output)
    },
  },
  'profiles add': {
    options: [],
    on: 'data folder',
    async run(c) {
      const name = oneArgument(c, 'profiles add takes one profile name: profiles add <name>')
      const { runProfilesAdd } = await import('./profiles')
      return await runProfilesAdd(c.dataDir, c.global, name, c.output)
    },
  },
  'profiles remove': {
    options: ['yes'],
    on: 'data folder',
    async run(c) {
      const name = oneArgument(c, 'profiles remove takes one profile name: profiles remove <name>')
      const { runProfilesRemove } = await import('./profiles')
      return await runProfilesRemove(c.dataDir, name, c.values.yes === true, c.output)
    },
  },
}

function conflictChoice(choice: 'apply' | 'drop'): Command {
  return {
    options: [],
    async run(c) {
      const key = oneArgument(c, `${c.command} takes one entry key: ${c.command} <key>`)
      const { runConflictChoice } = await import('./writes')
      return await runConflictChoice(c.global, { key, choice }, c.output)
    },
  }
}

/** Old names kept working: `images` was the pictures commands' first word until round 5 (docs/cli.md). */
const formerWords: Record<string, string> = { images: 'pictures' }

/** The command the positionals name ("orders list", "sync"), and the arguments after it. */
export function commandOf(positionals: string[]): { name: string; args: string[] } {
  const [said, second, ...rest] = positionals
  if (!said)
    throw new UsageError(
      'Give a command: sync, status, items search, customers search, order queue, flush or outbox (see --help)',
    )
  const first = formerWords[said] ?? said
  const twoWords = Object.keys(commands).some((name) => name.startsWith(`${first} `))
  if (!twoWords) return { name: first, args: [second, ...rest].filter((value) => value !== undefined) }
  return { name: `${first} ${second ?? ''}`.trim(), args: rest }
}
