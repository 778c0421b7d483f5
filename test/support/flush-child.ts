/**
 * A Satchel process that flushes the outbox of the database it is given, for the crash drills:
 * `tsx test/support/flush-child.ts <db>` with SATCHEL_API_SECRET set. With SATCHEL_KILL_AT=<point>:<n>
 * it SIGKILLs itself — no cleanup, no finally blocks, like a pulled battery — at the nth time the
 * flusher reaches that point ('claimed': the entry is marked sending, nothing sent yet; 'responded':
 * the service answered, Satchel has not recorded it).
 */
import { ConnectionSettings } from '../../src/main/settings/connection'
import { closeDatabase, openDatabase } from '../../src/main/db/database'
import { createOrders } from '../../src/main/orders'
import { createMemoryKeychain, silentLogger, systemClock } from '../../src/main/ports'
import { ServiceClient } from '../../src/main/ordering-client/client'
import { openLocalData } from '../../src/main/local/data'

async function main(): Promise<void> {
  const databasePath = process.argv[2]
  if (!databasePath) throw new Error('usage: flush-child.ts <database>')
  const [killPoint, killAtCount] = (process.env.SATCHEL_KILL_AT ?? '').split(':')
  const db = openDatabase(databasePath)
  const secrets = createMemoryKeychain()
  await secrets.set('apiSecret', process.env.SATCHEL_API_SECRET ?? '')
  const connection = await new ConnectionSettings(db, secrets).resolve()
  if (!connection) throw new Error('no connection saved in this database')
  const client = new ServiceClient({ connection })
  let reached = 0
  const orders = createOrders({
    db,
    local: openLocalData(db),
    clock: systemClock,
    logger: silentLogger,
    sender: async () => client,
    defaults: () => ({ remainInPreliminary: false }),
    // A short lease: the restart after a kill holds the killed request's order until this lease
    // would have run out (in case that request is still with the service), a moment rather than 15 s.
    leaseTtlMs: 1_500,
    probe: (point) => {
      if (point !== killPoint) return
      reached++
      if (reached === Number(killAtCount ?? 1)) process.kill(process.pid, 'SIGKILL')
    },
  })
  process.stdout.write('flushing\n')
  orders.desk.outbox.retryNow()
  const report = await orders.flusher.flush()
  process.stdout.write(
    `${JSON.stringify({ sent: report.sent, needsAttention: report.needsAttention, retrying: report.retrying })}\n`,
  )
  await client.close()
  closeDatabase(db)
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
  process.exit(1)
})
