/**
 * `satchel`: the command line for support staff, laptop imaging and scripted checks.
 * `npm run cli -- <command>`; documented in docs/cli.md, which is its public contract.
 *
 * This file reads the command line, finds the profile's database and runs the command the table in
 * commands.ts names, then reports its failure in the CLI's words. Start-up must stay well under a
 * second, so it imports only Node built-ins and the small modules beside it; each command loads
 * what it needs when it runs.
 */
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { defaultDataDirectory } from '../paths'
import { options, readGlobalOptions, readWhereabouts, type OptionValues } from './arguments'
import { commandOf, commands, type CommandRun } from './commands'
import { CliFailure, UsageError } from './errors'
import { createOutput, type CliOutput } from './output'
import { usage } from './usage'

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
    const values: OptionValues = parsed.values
    json = values.json === true
    output = holder.current = createOutput(json)
    if (values.help) {
      process.stdout.write(usage)
      return 0
    }
    const where = readWhereabouts(values, process.env, defaultDataDirectory())
    const global = readGlobalOptions(values, process.env, where.explicitDb)
    const { name, args } = commandOf(parsed.positionals)
    const command = commands[name]
    if (!command) throw new UsageError(`Unknown command '${name}' (see --help)`)
    for (const option of Object.keys(values) as (keyof typeof options)[]) {
      if (!(option in commandOptionNames)) continue
      if (values[option] !== undefined && !(command.options as readonly string[]).includes(option))
        throw new UsageError(`--${option} does not apply to '${name}'`)
    }
    const run: CommandRun = { command: name, args, values, global, output, dataDir: where.dataDir }
    if (command.on === 'data folder') {
      if (where.explicitDb || where.profileName)
        throw new UsageError(`${name} works on the data folder (--data-dir), not on --db or --profile`)
      return await command.run(run)
    }
    const storedSecret =
      typeof command.storedSecret === 'function' ? command.storedSecret(values) : command.storedSecret
    if (!where.explicitDb) await findProfile(run, where.profileName, storedSecret)
    databasePath = global.db
    return await command.run(run)
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

/** The options a command may take or refuse: those not about where, who or how the output looks. */
const commandOptionNames = Object.fromEntries(
  Object.values(commands).flatMap((command) => command.options.map((option) => [option, true])),
)

/**
 * The database of the profile named (or the only one), in the data folder: written into the run's
 * global options, with the stored API secret where the command needs it.
 */
async function findProfile(
  run: CommandRun,
  profileName: string | undefined,
  storedSecret: 'to send' | 'to mask' | undefined,
): Promise<void> {
  const { global, dataDir } = run
  const { databaseProfiles, ProfileRegistry } = await import('../profiles/registry')
  if (run.command === 'support-bundle') {
    // The bundle is most needed when things are broken: with a list that cannot be read, it is made
    // from the databases in the folder, and says why.
    try {
      ProfileRegistry.open(dataDir)
    } catch (error) {
      const found = databaseProfiles(dataDir)
      const chosen = profileName
        ? found.find((each) => each.name.toLowerCase() === profileName.toLowerCase())
        : found[0]
      if (!chosen || !(error instanceof Error)) throw error
      run.listProblem = error.message
      global.db = join(dataDir, chosen.databaseFile)
      run.everyProfile = found.map((each) => ({
        name: each.name,
        supplier: each.supplier,
        databasePath: join(dataDir, each.databaseFile),
        inThisBundle: each.id === chosen.id,
      }))
      return
    }
  }
  const registry = ProfileRegistry.open(dataDir)
  const profile = registry.resolve(profileName)
  global.db = registry.databasePath(profile)
  global.stillListed = () => ProfileRegistry.open(dataDir).byId(profile.id) !== null
  // The bundle describes every profile of the folder; its top-level files are this one's.
  run.everyProfile = registry.list().map((each) => ({
    name: each.name,
    supplier: each.supplier,
    databasePath: registry.databasePath(each),
    inThisBundle: each.id === profile.id,
  }))
  // The bundle masks the secret it is given: the keyring's, where no option gave one. A user
  // session needs no API secret to send.
  if (storedSecret === 'to mask' || (storedSecret === 'to send' && !global.userToken)) {
    const { storedApiSecret } = await import('./connection')
    await storedApiSecret(global, dataDir, profile)
  }
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
