/**
 * The list of profiles, one per supplier connection: a small JSON file beside the databases, so no
 * profile's database holds another's name and a damaged database never hides the others. Written
 * whole to a temporary file and renamed over the old one, so a crash leaves the old list or the new.
 *
 * The database a desktop app from before profiles kept (satchel.db) becomes the first profile as it
 * is: the list only points at it, and that profile keeps the keychain's names of old
 * (secretsNamespace ''), so neither the file nor a secret moves. A folder with neither the list nor
 * satchel.db holds no profile until one is added (the app adds its first on its first start).
 */
import { randomBytes } from 'node:crypto'
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import { dirname, join } from 'node:path'
import { CoreError } from '../errors'
import { databaseFileName } from '../paths'

export const registryFileName = 'profiles.json'

export interface Profile {
  id: string
  name: string
  /** The service's origin (scheme, host, port), or null before a connection is saved. */
  supplier: string | null
  /** The database's file name inside the data folder. */
  databaseFile: string
  /**
   * Prefix of this profile's names in the keychain; '' for the first profile, which keeps the old
   * names. Always derived from the id (secretsNamespaceOf): written to the file for older versions,
   * never read from it, so a hand-edited entry cannot point at another profile's secrets.
   */
  secretsNamespace: string
  lastUsedAt: string | null
}

interface RegistryFile {
  version: 1
  profiles: Profile[]
}

const firstProfileName = 'Main'

export class ProfileRegistry {
  private constructor(
    readonly dataDir: string,
    private profiles: Profile[],
    /** False while the list exists only in memory (a data folder from before profiles, not yet written). */
    private written: boolean,
  ) {}

  /**
   * The list in `dataDir`; without one, the first profile on the database from before profiles where
   * there is one, else no profile: a profile listed with no database behind it would be a phantom.
   */
  static open(dataDir: string): ProfileRegistry {
    // Else a file given as the folder reads as a folder with no profiles, and the first write fails with ENOTDIR.
    if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) {
      throw new CoreError(
        'INVALID_ARGUMENT',
        `${dataDir} is a file, not a folder: Satchel keeps its profiles (profiles.json and a database each) in a folder. Give the folder instead (the CLI's --data-dir or SATCHEL_DATA_DIR), or move the file aside.`,
      )
    }
    const file = join(dataDir, registryFileName)
    if (!existsSync(file)) return new ProfileRegistry(dataDir, databaseProfiles(dataDir), false)
    return new ProfileRegistry(dataDir, parseRegistry(readFileSync(file, 'utf8'), file), true)
  }

  get file(): string {
    return join(this.dataDir, registryFileName)
  }

  list(): Profile[] {
    this.refresh()
    return this.profiles.map((profile) => ({ ...profile }))
  }

  databasePath(profile: Pick<Profile, 'databaseFile'>): string {
    return join(this.dataDir, profile.databaseFile)
  }

  /** By name (any case), or the default: the only profile, else the one used last. */
  resolve(name?: string): Profile {
    this.refresh()
    if (name !== undefined) {
      const found = this.find(name)
      if (!found)
        throw new CoreError(
          'NOT_FOUND',
          `No profile named '${name}' (profiles: ${this.profiles.map((profile) => profile.name).join(', ')})`,
        )
      return { ...found }
    }
    const [only] = this.profiles
    if (this.profiles.length === 1 && only) return { ...only }
    const sorted = [...this.profiles].sort((a, b) => (b.lastUsedAt ?? '').localeCompare(a.lastUsedAt ?? ''))
    const last = sorted[0]
    if (!last)
      throw new CoreError(
        'NOT_FOUND',
        `There is no profile in ${this.dataDir}; add one with \`profiles add <name> --base-url URL --api-key K\`, or start the app once.`,
      )
    return { ...last }
  }

  /**
   * The app's first start on an empty folder: one profile, laid out as a folder from before profiles
   * would have it (satchel.db, the keychain's names of old), so the app needs no setup to start.
   */
  ensureOne(now: string): void {
    this.refresh()
    if (this.profiles.length > 0) return
    this.profiles = [{ ...firstProfile(), lastUsedAt: now }]
    this.write()
  }

  byId(id: string): Profile | null {
    this.refresh()
    const found = this.profiles.find((profile) => profile.id === id)
    return found ? { ...found } : null
  }

  find(name: string): Profile | null {
    this.refresh()
    const wanted = nameKey(name)
    const found = this.profiles.find((profile) => nameKey(profile.name) === wanted)
    return found ? { ...found } : null
  }

  add(fields: { name: string; supplier: string | null }, now: string): Profile {
    const name = checkName(fields.name)
    if (this.find(name)) throw new CoreError('INVALID_ARGUMENT', `A profile named '${name}' already exists.`)
    let id = randomBytes(4).toString('hex')
    while (this.byId(id) || existsSync(join(this.dataDir, `profile-${id}.db`))) id = randomBytes(4).toString('hex')
    const profile: Profile = {
      id,
      name,
      supplier: fields.supplier,
      databaseFile: `profile-${id}.db`,
      secretsNamespace: secretsNamespaceOf(id),
      lastUsedAt: now,
    }
    this.profiles.push(profile)
    this.write()
    return { ...profile }
  }

  remove(id: string): void {
    this.refresh()
    this.profiles = this.profiles.filter((profile) => profile.id !== id)
    this.write()
  }

  update(id: string, change: Partial<Pick<Profile, 'supplier' | 'lastUsedAt'>>): void {
    this.refresh()
    const profile = this.profiles.find((candidate) => candidate.id === id)
    if (!profile) return
    if (
      change.supplier === profile.supplier &&
      (change.lastUsedAt === undefined || change.lastUsedAt === profile.lastUsedAt)
    )
      return
    Object.assign(profile, change)
    this.write()
  }

  /** Writes the list (once, for a data folder from before profiles); the databases are left alone. */
  save(): void {
    if (!this.written && this.profiles.length > 0) this.write()
  }

  /**
   * The list as the file has it now: the app and the CLI both change it (a profile added from a
   * terminal while the app runs), so each reads the file before it reads or changes the list.
   */
  private refresh(): void {
    if (!existsSync(this.file)) return
    this.profiles = parseRegistry(readFileSync(this.file, 'utf8'), this.file)
    this.written = true
  }

  private write(): void {
    const temporary = `${this.file}.${process.pid}.tmp`
    try {
      // The folder holds every profile's customers and orders: a new one is the user's alone, as the
      // databases in it are (db/database.ts). An existing folder is the user's choice and is left as it is.
      if (!existsSync(this.dataDir)) mkdirSync(this.dataDir, { recursive: true, mode: 0o700 })
      const body: RegistryFile = { version: 1, profiles: this.profiles }
      const fd = openSync(temporary, 'w', 0o600)
      try {
        writeSync(fd, `${JSON.stringify(body, null, 2)}\n`)
        fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
      renameSync(temporary, this.file)
    } catch (error) {
      try {
        rmSync(temporary, { force: true })
      } catch {
        // Left behind: the next write replaces it.
      }
      const code = (error as NodeJS.ErrnoException).code
      if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') throw error
      throw new CoreError(
        'DATABASE_READ_ONLY',
        `The data folder ${this.dataDir} cannot be written by this user (${code}), so the list of profiles was not changed. Make the folder writable for this user, or give a folder this user can write (the CLI's --data-dir or SATCHEL_DATA_DIR).`,
      )
    }
    this.written = true
  }
}

