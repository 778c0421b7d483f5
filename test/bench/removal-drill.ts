/**
 * `npm run drill:removal`: `profiles remove` racing `order queue` and `sync --full` on the same
 * profile, every process a real CLI, with a SIGKILL in each run (the writer's or the remover's, at a
 * random moment after it reached the database). After each run the folder is read as the rep would find it:
 *
 * - lost: an order `order queue` reported queued that is in no listed profile's database;
 * - written into a removed file: a queue or sync that reported success after its profile left the
 *   list (the list's write time against the moment its report reached the drill, less 20 ms for the
 *   pipe), or a database made again at a removed profile's path;
 * - stranded: a profile still listed whose database refuses writes (a remove killed after its fence)
 *   that a second `profiles remove` cannot finish.
 *
 * Each must be 0. Options: --kills N (runs until N SIGKILLs landed, default 40), --seed N (the
 * delays' generator, default 1).
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import BetterSqlite3 from 'better-sqlite3'
import { startOrdersHarness } from '../integration/orders-support'
import { folderWithProfileB } from '../support/profile-folder'
import { seededBetween, sleep, startCli, untilOpen } from './drill-support'

const { values } = parseArgs({
  options: { kills: { type: 'string', default: '40' }, seed: { type: 'string', default: '1' } },
})
/** Runs go on until this many SIGKILLs have landed on a live process (a victim may end first). */
const kills = Number(values.kills)

const between = seededBetween(Number(values.seed))

const pipeSlackMs = 20

function listed(dataDir: string): boolean {
  const body = JSON.parse(readFileSync(join(dataDir, 'profiles.json'), 'utf8')) as { profiles: { id: string }[] }
  return body.profiles.some((profile) => profile.id === 'b')
}

function outboxHas(path: string, apiGuid: string): boolean {
  if (!existsSync(path)) return false
  const db = new BetterSqlite3(path, { readonly: true })
  try {
    return db.prepare('SELECT 1 FROM outbox WHERE api_guid = ?').get(apiGuid) !== undefined
  } finally {
    db.close()
  }
}

