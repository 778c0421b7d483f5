import { createHash } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { latestSchemaVersion } from '../../../../src/main/db/database'
import type { Migration } from '../../../../src/main/db/migration'
import { migrations } from '../../../../src/main/db/migrations'

const directory = join(__dirname, '../../../../src/main/db/migrations')
const migrationFiles = readdirSync(directory)
  .filter((file) => file !== 'index.ts')
  .sort()

/** Every statement a migration runs, in order (migrations only ever call db.exec). */
function sqlOf(migration: Migration): string[] {
  const statements: string[] = []
  migration.up({ exec: (sql: string) => statements.push(sql) } as unknown as Parameters<Migration['up']>[0])
  return statements
}

/**
 * The SQL of each released migration, as sha256 of its statements joined by NUL. Laptops in the field
 * already ran these: a change here means a released migration was edited (whitespace included, since
 * SQLite keeps a CREATE statement's text). A new migration adds a line.
 */
const released: Record<number, string> = {
  1: '9c4d839c049a50ce1ad4c124dc86a0ddd7d35de620557a6fcccf9ed7e8b569b7',
  2: '3b479c3155bed975ba227bf789931e6072f865a760cc7cc62cc8bda7a7cf35f0',
  3: '2ff81d40471beb07a67e8cdec1f4d911687ce1356e44757f09dae0b8117e507f',
  4: 'f7e993099eb6816b579d88003cfb12d3b96f5d2cbfe5575c8fc125b1ad9b759c',
  5: 'ffcfdcd271778ed4fa0cdd259c663912a57905a41c17930e6440835c302deed0',
  6: '542828c57c4513ed6bc3bdac9174fc3cfca6cd736e8b1f3a0b8d8ff5993a7de6',
  7: 'b1f79254ce279e6b7933e963a1640434eb00f6bbbb8c2f6d9cc193f7e4607697',
  20: '16987db22cba36260acdddc6cc92e2accbb795f6134a67ac5ef1c487a5f67dd2',
}

describe('the migration list', () => {
  it('runs from version 1 with no gap and no duplicate, and the latest version is its length', () => {
    const versions = migrations.map((migration) => migration.version)
    expect(versions).toEqual(Array.from({ length: migrations.length }, (_, index) => index + 1))
    expect(new Set(versions).size).toBe(versions.length)
    expect(latestSchemaVersion()).toBe(migrations.length)
    expect(latestSchemaVersion(migrations)).toBe(versions.at(-1))
  })

  it('has one file per version, NNNN-<what>.ts, each listed in order and numbered as its version', async () => {
    expect(migrationFiles).toHaveLength(migrations.length)
    for (const [index, file] of migrationFiles.entries()) {
      const match = /^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*\.ts$/.exec(file)
      expect(match, file).not.toBeNull()
      const module = (await import(join(directory, file))) as { migration?: Migration }
      expect(module.migration, `${file} exports migration`).toBeDefined()
      expect(module.migration?.version, file).toBe(Number(match?.[1]))
      expect(migrations[index], `${file} is entry ${index + 1} of the list`).toBe(module.migration)
    }
  })

  it('keeps the SQL of every released migration as it was released', () => {
    const pinned = migrations.filter((migration) => migration.version in released)
    expect(pinned.map((migration) => migration.version)).toEqual(Object.keys(released).map(Number))
    for (const migration of pinned) {
      const digest = createHash('sha256').update(sqlOf(migration).join('\u0000')).digest('hex')
      expect(digest, `migration ${migration.version} (${migration.name})`).toBe(released[migration.version])
    }
  })
})
