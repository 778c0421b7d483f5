/**
 * Nothing the rep typed is lost, and nothing invites a double order, in Chromium through the bridge:
 * the end of the first sync leaves the rep where they are; quote edits, line notes and the
 * new-customer form survive leaving the screen and reloading; saving a draft as a quote moves it;
 * a second "New order" for a customer with an open draft asks first.
 */
import { test, call, expect, orderable, shoot, watchConsole } from './harness'
import type { TestCore } from '../support/core'

test.describe.configure({ timeout: 60_000 })

/** A synced core with a draft of one line (two of an orderable item), for the screens that type into it. */
async function draftWithOneLine(core: TestCore) {
  const target = orderable(core, 1)
  const draft = await call(core.handlers, 'createDraft', {
    customerGuid: target.customerGuid,
    catalogGuid: target.catalogGuid,
  })
  await call(core.handlers, 'addDraftLines', { id: draft.draft.id, lines: [{ sku: target.skus[0]!, qty: 2 }] })
  return { target, draft }
}

test.describe('on first run', () => {
  test.use({ database: 'empty' })

  test('the end of the first sync does not move a rep who went on to type a draft', async ({
    page,
    bridge,
    core,
    service,
  }) => {
    const errors = watchConsole(page)
    const { apiKey, apiSecret } = service.current.credentials
    // Item pages are slow, so the first sync is still running while the rep works on a draft.
    service.current.control.addFault({
      route: 'GET /v1/catalog/:catalogGuid/catalog_items',
      type: 'latency',
      ms: 1_500,
      times: 3,
    })

    await page.goto(bridge.url)
    await page.getByLabel('Service address').fill(service.url)
    await page.getByLabel('API key', { exact: true }).fill(apiKey)
    await page.getByLabel('API secret').fill(apiSecret)
    await page.getByLabel('User GUID (optional)').fill('')
    await page.getByRole('button', { name: 'Save and sync' }).click()
    await expect(page.getByRole('progressbar', { name: 'Sync progress' })).toBeVisible()

    // A draft for a new customer needs nothing synced; the rep opens it inside the app, not by reloading.
    const draft = await call(core.handlers, 'createDraft', { newCustomer: { name: 'Harbour Kitchen' } })
    await page.evaluate((id) => (window.location.hash = `#/drafts/${id}`), draft.draft.id)
    await expect(page.getByRole('heading', { name: /for Harbour Kitchen/ })).toBeVisible()
    const po = page.getByLabel('PO number')
    await po.click()
    await po.pressSequentially('PO-77', { delay: 20 })

    // The sync finishes while the rep is still in the PO field.
    await expect.poll(async () => (await call(core.handlers, 'getSyncStatus')).running, { timeout: 30_000 }).toBe(false)
    await expect
      .poll(async () => (await call(core.handlers, 'getSyncStatus')).lastReport?.ok ?? null, { timeout: 10_000 })
      .toBe(true)
    // That it finished is said on the screen the rep is on, and the rep stays there, mid-field.
    await expect(page.getByText('First sync finished.')).toBeVisible()
    await expect(page).toHaveURL(new RegExp(`#/drafts/${draft.draft.id}$`))
    await expect(po).toBeFocused()
    await expect(po).toHaveValue('PO-77')
    await shoot(page, 'first-sync-finished-on-draft.png')
    expect(errors).toEqual([])
  })
})

