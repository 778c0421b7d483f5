import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createMemoryKeychain } from '../../../../src/main/ports'
import { forgetProfileSecrets, profileKeychain } from '../../../../src/main/profiles/keychain'
import { ProfileRegistry, registryFileName } from '../../../../src/main/profiles/registry'
import { SyncTurns } from '../../../../src/main/profiles/sync-gate'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'satchel-profiles-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('the profiles list', () => {
  it('a data folder from before profiles has one profile on satchel.db, with the keychain names of old, and nothing written', () => {
    writeFileSync(join(dir, 'satchel.db'), '')
    const registry = ProfileRegistry.open(dir)
    expect(registry.list()).toEqual([
      { id: 'main', name: 'Main', supplier: null, databaseFile: 'satchel.db', secretsNamespace: '', lastUsedAt: null },
    ])
    expect(registry.databasePath(registry.resolve())).toBe(join(dir, 'satchel.db'))
    expect(existsSync(join(dir, registryFileName))).toBe(false)
    registry.save()
    expect(ProfileRegistry.open(dir).list()).toEqual(registry.list())
  })

  it('an empty folder has no profile until one is added; the app’s first start adds one on satchel.db', () => {
    const registry = ProfileRegistry.open(dir)
    expect(registry.list()).toEqual([])
    expect(() => registry.resolve()).toThrow(/There is no profile in .*profiles add/)
    registry.save()
    expect(existsSync(join(dir, registryFileName))).toBe(false)
    registry.ensureOne('2026-01-02T00:00:00.000Z')
    const first = {
      id: 'main',
      name: 'Main',
      supplier: null,
      databaseFile: 'satchel.db',
      secretsNamespace: '',
      lastUsedAt: '2026-01-02T00:00:00.000Z',
    }
    expect(ProfileRegistry.open(dir).list()).toEqual([first])
    registry.ensureOne('2026-01-03T00:00:00.000Z')
    expect(ProfileRegistry.open(dir).list()).toEqual([first])
    const other = mkdtempSync(join(tmpdir(), 'satchel-profiles-'))
    try {
      const added = ProfileRegistry.open(other).add({ name: 'Acme', supplier: null }, '2026-01-02T00:00:00.000Z')
      ProfileRegistry.open(other).ensureOne('2026-01-03T00:00:00.000Z')
      expect(
        ProfileRegistry.open(other)
          .list()
          .map((profile) => profile.id),
      ).toEqual([added.id])
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  })

  it('adds profiles with their own database file and keychain prefix, written at once; names are unique in any case', () => {
    writeFileSync(join(dir, 'satchel.db'), '')
    const registry = ProfileRegistry.open(dir)
    const added = registry.add({ name: ' Acme ', supplier: 'https://acme.example' }, '2026-01-02T00:00:00.000Z')
    expect(added.name).toBe('Acme')
    expect(added.databaseFile).toBe(`profile-${added.id}.db`)
    expect(added.secretsNamespace).toBe(`profile-${added.id}:`)
    expect(() => registry.add({ name: 'ACME', supplier: null }, '2026-01-02T00:00:00.000Z')).toThrow(/already exists/)
    expect(() => registry.add({ name: '  ', supplier: null }, '2026-01-02T00:00:00.000Z')).toThrow(/1 to 60/)
    const reread = ProfileRegistry.open(dir)
    expect(reread.list().map((profile) => profile.name)).toEqual(['Main', 'Acme'])
    expect(readdirTemporaries()).toEqual([])
  })

  it('the default is the only profile, else the one used last; a name is found in any case', () => {
    writeFileSync(join(dir, 'satchel.db'), '')
    const registry = ProfileRegistry.open(dir)
    const acme = registry.add({ name: 'Acme', supplier: null }, '2026-01-02T00:00:00.000Z')
    expect(registry.resolve().id).toBe(acme.id)
    registry.update('main', { lastUsedAt: '2026-01-03T00:00:00.000Z' })
    expect(ProfileRegistry.open(dir).resolve().id).toBe('main')
    expect(registry.resolve('acme').id).toBe(acme.id)
    expect(() => registry.resolve('Zed')).toThrow(/No profile named 'Zed'/)
    registry.remove(acme.id)
    expect(
      ProfileRegistry.open(dir)
        .list()
        .map((profile) => profile.id),
    ).toEqual(['main'])
  })

  it('the app and the CLI change the list side by side: a profile added by one is kept when the other writes', () => {
    const app = ProfileRegistry.open(dir)
    app.ensureOne('2026-01-01T00:00:00.000Z')
    const cli = ProfileRegistry.open(dir)
    const added = cli.add({ name: 'Acme', supplier: null }, '2026-01-02T00:00:00.000Z')
    expect(app.list().map((profile) => profile.name)).toEqual(['Main', 'Acme'])
    app.update('main', { lastUsedAt: '2026-01-03T00:00:00.000Z' })
    expect(ProfileRegistry.open(dir).byId(added.id)?.name).toBe('Acme')
  })

  it('refuses a damaged list and a database file outside the folder instead of starting over', () => {
    writeFileSync(join(dir, registryFileName), '{"version":1,"profiles":[')
    expect(() => ProfileRegistry.open(dir)).toThrow(/cannot be read/)
    writeFileSync(
      join(dir, registryFileName),
      JSON.stringify({
        version: 1,
        profiles: [
          { id: 'x', name: 'X', supplier: null, databaseFile: '../x.db', secretsNamespace: 'x:', lastUsedAt: null },
        ],
      }),
    )
    expect(() => ProfileRegistry.open(dir)).toThrow(/cannot be read/)
  })
})

