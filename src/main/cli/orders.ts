/**
 * The CLI's order commands: `order queue --file`, `flush` and `outbox`. They use the same desk,
 * outbox and flusher as the app, so an order queued here is the app's order, sent exactly once by
 * whichever of the two flushes first.
 */
import { openLocalData, type LocalData } from '../local/data'
import { AppSettings } from '../settings/app-settings'
import { readUserFile } from './input-files'
import { z } from 'zod'
import {
  ambiguousCodeText,
  lineQtySchema,
  maxOrderLines,
  newCustomerSchema,
  shipToSchema,
  tooManyLinesMessage,
} from '../../shared/orders'
import { closeDatabase, type Database } from '../db/database'
import { describeHolder, untilFree } from '../db/lease'
import { CoreError, describeIssues } from '../errors'
import { createOrders, type Orders } from '../orders'
import { newCustomerOfRequest } from '../orders/customer-writes'
import type { FlushReport } from '../orders/outbox/flusher'
import { createConsoleLogger, silentLogger, systemClock } from '../ports'
import { clampDelay } from '../timers'
import { ServiceClient } from '../ordering-client/client'
import { orderWriteRules } from '../tracking/order-writes'
import { refuseWhileItemsWait } from './catalog-update'
import { cliConnection } from './connection'
import { openExisting } from './database'
import { damageError, exportUnsent, healthJson, knownDamage, refuseDamaged } from './health'
import { CliFailure, UsageError, type GlobalOptions, type Output } from './errors'
import { table } from './format'
import { formatMoney } from '../../shared/money'
import { typedText } from '../../shared/typed-text'