test('a quote’s edits are saved as they are typed: leaving with Alt+1 or reloading keeps them', async ({
  page,
  bridge,
  core,
}) => {
  const errors = watchConsole(page)
  const target = orderable(core, 2)
  const draft = await call(core.handlers, 'createDraft', {
    customerGuid: target.customerGuid,
    catalogGuid: target.catalogGuid,
  })
  await call(core.handlers, 'addDraftLines', {
    id: draft.draft.id,
    lines: [
      { sku: target.skus[0]!, qty: 12 },
      { sku: target.skus[1]!, qty: 3 },
    ],
  })
  const quote = await call(core.handlers, 'saveDraftAsQuote', { draftId: draft.draft.id })

  await page.goto(`${bridge.url}#/quotes/${quote.id}`)
  const qty = page.getByRole('spinbutton', { name: `Quantity for ${target.skus[0]!}`, exact: true })
  await expect(qty).toHaveValue('12')
  await qty.fill('99')
  await page.getByLabel('PO number').fill('PO-QUOTE-1')
  // Straight to Customers, the cursor still in the field: nothing was pressed to save.
  await page.keyboard.press('Alt+1')
  await expect(page).toHaveURL(/#\/customers$/)
  await page.goBack()
  await expect(qty).toHaveValue('99')
  await expect(page.getByLabel('PO number')).toHaveValue('PO-QUOTE-1')
  await expect(page.getByTestId('quote-saved')).toContainText('Saved on this laptop')
  const saved = await call(core.handlers, 'getQuote', { id: quote.id })
  expect(saved.lines.map((line) => line.qty)).toEqual([99, 3])
  expect(saved.poNo).toBe('PO-QUOTE-1')
  await shoot(page, 'quote-autosaved.png')

  // Typed, and the window reloads at once.
  await qty.fill('98')
  await page.reload()
  await expect(qty).toHaveValue('98')
  expect((await call(core.handlers, 'getQuote', { id: quote.id })).lines[0]!.qty).toBe(98)
  expect(errors).toEqual([])
})

test('a line note, a PO and the new-customer form typed just before a reload are still there after it', async ({
  page,
  bridge,
  core,
}) => {
  const errors = watchConsole(page)
  const { target, draft } = await draftWithOneLine(core)
  await page.goto(`${bridge.url}#/drafts/${draft.draft.id}`)
  const note = page.getByLabel(`Note for ${target.skus[0]!}`)
  await note.click()
  await note.pressSequentially('leave at the back door', { delay: 10 })
  // No blur, no pause: the window reloads with the cursor still in the note.
  await page.reload()
  await expect(note).toHaveValue('leave at the back door')
  const po = page.getByLabel('PO number')
  await po.click()
  await po.pressSequentially('PO-RELOAD', { delay: 10 })
  await page.reload()
  await expect(po).toHaveValue('PO-RELOAD')
  await expect(note).toHaveValue('leave at the back door')
  const kept = await call(core.handlers, 'getDraft', { id: draft.draft.id })
  expect(kept.draft.lines[0]!.note).toBe('leave at the back door')
  expect(kept.draft.poNo).toBe('PO-RELOAD')

  // The new-customer form, half filled in, through a reload.
  await page.goto(`${bridge.url}#/customers/new`)
  await page.getByLabel('Name', { exact: true }).fill('Corner Deli')
  await page.getByLabel('Email', { exact: true }).pressSequentially('orders@corner', { delay: 10 })
  await page.getByLabel('City').first().pressSequentially('Bend', { delay: 10 })
  await page.reload()
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('Corner Deli')
  await expect(page.getByLabel('Email', { exact: true })).toHaveValue('orders@corner')
  await expect(page.getByLabel('City').first()).toHaveValue('Bend')
  expect((await call(core.handlers, 'getNewCustomerForm'))?.name).toBe('Corner Deli')
  await shoot(page, 'new-customer-kept.png')

  // Once it becomes a draft, the form starts empty again.
  await page.getByLabel('Email', { exact: true }).fill('orders@corner.example')
  await page.getByLabel('Street', { exact: true }).fill('12 Mill Lane')
  await page.getByRole('button', { name: 'Start order' }).click()
  await expect(page.getByRole('heading', { name: /for Corner Deli/ })).toBeVisible()
  expect(await call(core.handlers, 'getNewCustomerForm')).toBeNull()
  await page.goto(`${bridge.url}#/customers/new`)
  await expect(page.getByRole('heading', { name: 'New customer' })).toBeVisible()
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('')
  expect(errors).toEqual([])
})

test('“Save as quote” moves the draft into the quote; converting it gives one draft, and “keep the draft too” is a choice', async ({
  page,
  bridge,
  core,
}) => {
  const errors = watchConsole(page)
  const target = orderable(core, 2)
  const draft = await call(core.handlers, 'createDraft', {
    customerGuid: target.customerGuid,
    catalogGuid: target.catalogGuid,
  })
  await call(core.handlers, 'addDraftLines', { id: draft.draft.id, lines: [{ sku: target.skus[0]!, qty: 4 }] })

  await page.goto(`${bridge.url}#/drafts/${draft.draft.id}`)
  await expect(page.getByRole('checkbox', { name: 'Keep the draft too' })).not.toBeChecked()
  await page.getByRole('button', { name: 'Save as quote' }).scrollIntoViewIfNeeded()
  await shoot(page, 'draft-save-as-quote.png')
  await page.getByRole('button', { name: 'Save as quote' }).click()
  await expect(page.getByRole('heading', { name: /^Quote Q-/ })).toBeVisible()
  expect(await call(core.handlers, 'listDrafts')).toEqual([])
  await page.getByRole('button', { name: 'Convert to order' }).click()
  await expect(page).toHaveURL(/#\/drafts\/\d+$/)
  const drafts = await call(core.handlers, 'listDrafts')
  expect(drafts).toHaveLength(1)
  expect(drafts[0]!.id).not.toBe(draft.draft.id)

  // Asked for, the draft stays beside its quote.
  const second = await call(core.handlers, 'createDraft', {
    customerGuid: target.customerGuid,
    catalogGuid: target.catalogGuid,
  })
  await call(core.handlers, 'addDraftLines', { id: second.draft.id, lines: [{ sku: target.skus[1]!, qty: 1 }] })
  await page.goto(`${bridge.url}#/drafts/${second.draft.id}`)
  await page.getByRole('checkbox', { name: 'Keep the draft too' }).check()
  await page.getByRole('button', { name: 'Save as quote' }).click()
  await expect(page.getByRole('heading', { name: /^Quote Q-/ })).toBeVisible()
  expect((await call(core.handlers, 'listDrafts')).map((d) => d.id)).toContain(second.draft.id)
  expect(errors).toEqual([])
})

test('“New order” for a customer with an open draft asks: continue that draft, or start another, by keyboard', async ({
  page,
  bridge,
  core,
}) => {
  const errors = watchConsole(page)
  const target = orderable(core, 1)
  const open = await call(core.handlers, 'createDraft', {
    customerGuid: target.customerGuid,
    catalogGuid: target.catalogGuid,
  })
  await call(core.handlers, 'addDraftLines', { id: open.draft.id, lines: [{ sku: target.skus[0]!, qty: 2 }] })

  await page.goto(`${bridge.url}#/customers/${target.customerGuid}`)
  await page.getByRole('button', { name: 'New order' }).click()
  const dialog = page.getByRole('dialog')
  await expect(dialog.getByRole('heading')).toContainText('already has an open draft')
  const keep = dialog.getByRole('button', { name: new RegExp(`^Continue draft #${open.draft.id}`) })
  await expect(keep).toBeFocused()
  await shoot(page, 'new-order-open-draft.png')
  // Escape closes it, nothing started.
  await page.keyboard.press('Escape')
  await expect(dialog).toBeHidden()
  expect(await call(core.handlers, 'listDrafts')).toHaveLength(1)

  // Enter on the focused choice continues the open draft.
  await page.keyboard.press('ControlOrMeta+n')
  await expect(keep).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(new RegExp(`#/drafts/${open.draft.id}$`))
  expect(await call(core.handlers, 'listDrafts')).toHaveLength(1)

  // Starting another is there, one Tab away.
  await page.goto(`${bridge.url}#/customers/${target.customerGuid}`)
  await page.getByRole('button', { name: 'New order' }).click()
  await expect(keep).toBeFocused()
  await page.keyboard.press('Tab')
  await expect(dialog.getByRole('button', { name: 'Start another draft' })).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(/#\/drafts\/\d+$/)
  await expect(page).not.toHaveURL(new RegExp(`#/drafts/${open.draft.id}$`))
  expect(await call(core.handlers, 'listDrafts')).toHaveLength(2)
  expect(errors).toEqual([])
})

test('Ctrl+Enter with the cursor still in a line note sends the note as typed', async ({ page, bridge, core }) => {
  const errors = watchConsole(page)
  const { target, draft } = await draftWithOneLine(core)
  await page.goto(`${bridge.url}#/drafts/${draft.draft.id}`)
  const note = page.getByLabel(`Note for ${target.skus[0]!}`)
  await note.click()
  await note.pressSequentially('ring twice', { delay: 5 })
  // No blur, no pause: the order is sent with the cursor still in the note.
  await page.keyboard.press('Control+Enter')
  await expect(page.getByTestId('send-result')).toBeVisible()
  const [entry] = await call(core.handlers, 'listOutbox')
  const printed = await call(core.handlers, 'getDocument', { kind: 'queued', ref: entry!.apiGuid })
  expect(printed.lines[0]!.note).toBe('ring twice')
  expect(errors).toEqual([])
})

/**
 * Holds the core's replies to one method until the test lets them go, oldest first, as a core busy
 * with a first sync answers late: the save is already made, only its echo waits.
 */
function holdReplies(core: TestCore, method: 'updateDraft' | 'updateDraftLine') {
  const handlers = core.handlers as unknown as Record<string, (argument: unknown) => Promise<unknown>>
  const real = handlers[method]!
  const waiting: (() => void)[] = []
  handlers[method] = async (argument) => {
    const result = await real(argument)
    await new Promise<void>((release) => waiting.push(release))
    return result
  }
  return {
    held: () => waiting.length,
    releaseOne: () => waiting.shift()?.(),
    /** Lets every reply go, one a poll, until the core holds what `saved` expects and none waits. */
    async drain(saved: () => Promise<boolean>) {
      await expect.poll(async () => (waiting.shift()?.(), waiting.length === 0 && (await saved()))).toBe(true)
    },
  }
}

test('typing goes on while saves answer late: an older save’s echo never replaces what was typed since', async ({
  page,
  bridge,
  core,
}) => {
  const errors = watchConsole(page)
  const { target, draft } = await draftWithOneLine(core)
  const sku = target.skus[0]!
  const saved = async () => (await call(core.handlers, 'getDraft', { id: draft.draft.id })).draft
  await page.goto(`${bridge.url}#/drafts/${draft.draft.id}`)
  // Enabled once the window has the core's answer to every change it sent.
  const settled = page.getByRole('button', { name: `Increase quantity for ${sku}` })
  await expect(settled).toBeEnabled()
  const fields = holdReplies(core, 'updateDraft')
  const lines = holdReplies(core, 'updateDraftLine')

  // PO: "PO-1" is saved and its echo waits while "2" is typed; the echo lands, then "3" is typed.
  const po = page.getByLabel('PO number')
  await po.click()
  await po.pressSequentially('PO-1')
  await expect.poll(fields.held).toBe(1)
  await po.pressSequentially('2')
  await po.blur()
  fields.releaseOne()
  // The save of "PO-12" reaches the core only once the window has taken the echo of "PO-1".
  await expect.poll(fields.held).toBe(1)
  await po.focus()
  await po.press('End')
  await po.pressSequentially('3')
  await expect(po).toHaveValue('PO-123')

  // Order note: the draft holds "a"; "ab" is on its way when the rep takes the "b" back.
  const note = page.getByLabel('Notes')
  await note.fill('a')
  await note.blur()
  await fields.drain(async () => ((draft) => draft.poNo === 'PO-123' && draft.note === 'a')(await saved()))
  await expect(settled).toBeEnabled()
  await note.focus()
  await note.press('End')
  await note.pressSequentially('b')
  await note.blur()
  await expect.poll(fields.held).toBe(1)
  await note.focus()
  await note.press('Backspace')
  await note.blur()
  await fields.drain(async () => (await saved()).note === 'a')
  await expect(settled).toBeEnabled()
  await expect(note).toHaveValue('a')
  await expect(po).toHaveValue('PO-123')

  // Quantity: 5 is committed and its echo lands while the rep types 7 over it.
  const qty = page.getByRole('spinbutton', { name: `Quantity for ${sku}`, exact: true })
  await qty.fill('5')
  await qty.press('Enter')
  await expect.poll(lines.held).toBe(1)
  await qty.fill('7')
  lines.releaseOne()
  await expect(settled).toBeEnabled()
  await expect(qty).toHaveValue('7')
  await qty.press('Enter')

  // Line note: the draft holds "ring"; "rings" is on its way when the rep takes the "s" back.
  const lineNote = page.getByLabel(`Note for ${sku}`)
  await lineNote.fill('ring')
  await lineNote.blur()
  await lines.drain(async () => ((line) => line?.qty === 7 && line.note === 'ring')((await saved()).lines[0]))
  await expect(settled).toBeEnabled()
  await lineNote.focus()
  await lineNote.press('End')
  await lineNote.pressSequentially('s')
  await lineNote.blur()
  await expect.poll(lines.held).toBe(1)
  await lineNote.focus()
  await lineNote.press('Backspace')
  await lineNote.blur()
  await lines.drain(async () => (await saved()).lines[0]?.note === 'ring')
  await expect(settled).toBeEnabled()
  await expect(lineNote).toHaveValue('ring')
  await expect(qty).toHaveValue('7')
  expect(errors).toEqual([])
})
