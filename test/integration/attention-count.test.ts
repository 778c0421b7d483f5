/**
 * What needs the rep in the outbox, counted by one rule in the core (orders/outbox/attention.ts):
 * `satchel status` and the app (the outbox summary the status bar and the Outbox screen read) say
 * the same number for a change after Send the supplier refused.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createCore } from '../../src/main/core/compose'
import { call } from '../../src/main/core/handlers'
import { createMemoryKeychain } from '../../src/main/ports'
import { cli, json } from '../support/cli'
import { startCliSession, type CliSession } from '../support/cli-session'

let session: CliSession

beforeAll(async () => {
  session = await startCliSession(47)
}, 60_000)
afterAll(async () => {
  await session.close()
})

it('a refused change after Send: the CLI’s status and the app read the same one needing attention', async () => {
  const { env, directory, orderable, service } = session
  const file = join(directory, 'draft.json')
  writeFileSync(
    file,
    JSON.stringify({
      customerGuid: orderable.customerGuid,
      catalogGuid: orderable.catalogGuid,
      lines: [{ sku: orderable.skus[0], qty: 1 }],
    }),
  )
  const queued = await cli(['order', 'queue', '--file', file, '--json'], env)
  expect(queued.code, queued.stderr).toBe(0)
  const apiGuid = json(queued).apiGuid as string
  const flushed = await cli(['flush', '--json'], env)
  expect(flushed.code, flushed.stderr + flushed.stdout).toBe(0)
  // The supplier has locked the order's step: a change to it is refused (403), the rep's to look at.
  const [order] = service.control.ordersByApiGuid(apiGuid)
  service.control.lockOrderStep(String(order!.guid))
  const change = await cli(['orders', 'change', apiGuid, '--hold', '--json'], env)
  expect(change.code, change.stderr).toBe(0)
  await cli(['flush', '--json'], env)

  const status = await cli(['status', '--json'], env)
  expect(status.code, status.stderr).toBe(0)
  const outbox = json(status).outbox as Record<string, number>
  expect(outbox.refused).toBe(1)
  expect(outbox.attention).toBe(1)
  const human = await cli(['status'], env)
  expect(human.stdout).toContain('1 need attention')

  const core = createCore({
    databasePath: env.SATCHEL_DB!,
    appVersion: '0.0.0-test',
    backgroundSync: false,
    ports: { secrets: createMemoryKeychain() },
  })
  try {
    const summary = await call(core.handlers, 'getOutboxSummary')
    expect(summary.ok && summary.value.attention).toBe(outbox.attention)
  } finally {
    await core.close()
  }
})