describe('a profiles list edited by hand', () => {
  const entry = (fields: Record<string, unknown>) => ({
    id: 'x',
    name: 'X',
    supplier: null,
    databaseFile: 'profile-x.db',
    secretsNamespace: 'profile-x:',
    lastUsedAt: null,
    ...fields,
  })
  const writeList = (profiles: unknown[]) =>
    writeFileSync(join(dir, registryFileName), JSON.stringify({ version: 1, profiles }))

  it('refuses to act on a list whose ids, database files or names repeat, naming the entries that clash', () => {
    writeList([
      entry({ id: 'main', name: 'Main', databaseFile: 'satchel.db' }),
      entry({ id: 'b', name: 'B', databaseFile: 'profile-b.db' }),
      entry({ id: 'b', name: 'C', databaseFile: 'profile-c.db' }),
    ])
    expect(() => ProfileRegistry.open(dir)).toThrow(/'B' and 'C' have the same id 'b'/)
    writeList([
      entry({ id: 'b', name: 'B', databaseFile: 'profile-b.db' }),
      entry({ id: 'c', name: 'C', databaseFile: 'profile-b.db' }),
    ])
    expect(() => ProfileRegistry.open(dir)).toThrow(/'B' and 'C' have the same database file 'profile-b.db'/)
    writeList([
      entry({ id: 'b', name: 'Café', databaseFile: 'profile-b.db' }),
      entry({ id: 'c', name: 'CAFE\u0301', databaseFile: 'profile-c.db' }),
    ])
    expect(() => ProfileRegistry.open(dir)).toThrow(/have the same name/)
  })

  it('a remove acts on the entry it names and keeps every other, never a second entry of the same id', () => {
    writeList([
      entry({ id: 'b', name: 'B', databaseFile: 'profile-b.db' }),
      entry({ id: 'b', name: 'C', databaseFile: 'profile-c.db' }),
    ])
    expect(() => ProfileRegistry.open(dir).remove('b')).toThrow(/same id/)
  })

  it('derives the keychain prefix from the id: a namespace written in the file is never read', () => {
    writeList([
      entry({ id: 'main', name: 'Main', databaseFile: 'satchel.db', secretsNamespace: 'profile-b:' }),
      entry({ id: 'b', name: 'B', databaseFile: 'profile-b.db', secretsNamespace: '' }),
    ])
    const registry = ProfileRegistry.open(dir)
    expect(registry.byId('main')?.secretsNamespace).toBe('')
    expect(registry.byId('b')?.secretsNamespace).toBe('profile-b:')
    expect(registry.resolve('B').secretsNamespace).toBe('profile-b:')
  })

  it('refuses a database file that is not a plain file name in the folder', () => {
    for (const databaseFile of ['', '.', '..', 'a/b.db', 'a\\b.db']) {
      writeList([entry({ databaseFile })])
      expect(() => ProfileRegistry.open(dir), JSON.stringify(databaseFile)).toThrow(/database file/)
    }
  })

  it('says what the databases beside an unreadable list are, and how to list them again', () => {
    writeFileSync(join(dir, 'profile-ab12.db'), '')
    writeFileSync(join(dir, 'satchel.db'), '')
    writeFileSync(join(dir, registryFileName), '{"version":1,"profiles":[{"id":"ab')
    expect(() => ProfileRegistry.open(dir)).toThrow(/profile-ab12\.db.*satchel\.db|satchel\.db.*profile-ab12\.db/)
    expect(() => ProfileRegistry.open(dir)).not.toThrow(/start again from satchel\.db/)
  })
})

