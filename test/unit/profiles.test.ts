import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createMemoryKeychain } from '../../src/main/ports'
import { forgetProfileSecrets, profileKeychain } from '../../src/main/profiles/keychain'
import { ProfileRegistry, registryFileName } from '../../src/main/profiles/registry'
import { SyncTurns } from '../../src/main/profiles/sync-gate'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'satchel-profiles-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('the profiles list', () => {
  it('a data folder from before profiles has one profile on satchel.db, with the keychain names of old, and nothing written', () => {
    writeFileSync(join(dir, 'satchel.db'), '')
    const registry = ProfileRegistry.open(dir)
    expect(registry.list()).toEqual([{ id: 'main', name: 'Main', supplier: null, databaseFile: 'satchel.db', secretsNamespace: '', lastUsedAt: null }])
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
    const first = { id: 'main', name: 'Main', supplier: null, databaseFile: 'satchel.db', secretsNamespace: '', lastUsedAt: '2026-01-02T00:00:00.000Z' }
    expect(ProfileRegistry.open(dir).list()).toEqual([first])
    registry.ensureOne('2026-01-03T00:00:00.000Z')
    expect(ProfileRegistry.open(dir).list()).toEqual([first])
    const other = mkdtempSync(join(tmpdir(), 'satchel-profiles-'))
    try {
      const added = ProfileRegistry.open(other).add({ name: 'Acme', supplier: null }, '2026-01-02T00:00:00.000Z')
      ProfileRegistry.open(other).ensureOne('2026-01-03T00:00:00.000Z')
      expect(ProfileRegistry.open(other).list().map((profile) => profile.id)).toEqual([added.id])
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
    expect(ProfileRegistry.open(dir).list().map((profile) => profile.id)).toEqual(['main'])
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
    expect(() => ProfileRegistry.open(dir)).toThrow(/unreadable/)
    writeFileSync(join(dir, registryFileName), JSON.stringify({ version: 1, profiles: [{ id: 'x', name: 'X', supplier: null, databaseFile: '../x.db', secretsNamespace: 'x:', lastUsedAt: null }] }))
    expect(() => ProfileRegistry.open(dir)).toThrow(/unreadable/)
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
