/**
 * A tag says its whole text at every size: the order page of a sent order with a hold the supplier
 * took since the page's copy ("Hold requested — sent; shows here after the next sync"), at 1280×720,
 * 320 px and 200%, light and dark: no tag is cut off, nothing scrolls sideways, axe finds nothing
 * serious. Each as test-results/screenshots/tags-order-*.png.
 */
import { test, call, expect, settle } from './harness'
import { axeProblems, clippedText, inLayout, layouts, shootAs } from './looks'
import { reflowProblems } from './reflow-problems'
import { sentAndSynced, startWrites } from './writes-world'

test.describe.configure({ timeout: 120_000 })

const holdSent = 'Hold requested — sent; shows here after the next sync'

test('the order page’s tags show their whole text at 1280, 320 px and 200%, light and dark', async ({
  browser,
  page,
  bridge,
  service,
  core,
}) => {
  await startWrites(page, core, service)
  const order = await sentAndSynced(core, service)
  await call(core.handlers, 'changeSentOrder', { order: order.guid, changes: { onHold: true } })
  await call(core.handlers, 'flushOutbox')
  await settle(core)

  const problems: string[] = []
  for (const layout of layouts)
    for (const scheme of ['light', 'dark'] as const)
      await inLayout(browser, layout, scheme, async (look) => {
        await look.goto(`${bridge.url}#/orders/${order.guid}`)
        const pending = look.getByTestId('order-pending')
        await expect(pending).toContainText(holdSent)
        await pending.scrollIntoViewIfNeeded()
        await shootAs(look, `tags-order-${layout.name}-${scheme}.png`)
        const where = `${layout.name} ${scheme}`
        for (const problem of await clippedText(look, '.tag')) problems.push(`${where} tag cut off: ${problem}`)
        for (const problem of await reflowProblems(look)) problems.push(`${where} reflow: ${problem}`)
        for (const problem of await axeProblems(look, scheme)) problems.push(`${where} axe: ${problem}`)
      })
  for (const problem of problems) console.log(`tags: ${problem}`)
  expect(problems).toEqual([])
})