function firstProfile(): Profile {
  return {
    id: 'main',
    name: firstProfileName,
    supplier: null,
    databaseFile: databaseFileName,
    secretsNamespace: '',
    lastUsedAt: null,
  }
}

/** The first profile keeps the keychain's names from before profiles; every other's carry its id. */
function secretsNamespaceOf(id: string): string {
  return id === 'main' ? '' : `profile-${id}:`
}

const addedDatabase = /^profile-([A-Za-z0-9_-]{1,64})\.db$/

/**
 * The profiles of a folder with no list, from the databases in it: satchel.db (a folder from before
 * profiles) is the first, and each profile-<id>.db the profile of that id, under its keychain names
 * as before, so a list lost or moved aside costs no profile and no secret. Their names were only in
 * the list: they come back as "Recovered <id>", to be told apart by their supplier.
 */
export function databaseProfiles(dataDir: string): Profile[] {
  const profiles = existsSync(join(dataDir, databaseFileName)) ? [firstProfile()] : []
  let names: string[] = []
  try {
    names = readdirSync(dataDir).sort()
  } catch {
    // no folder yet: no profile
  }
  for (const file of names) {
    const id = addedDatabase.exec(file)?.[1]
    if (id && id !== 'main')
      profiles.push({
        id,
        name: `Recovered ${id}`,
        supplier: null,
        databaseFile: file,
        secretsNamespace: secretsNamespaceOf(id),
        lastUsedAt: null,
      })
  }
  return profiles
}

/** Control characters recolour a terminal or break a line; bidi controls make a name read as another (U+202E). */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const controlCharacters = /[\u0000-\u001f\u007f-\u009f]/
const directionCharacters = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