describe('a folder whose list was moved aside', () => {
  it('lists every database in it again, under the keychain names of the same ids', () => {
    writeFileSync(join(dir, 'satchel.db'), '')
    writeFileSync(join(dir, 'profile-ab12cd34.db'), '')
    writeFileSync(join(dir, 'notes.db'), '')
    const registry = ProfileRegistry.open(dir)
    expect(registry.list()).toEqual([
      { id: 'main', name: 'Main', supplier: null, databaseFile: 'satchel.db', secretsNamespace: '', lastUsedAt: null },
      {
        id: 'ab12cd34',
        name: 'Recovered ab12cd34',
        supplier: null,
        databaseFile: 'profile-ab12cd34.db',
        secretsNamespace: 'profile-ab12cd34:',
        lastUsedAt: null,
      },
    ])
  })
})

describe('profile names', () => {
  it('refuses control and bidi characters, and compares names in NFC', () => {
    const registry = ProfileRegistry.open(dir)
    for (const name of ['Red\u001b[31m', 'two\nlines', 'tab\there', 'evil\u202Egnp.exe', 'bell\u0007', 'c1\u0085']) {
      expect(() => registry.add({ name, supplier: null }, '2026-01-02T00:00:00.000Z'), JSON.stringify(name)).toThrow(
        /control|direction/,
      )
    }
    const cafe = registry.add({ name: 'Caf\u00e9', supplier: null }, '2026-01-02T00:00:00.000Z')
    expect(() => registry.add({ name: 'Cafe\u0301', supplier: null }, '2026-01-02T00:00:00.000Z')).toThrow(
      /already exists/,
    )
    expect(registry.resolve('CAFE\u0301').id).toBe(cafe.id)
    const decomposed = registry.add({ name: 'Se\u0301ance', supplier: null }, '2026-01-02T00:00:00.000Z')
    expect(decomposed.name).toBe('S\u00e9ance')
  })

  it('a name with control characters already in the file is refused with the entry named safely', () => {
    writeFileSync(
      join(dir, registryFileName),
      JSON.stringify({
        version: 1,
        profiles: [
          {
            id: 'x',
            name: 'X\u001b[31m',
            supplier: null,
            databaseFile: 'profile-x.db',
            secretsNamespace: 'profile-x:',
            lastUsedAt: null,
          },
        ],
      }),
    )
    let message = ''
    try {
      ProfileRegistry.open(dir)
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toContain('X\\u001b[31m')
    expect(message).not.toContain('\u001b')
  })
})

describe('a data folder made by the profiles list', () => {
  it("is the user's alone (0700), whatever the umask", () => {
    const previous = process.umask(0o000)
    try {
      const folder = join(dir, 'new', 'data')
      ProfileRegistry.open(folder).add({ name: 'Acme', supplier: null }, '2026-01-02T00:00:00.000Z')
      expect(statSync(folder).mode & 0o777).toBe(0o700)
    } finally {
      process.umask(previous)
    }
  })
})

function readdirTemporaries(): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.tmp'))
}

describe('a profile’s keychain', () => {
  it('the first profile keeps the names of old; another profile’s names carry its prefix and are forgotten with it', async () => {
    const store = createMemoryKeychain()
    await store.set('apiSecret', 'old-secret')
    const first = profileKeychain(store, '')
    const second = profileKeychain(store, 'profile-ab:')
    expect(await first.get('apiSecret')).toBe('old-secret')
    expect(await second.get('apiSecret')).toBeNull()
    await second.set('apiSecret', 'second-secret')
    await second.set('userToken', 'second-token')
    expect(await first.get('apiSecret')).toBe('old-secret')
    expect(await store.get('profile-ab:apiSecret')).toBe('second-secret')
    await forgetProfileSecrets(store, 'profile-ab:')
    expect(await second.get('apiSecret')).toBeNull()
    expect(await second.get('userToken')).toBeNull()
    expect(await first.get('apiSecret')).toBe('old-secret')
  })
})

describe('turns to sync across profiles', () => {
  it('one at a time; when several wait, the profile on screen goes first, then the order they asked in', async () => {
    const turns = new SyncTurns()
    turns.putFirst('screen')
    const order: string[] = []
    const signal = new AbortController().signal
    const leaveA = await turns.gateFor('a').enter(signal)
    const waits = ['b', 'c', 'screen'].map((id) =>
      turns
        .gateFor(id)
        .enter(signal)
        .then((leave) => {
          order.push(`${id} in (holder ${turns.current()})`)
          leave()
        }),
    )
    expect(turns.current()).toBe('a')
    leaveA()
    await Promise.all(waits)
    expect(order).toEqual(['screen in (holder screen)', 'b in (holder b)', 'c in (holder c)'])
    expect(turns.current()).toBeNull()
  })

  it('a sync cancelled while waiting leaves the queue and is refused', async () => {
    const turns = new SyncTurns()
    const leave = await turns.gateFor('a').enter(new AbortController().signal)
    const controller = new AbortController()
    const waiting = turns.gateFor('b').enter(controller.signal)
    controller.abort()
    await expect(waiting).rejects.toThrow(/cancelled/)
    leave()
    expect(turns.current()).toBeNull()
  })
})