/** A usage error that carries the per-field problems, printed as `{ errors }` with exit code 2. */
class InvalidDraftError extends UsageError {
  constructor(readonly errors: { path: string; message: string }[]) {
    super(errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; '), { errors })
  }
}

/** The draft check's field names, as the draft file calls them. */
const fileFieldOf: Record<string, string> = {
  customer: 'customerGuid',
  catalog: 'catalogGuid',
  priceGroup: 'priceGroupGuid',
  poNo: 'poNo',
  shipTo: 'shipTo',
  lines: 'lines',
}

const draftFileSchema = z
  .object({
    customerGuid: z.uuid().optional(),
    newCustomer: newCustomerSchema.optional(),
    // A customer made offline (`customers add`): the order waits for it and then goes for its guid.
    customerLocalId: z
      .uuid()
      .transform((guid) => guid.toLowerCase())
      .optional(),
    catalogGuid: z.uuid(),
    priceGroupGuid: z.uuid().optional(),
    // A UUID: the same key in other capitals is the same order, so it is kept in lower case.
    apiGuid: z
      .uuid()
      .transform((guid) => guid.toLowerCase())
      .optional(),
    poNo: typedText(100).optional(),
    note: typedText(4000).optional(),
    shippingInstructions: typedText(4000).optional(),
    remainInPreliminary: z.boolean().optional(),
    shipTo: shipToSchema.optional(),
    lines: z
      .array(
        z
          .object({
            catalogItemGuid: z.uuid().optional(),
            sku: z.string().trim().min(1).optional(),
            qty: lineQtySchema,
            note: typedText(1000).optional(),
          })
          .strict()
          .refine(
            (line) => (line.catalogItemGuid === undefined) !== (line.sku === undefined),
            'give exactly one of catalogItemGuid or sku',
          ),
      )
      .min(1, 'an order needs at least one line'),
  })
  .strict()
  .refine(
    (draft) =>
      [draft.customerGuid, draft.newCustomer, draft.customerLocalId].filter((given) => given !== undefined).length ===
      1,
    { message: 'give exactly one of customerGuid, newCustomer or customerLocalId', path: ['customerGuid'] },
  )

/** `outbox` only reads (access 'read'): it works on a read-only database and never writes one. */
export async function withOrders<T>(
  global: GlobalOptions,
  use: (orders: Orders, db: Database, local: LocalData) => Promise<T> | T,
  makeClient?: (db: Database) => ServiceClient,
  access: 'read' | 'write' = 'write',
): Promise<T> {
  const db = openExisting(global.db, access, { damage: 'handled' })
  let client: ServiceClient | undefined
  try {
    client = makeClient?.(db)
    const sender = client ?? null
    const { remainInPreliminaryDefault } = new AppSettings(db).get()
    const local = openLocalData(db)
    const orders = createOrders({
      db,
      local,
      clock: systemClock,
      logger: process.env.SATCHEL_LOG === 'debug' ? createConsoleLogger('debug') : silentLogger,
      sender: async () => sender,
      label: 'satchel (CLI)',
      defaults: () => ({ remainInPreliminary: remainInPreliminaryDefault }),
      writeRules: orderWriteRules,
    })
    return await use(orders, db, local)
  } finally {
    await client?.close()
    closeDatabase(db)
  }
}

/** A draft file's most: the largest order allowed, with long notes on every line, is a few megabytes. */
const draftFileBytes = 32 * 1024 * 1024

/** Reads and checks the draft file; every problem is reported with its path, none is guessed around. */
function readDraftFile(file: string): z.infer<typeof draftFileSchema> {
  let text: string
  try {
    text = readUserFile(file, draftFileBytes)
  } catch (error) {
    throw new InvalidDraftError([{ path: 'file', message: error instanceof Error ? error.message : String(error) }])
  }
  let json: unknown
  try {
    // Editors on Windows start a UTF-8 file with a byte order mark, which is no part of its JSON.
    json = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text)
  } catch (error) {
    throw new InvalidDraftError([
      { path: 'file', message: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` },
    ])
  }
  // Counted before anything else is checked: a file past the cap is one answer, not an error per line.
  const lines = typeof json === 'object' && json !== null ? (json as { lines?: unknown }).lines : undefined
  if (Array.isArray(lines) && lines.length > maxOrderLines)
    throw new InvalidDraftError([
      { path: 'lines', message: `${tooManyLinesMessage()} This file has ${lines.length.toLocaleString('en-US')}.` },
    ])
  const parsed = draftFileSchema.safeParse(json)
  if (!parsed.success)
    throw new InvalidDraftError(
      describeIssues(parsed.error).map((i) => ({ path: i.path === '(argument)' ? '' : i.path, message: i.message })),
    )
  return parsed.data
}

export async function runOrderQueue(global: GlobalOptions, options: { file: string }, output: Output): Promise<number> {
  const file = readDraftFile(options.file)
  return withOrders(global, ({ desk }, db, local) => {
    refuseDamaged(db, global.db)
    refuseWhileItemsWait(local)
    if (file.apiGuid) {
      const existing = desk.outbox.find(file.apiGuid)
      if (existing)
        throw new InvalidDraftError([
          { path: 'apiGuid', message: `an order with this api_guid is already in the outbox (${existing.state})` },
        ])
    }
    // A customer made offline stands in as the new customer it will be; the order waits for it.
    const madeOffline = file.customerLocalId ? desk.outbox.writes.newCustomer(file.customerLocalId) : null
    if (file.customerLocalId && (!madeOffline || madeOffline.state === 'refused'))
      throw new InvalidDraftError([
        {
          path: 'customerLocalId',
          message: madeOffline
            ? 'the supplier refused this customer; fix it before ordering for it'
            : 'no customer made on this laptop has this id (customers add gives it)',
        },
      ])
    const newCustomer = madeOffline ? newCustomerOfRequest(madeOffline.request) : file.newCustomer
    // The whole file becomes one order in memory, checked once; only the commit below writes, so a
    // command that fails or is killed before it leaves no draft behind.
    let order
    try {
      order = desk.composeOrder(
        {
          ...(file.customerGuid ? { customerGuid: file.customerGuid } : {}),
          ...(newCustomer ? { newCustomer } : {}),
          catalogGuid: file.catalogGuid,
          ...(file.priceGroupGuid ? { priceGroupGuid: file.priceGroupGuid } : {}),
          ...(file.apiGuid ? { apiGuid: file.apiGuid } : {}),
          ...(file.poNo !== undefined ? { poNo: file.poNo } : {}),
          ...(file.note !== undefined ? { note: file.note } : {}),
          ...(file.shippingInstructions !== undefined ? { shippingInstructions: file.shippingInstructions } : {}),
          ...(file.remainInPreliminary !== undefined ? { remainInPreliminary: file.remainInPreliminary } : {}),
          ...(file.shipTo ? { shipTo: file.shipTo } : {}),
        },
        file.lines,
      )
    } catch (error) {
      if (!(error instanceof CoreError)) throw error
      if (error.issues?.length)
        throw new InvalidDraftError(
          error.issues.map((issue) => ({ path: fileFieldOf[issue.path] ?? issue.path, message: issue.message })),
        )
      throw new InvalidDraftError([
        { path: error.code === 'NOT_FOUND' ? 'customerGuid' : 'apiGuid', message: error.message },
      ])
    }
    const { check, lineIds, families, ambiguous } = order
    const familyOf = new Map(families.map((family) => [family.code, family]))
    const ambiguousOf = new Map(ambiguous.map((found) => [found.code, found]))
    // Problems point at the file's own line indexes: a draft line at the first file line that made it.
    const problems: { path: string; message: string }[] = []
    const fileIndexOf = new Map<string, number>()
    for (const [index, lineId] of lineIds.entries()) {
      const line = file.lines[index]!
      const code = line.sku ?? line.catalogItemGuid
      const family = code ? familyOf.get(code) : undefined
      const couldMean = code ? ambiguousOf.get(code) : undefined
      const path = `lines.${index}.${line.sku ? 'sku' : 'catalogItemGuid'}`
      if (lineId === null && couldMean) problems.push({ path, message: ambiguousCodeText(couldMean) })
      else if (lineId === null && family) {
        problems.push({
          path,
          message: `${family.code} is the family ${family.title}, which is not ordered itself: order its members (items family ${family.guid} lists them)`,
        })
      } else if (lineId === null) problems.push({ path, message: `${code} is not in this catalog` })
      else if (!fileIndexOf.has(lineId)) fileIndexOf.set(lineId, index)
    }
    for (const issue of check.issues) {
      if (issue.severity !== 'error') continue
      const path = issue.lineId
        ? `lines.${fileIndexOf.get(issue.lineId)}${issue.field ? `.${issue.field}` : ''}`
        : (fileFieldOf[issue.field ?? ''] ?? issue.field ?? '')
      problems.push({ path, message: issue.message })
    }
    if (problems.length > 0) throw new InvalidDraftError(problems)
    // Every value the reply needs comes before the one durable transaction; after it there is only printing.
    const sending = order.prepareSend()
    const { entry } = sending
    const reply = {
      json: { apiGuid: entry.apiGuid, state: 'queued' },
      human: `Queued order ${entry.apiGuid} for ${entry.customerName} (${entry.lineCount} ${entry.lineCount === 1 ? 'line' : 'lines'}, ${formatMoney(entry.subTotal)}).`,
    }
    for (const warning of check.issues.filter((i) => i.severity === 'warning'))
      process.stderr.write(`satchel: warning: ${warning.message}\n`)
    sending.commit(madeOffline?.id ?? null)
    output.result(reply.json, reply.human)
    return 0
  })
}

/** How long `flush` waits for another process (the desktop app, another flush) to finish sending. */
const flushWaitMs = 5 * 60_000

/**
 * Sends once this process holds the outbox lease. While another process sends, this one waits for
 * it (its orders may be the very ones this flush was asked to send), then sends what is left: each
 * process reports only what it sent itself, so their reports add up.
 */
async function flushWhenFree(flusher: Orders['flusher']): Promise<FlushReport> {
  return untilFree(
    () => flusher.flush(),
    (report) => report.heldBy ?? null,
    {
      waitMs: flushWaitMs,
      onWait: (holder) =>
        process.stderr.write(`satchel: waiting for ${describeHolder(holder)}, which is sending the outbox\n`),
      gaveUp: (holder) =>
        new CliFailure(
          `${describeHolder(holder)} is still sending the outbox; try again when it has finished`,
          'UNAVAILABLE',
        ),
    },
  )
}

export async function runFlush(global: GlobalOptions, output: Output): Promise<number> {
  return withOrders(
    global,
    async ({ desk, flusher }, db) => {
      // Sending is what saves the unsent orders of a damaged file, as long as its outbox can be read.
      // Damage not known yet is met on the way, if at all, and told by the error path.
      const damage = knownDamage(global.db)
      if (damage && !damage.outboxReadable) throw damageError(db, global.db, damage)
      // The operator gave credentials on purpose: a pause from refused credentials is tried again.
      desk.outbox.resume()
      desk.outbox.retryNow()
      let report = await flushWhenFree(flusher)
      // Orders a killed Satchel process left mid-send wait (seconds) until its last request has had
      // time to finish; flush waits for them too rather than leave them to the next run.
      let told = false
      for (
        let resendAt = desk.outbox.interruptedResendAt();
        resendAt !== null && resendAt - Date.now() < flushWaitMs;
        resendAt = desk.outbox.interruptedResendAt()
      ) {
        if (!told) {
          const when = new Date(resendAt).toLocaleTimeString()
          process.stderr.write(
            `satchel: waiting until ${when} to resend order(s) another Satchel process was sending when it stopped\n`,
          )
          told = true
        }
        await new Promise((resolve) => setTimeout(resolve, clampDelay(resendAt - Date.now()) + 50))
        const more = await flushWhenFree(flusher)
        report = {
          ...more,
          sent: report.sent + more.sent,
          needsAttention: report.needsAttention + more.needsAttention,
          ...(report.leaseLost || more.leaseLost ? { leaseLost: true } : {}),
        }
      }
      const { queued, sending, retrying, pausedReason, conflict = 0, refused = 0 } = report.summary
      const result = { sent: report.sent, needsAttention: report.needsAttention, retrying: report.retrying }
      const waiting = queued + sending + retrying
      // Writes after Send that need the rep are told here; like a rejected order they do not fail the run.
      const listed = desk.outbox.list()
      const recognise = listed.filter((e) => e.candidates).length
      const choose = [
        ...(conflict > recognise
          ? [`${conflict - recognise} change(s) the supplier changed too (orders apply-mine / drop-mine)`]
          : []),
        ...(recognise > 0
          ? [`${recognise} new customer(s) the supplier may already have (outbox lists them; customers choose)`]
          : []),
        ...(refused > 0 ? [`${refused} refused by the supplier`] : []),
      ]
      const human = `Sent ${report.sent}, rejected ${report.needsAttention}, waiting to retry ${report.retrying}${queued > 0 ? `, still queued ${queued}` : ''}.${choose.length > 0 ? ` Needing you: ${choose.join('; ')}.` : ''}`
      output.result(result, human)
      if (damage) throw damageError(db, global.db, damage)
      if (waiting === 0) return 0
      // Said from what each waiting entry waits for, never guessed: a lease another process took
      // over, a new customer waiting for the rep, a failure of the service.
      const reason =
        pausedReason ??
        (report.leaseLost
          ? 'another Satchel process took over sending them part-way through (a wrong clock on either can make it take over early); `satchel outbox` shows how each ended'
          : undefined) ??
        listed.find((e) => e.state === 'retrying' && e.lastError)?.lastError ??
        listed.find((e) => e.state === 'queued' && e.waitsFor && e.lastError)?.lastError ??
        (sending > 0
          ? 'another Satchel process is sending them now; `satchel outbox` shows how they end'
          : undefined) ??
        'the ordering service did not take them'
      process.stderr.write(`satchel: ${waiting} order(s) still waiting to be sent: ${reason}\n`)
      return 1
    },
    (db) => new ServiceClient({ connection: cliConnection(global, db, 'flush'), retry: { maxAttempts: 1 } }),
  )
}

/** A customer's phone, email and address on one line, as the rep tells two customers apart. */
function facts(customer: { phone?: string | null; email?: string | null; address?: string | null }): string {
  return (
    [customer.phone, customer.email, customer.address].filter((fact) => fact).join(', ') || 'no phone, email or address'
  )
}

export async function runOutbox(global: GlobalOptions, options: { export?: string }, output: Output): Promise<number> {
  return withOrders(
    global,
    ({ desk }, db) => {
      // An outbox damaged but not known so is met as it is read, and told by the error path.
      const damage = knownDamage(global.db)
      if (damage && !damage.outboxReadable) throw damageError(db, global.db, damage)
      const exported = options.export === undefined ? undefined : exportUnsent(db, options.export)
      const entries = desk.outbox.list().map((e) => ({
        apiGuid: e.apiGuid,
        kind: e.kind ?? 'order',
        ...(e.title ? { title: e.title } : {}),
        ...(e.waitsFor ? { waitsFor: e.waitsFor } : {}),
        ...(e.conflict ? { conflict: e.conflict } : {}),
        ...(e.candidates ? { candidates: e.candidates, entered: e.entered } : {}),
        ...(e.outcome ? { outcome: e.outcome } : {}),
        state: e.state,
        customerGuid: e.customerGuid,
        orderGuid: e.orderGuid,
        orderName: e.orderName,
        attempts: e.attempts,
        lastError: e.lastError,
        errors: e.errors,
        mayBeWithSupplier: e.mayBeWithSupplier,
      }))
      const human =
        entries.length === 0
          ? 'The outbox is empty.'
          : table(
              ['Key', 'What', 'State', 'Customer', 'Order', 'Tries', 'Problem'],
              desk.outbox
                .list()
                .map((e) => [
                  e.apiGuid,
                  e.title ?? 'Order',
                  e.mayBeWithSupplier && e.state === 'needsAttention' ? 'checking' : e.state,
                  e.customerName,
                  e.orderName ?? '',
                  String(e.attempts),
                  e.conflict
                    ?.map((c) => `${c.label}: the supplier now says ${String(c.theirs)}, you said ${String(c.mine)}`)
                    .join('; ') ||
                    e.errors.map((x) => x.message).join('; ') ||
                    (e.state === 'sent' ? (e.outcome ?? '') : (e.lastError ?? '')),
                ]),
            )
      // A new customer the rep must recognise: its candidates, each with what tells them apart.
      const choices = desk.outbox
        .list()
        .filter((e) => e.candidates)
        .map(
          (e) =>
            `\n${e.customerName} (${e.apiGuid}) may already be at the supplier. You entered: ${facts(e.entered ?? {})}.\n` +
            e.candidates!.map((c) => `  ${c.guid}  ${c.name}: ${facts(c)}`).join('\n') +
            `\n  satchel customers choose ${e.apiGuid} <customer guid>   or   satchel customers choose ${e.apiGuid} --none`,
        )
        .join('\n')
      const saved = exported
        ? `\n${exported.exported.length} unsent order(s) saved as draft files in ${options.export}: \`satchel order queue --file FILE\` queues each again.${
            exported.notExported.length > 0
              ? `\nNot orders, so not saved as files; each would have done: ${exported.notExported
                  .map((write) => `${write.title ?? write.kind} (${write.apiGuid}, ${write.state})`)
                  .join('; ')}.`
              : ''
          }`
        : ''
      output.result(
        {
          entries,
          ...(exported ? { exported: exported.exported, notExported: exported.notExported } : {}),
          ...(damage ? { health: healthJson(damage) } : {}),
        },
        human + choices + saved,
      )
      if (damage) throw damageError(db, global.db, damage)
      return 0
    },
    undefined,
    'read',
  )
}