/** A name as a message may print it: those characters written as \\uXXXX. */
function printable(name: string): string {
  return name.replace(
    new RegExp(`${controlCharacters.source}|${directionCharacters.source}`, 'g'),
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

/** What a name is compared by: "Café" typed as one code point or as e and a combining accent is one name, in any case. */
function nameKey(name: string): string {
  return name.trim().normalize('NFC').toLowerCase()
}

function nameProblem(name: string): string | null {
  if (controlCharacters.test(name)) return 'may not hold control characters (escape codes, tabs, line breaks)'
  if (directionCharacters.test(name)) return "may not hold characters that change the text's direction"
  return null
}

function checkName(raw: string): string {
  const name = raw.trim().normalize('NFC')
  const problem = nameProblem(name)
  if (problem) throw new CoreError('INVALID_ARGUMENT', `A profile name ${problem}: '${printable(name)}'.`)
  if (name === '' || name.length > 60) throw new CoreError('INVALID_ARGUMENT', 'A profile name has 1 to 60 characters.')
  return name
}

/** A database file the list may name: a plain file name inside the data folder. */
function isPlainFileName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !/[\\/]/.test(name) && !name.includes('\u0000')
}

/**
 * Entries that would make one action touch two profiles: a remove by id dropped a second entry of
 * that id (and left its database listed nowhere), two entries on one database file share its
 * orders, and two of one name leave `--profile` to pick either.
 */
function clashes(profiles: Profile[]): string | null {
  const keys: [string, (profile: Profile) => string][] = [
    ['id', (profile) => profile.id],
    ['database file', (profile) => profile.databaseFile],
    ['name', (profile) => nameKey(profile.name)],
  ]
  for (const [what, keyOf] of keys) {
    const seen = new Map<string, Profile>()
    for (const profile of profiles) {
      const key = keyOf(profile)
      const first = seen.get(key)
      if (first)
        return `'${printable(first.name)}' and '${printable(profile.name)}' have the same ${what}${what === 'name' ? '' : ` '${printable(key)}'`}`
      seen.set(key, profile)
    }
  }
  return null
}

function parseRegistry(text: string, file: string): Profile[] {
  const dataDir = dirname(file)
  const unreadable = (why: string) => {
    const databases = existsSync(dataDir) ? databaseProfiles(dataDir).map((profile) => profile.databaseFile) : []
    const kept = databases.length > 0 ? ` The databases beside it are untouched: ${databases.join(', ')}.` : ''
    return new CoreError(
      'INTERNAL',
      `The profiles list ${file} cannot be read: ${why}.${kept} Restore the list from a backup, or move it aside (keep it for support): Satchel then lists every database in the folder again, satchel.db as 'Main' and each profile-<id>.db as 'Recovered <id>', with its orders and its stored secret.`,
    )
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch {
    throw unreadable('it is not valid JSON (cut short, or edited by hand)')
  }
  const body = parsed as Partial<RegistryFile> | null
  if (!body || body.version !== 1 || !Array.isArray(body.profiles))
    throw unreadable('it is not a version 1 list of profiles')
  const text1 = (value: unknown) => typeof value === 'string'
  const orNull = (value: unknown) => value === null || typeof value === 'string'
  const profiles: Profile[] = []
  for (const [index, entry] of (body.profiles as Partial<Profile>[]).entries()) {
    const fine =
      text1(entry.id) &&
      entry.id !== '' &&
      text1(entry.name) &&
      orNull(entry.supplier) &&
      text1(entry.databaseFile) &&
      orNull(entry.lastUsedAt)
    if (!fine) throw unreadable(`its entry ${index + 1} lacks an id, a name or a database file`)
    const profile = entry as Profile
    // A file name with a separator, or '..', would point outside the data folder.
    if (!isPlainFileName(profile.databaseFile))
      throw unreadable(
        `the entry '${printable(profile.name)}' names the database file '${printable(profile.databaseFile)}', which is not a file name in the data folder`,
      )
    const problem = nameProblem(profile.name)
    if (problem) throw unreadable(`the name of the entry '${printable(profile.name)}' ${problem}`)
    profiles.push({ ...profile, secretsNamespace: secretsNamespaceOf(profile.id) })
  }
  const clash = clashes(profiles)
  if (clash) {
    throw new CoreError(
      'CONFLICT',
      `The profiles list ${file} has entries that clash: ${clash}. Satchel will not act on it (removing one could drop the other); edit the file so each profile has its own id, name and database file, or restore it from a backup.`,
    )
  }
  return profiles
}

/** The service's scheme, host and port, as the list shows the supplier. */
export function supplierOrigin(baseUrl: string | null | undefined): string | null {
  if (!baseUrl || !URL.canParse(baseUrl)) return null
  return new URL(baseUrl).origin
}