async function main(): Promise<void> {
  const harness = await startOrdersHarness()
  const orderable = harness.orderable(2)
  await harness.core.close()
  const scratch = mkdtempSync(join(tmpdir(), 'satchel-removal-drill-'))
  const template = join(scratch, 'template.db')
  copyFileSync(harness.databasePath, template)
  const orderFile = join(scratch, 'order.json')
  writeFileSync(
    orderFile,
    JSON.stringify({
      customerGuid: orderable.customerGuid,
      catalogGuid: orderable.catalogGuid,
      lines: orderable.skus.map((sku) => ({ sku, qty: 1 })),
    }),
  )
  const credentials = {
    SATCHEL_BASE_URL: harness.service.url,
    SATCHEL_API_KEY: harness.service.credentials.apiKey,
    SATCHEL_API_SECRET: harness.service.credentials.apiSecret,
  }

  const tally = {
    removedAfterWriter: 0,
    kills: 0,
    lost: 0,
    writtenIntoRemoved: 0,
    stranded: 0,
    queued: 0,
    synced: 0,
    removed: 0,
    refused: 0,
    writerRefused: 0,
  }
  const problems: string[] = []
  let runs = 0
  for (let run = 0; tally.kills < kills && run < kills * 4; run += 1) {
    runs += 1
    const { dataDir, bDb, env } = folderWithProfileB(template, scratch)

    const writerKind = run % 2 === 0 ? 'queue' : 'sync'
    const writer =
      writerKind === 'queue'
        ? startCli(['order', 'queue', '--file', orderFile, '--profile', 'B', '--json'], env)
        : startCli(['sync', '--profile', 'B', '--full', '--json'], { ...env, ...credentials })
    // Aimed at the window that matters: remove starts once the writer has the database open, and
    // each kill lands once its victim has the database open, at a random moment after.
    await untilOpen(writer.child, bDb)
    await sleep(between(0, 600))
    const remover = startCli(['profiles', 'remove', 'B', '--yes', '--json'], env)
    // Half the runs kill the writer, the rest the remover.
    const victim = run % 4 < 2 ? writer : remover
    await untilOpen(victim.child, bDb)
    await sleep(between(0, 250))
    if (victim.child.exitCode === null && victim.child.signalCode === null && victim.child.kill('SIGKILL'))
      tally.kills += 1
    const [wrote, removed] = await Promise.all([writer.ended, remover.ended])

    const stillListed = listed(dataDir)
    const fileThere = existsSync(bDb)
    const label = `run ${run + 1} (${writerKind}; writer ${wrote.signal ?? wrote.code}, remove ${removed.signal ?? removed.code})`
    if (wrote.code === 0 && writerKind === 'queue') {
      tally.queued += 1
      const apiGuid = (JSON.parse(wrote.stdout.trim().split('\n').at(-1)!) as { apiGuid: string }).apiGuid
      if (!stillListed || !outboxHas(bDb, apiGuid)) {
        tally.lost += 1
        problems.push(`${label}: order ${apiGuid} reported queued is in no listed profile`)
      }
    }
    if (wrote.code === 0 && writerKind === 'sync') tally.synced += 1
    // A writer that ended before the profile left the list did its work on a profile that was there;
    // one still running when it left (by the list's write time) must not report success.
    // The report is the writer's last act (its look at the list comes just before it); the drill
    // reads it through a pipe, so up to `pipeSlackMs` late.
    const removedAt = stillListed ? null : statSync(join(dataDir, 'profiles.json')).mtimeMs
    if (
      wrote.code === 0 &&
      removedAt !== null &&
      wrote.reportedAt !== null &&
      removedAt < wrote.reportedAt - pipeSlackMs
    ) {
      tally.writtenIntoRemoved += 1
      problems.push(
        `${label}: the ${writerKind} reported success ${Math.round(wrote.reportedAt - removedAt)} ms after the profile was removed`,
      )
    }
    if (!stillListed && fileThere) {
      tally.writtenIntoRemoved += 1
      problems.push(`${label}: a database was made again at the removed profile's path`)
    }
    if (
      wrote.code === 0 &&
      removedAt !== null &&
      wrote.reportedAt !== null &&
      removedAt >= wrote.reportedAt - pipeSlackMs
    )
      tally.removedAfterWriter += 1
    if (wrote.code !== null && wrote.code !== 0) tally.writerRefused += 1
    if (removed.code === 0) tally.removed += 1
    if (removed.code === 1) tally.refused += 1
    // A remove killed after its fence leaves the profile listed and refusing writes: a second remove must finish it (or refuse, if it holds an order).
    if (stillListed && fileThere) {
      const again = startCli(['profiles', 'remove', 'B', '--yes', '--json'], env)
      const ended = await again.ended
      const holdsOrder = ended.code === 1 && ended.stdout.includes('"unsent":')
      if (ended.code !== 0 && !holdsOrder) {
        tally.stranded += 1
        problems.push(`${label}: a second remove could not finish: ${ended.stderr.trim()}`)
      }
    }
    rmSync(dataDir, { recursive: true, force: true })
    process.stdout.write(`${label}\n`)
  }
  await harness.service.close()
  rmSync(harness.directory, { recursive: true, force: true })
  rmSync(scratch, { recursive: true, force: true })

  process.stdout.write(`\n${runs} runs, ${tally.kills} SIGKILLs delivered\n`)
  process.stdout.write(
    `queue exited 0: ${tally.queued}; sync exited 0: ${tally.synced}; writer refused: ${tally.writerRefused}; remove done: ${tally.removed}; remove refused: ${tally.refused}; removed after the writer ended: ${tally.removedAfterWriter}\n`,
  )
  process.stdout.write(
    `orders lost: ${tally.lost}; written into a removed file: ${tally.writtenIntoRemoved}; stranded profiles: ${tally.stranded}\n`,
  )
  for (const problem of problems) process.stdout.write(`PROBLEM ${problem}\n`)
  process.exitCode = tally.lost + tally.writtenIntoRemoved + tally.stranded === 0 ? 0 : 1
}

void main()
