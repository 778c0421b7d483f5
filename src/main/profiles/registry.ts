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
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs'
import { join } from 'node:path'
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
  /** Prefix of this profile's names in the keychain; '' for the first profile, which keeps the old names. */
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
    const file = join(dataDir, registryFileName)
    if (!existsSync(file)) return new ProfileRegistry(dataDir, existsSync(join(dataDir, databaseFileName)) ? [firstProfile()] : [], false)
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
      if (!found) throw new CoreError('NOT_FOUND', `No profile named '${name}' (profiles: ${this.profiles.map((profile) => profile.name).join(', ')})`)
      return { ...found }
    }
    const [only] = this.profiles
    if (this.profiles.length === 1 && only) return { ...only }
    const sorted = [...this.profiles].sort((a, b) => (b.lastUsedAt ?? '').localeCompare(a.lastUsedAt ?? ''))
    const last = sorted[0]
    if (!last) throw new CoreError('NOT_FOUND', `There is no profile in ${this.dataDir}; add one with \`profiles add <name> --base-url URL --api-key K\`, or start the app once.`)
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
    const wanted = name.trim().toLowerCase()
    const found = this.profiles.find((profile) => profile.name.toLowerCase() === wanted)
    return found ? { ...found } : null
  }

  add(fields: { name: string; supplier: string | null }, now: string): Profile {
    const name = checkName(fields.name)
    if (this.find(name)) throw new CoreError('INVALID_ARGUMENT', `A profile named '${name}' already exists.`)
    let id = randomBytes(4).toString('hex')
    while (this.byId(id) || existsSync(join(this.dataDir, `profile-${id}.db`))) id = randomBytes(4).toString('hex')
    const profile: Profile = { id, name, supplier: fields.supplier, databaseFile: `profile-${id}.db`, secretsNamespace: `profile-${id}:`, lastUsedAt: now }
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
    if (change.supplier === profile.supplier && (change.lastUsedAt === undefined || change.lastUsedAt === profile.lastUsedAt)) return
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
    mkdirSync(this.dataDir, { recursive: true })
    const temporary = `${this.file}.${process.pid}.tmp`
    const body: RegistryFile = { version: 1, profiles: this.profiles }
    const fd = openSync(temporary, 'w', 0o600)
    try {
      writeSync(fd, `${JSON.stringify(body, null, 2)}\n`)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temporary, this.file)
    this.written = true
  }
}

function firstProfile(): Profile {
  return { id: 'main', name: firstProfileName, supplier: null, databaseFile: databaseFileName, secretsNamespace: '', lastUsedAt: null }
}

function checkName(raw: string): string {
  const name = raw.trim()
  if (name === '' || name.length > 60) throw new CoreError('INVALID_ARGUMENT', 'A profile name has 1 to 60 characters.')
  return name
}

function parseRegistry(text: string, file: string): Profile[] {
  const unreadable = () => new CoreError('INTERNAL', `The profiles list ${file} is unreadable; restore it from a backup or remove it to start again from satchel.db.`)
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw unreadable()
  }
  const body = parsed as Partial<RegistryFile> | null
  if (!body || body.version !== 1 || !Array.isArray(body.profiles)) throw unreadable()
  const text1 = (value: unknown) => typeof value === 'string'
  const orNull = (value: unknown) => value === null || typeof value === 'string'
  for (const profile of body.profiles as Partial<Profile>[]) {
    const fine = text1(profile.id) && text1(profile.name) && orNull(profile.supplier) && text1(profile.databaseFile) && text1(profile.secretsNamespace) && orNull(profile.lastUsedAt)
    // A file name with a separator would point outside the data folder.
    if (!fine || /[\\/]/.test(profile.databaseFile ?? '/')) throw unreadable()
  }
  return body.profiles
}

/** The service's scheme, host and port, as the list shows the supplier. */
export function supplierOrigin(baseUrl: string | null | undefined): string | null {
  if (!baseUrl || !URL.canParse(baseUrl)) return null
  return new URL(baseUrl).origin
}
