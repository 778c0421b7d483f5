/**
 * A first sync seen from the catalog and the order screen, usable before it ends: while
 * a catalog's items are still arriving, the catalog says how many have come of how many, what has
 * landed can be searched, a SKU not found is "not here yet" rather than "not in this catalog", and
 * once the sync is done the notice gives way to the catalog's sync time.
 */
import AxeBuilder from '@axe-core/playwright'
import type { Page } from '@playwright/test'
import { test, startServiceHandle, call, expect, shoot, watchConsole } from './harness'

/**
 * The screen as the rep sees it mid-sync, light and dark: a screenshot of each, and axe's serious or
 * critical WCAG A/AA findings (none expected; dark checks what a colour scheme can change).
 */
async function lookAt(page: Page, name: string): Promise<string[]> {
  const found: string[] = []
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    await shoot(page, scheme === 'light' ? `${name}.png` : `${name}-dark.png`)
    const builder = new AxeBuilder({ page })
    const result = await (
      scheme === 'dark'
        ? builder.withRules(['color-contrast'])
        : builder.withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    ).analyze()
    for (const violation of result.violations) {
      if (violation.impact === 'serious' || violation.impact === 'critical')
        found.push(`${name} (${scheme}): ${violation.id} at ${violation.nodes[0]?.target.join(' ')}`)
    }
  }
  await page.emulateMedia({ colorScheme: 'light' })
  return found
}

test.describe.configure({ timeout: 60_000 })
// About the first sync: the core starts on an empty database, not connected.
test.use({ database: 'empty' })

test('a catalog whose items are still arriving says how far they have come, and what has landed can be searched', async ({
  page,
  bridge,
  core,
}) => {
  // Two rounds of 20 s pages, then the rest of the sync, then the screens after it.
  test.setTimeout(120_000)
  const errors = watchConsole(page)
  // The demo data's two catalogs, hundreds of items each (the first, 836: nine pages): its first page
  // comes at once and every other page of it takes 20 s, so for 20 s exactly one page has landed:
  // time to look at two screens in light and dark, with room to spare on a slow machine. Every other
  // page, not four: the sync keeps six on the wire, and a page that landed early would count too.
  const service = await startServiceHandle({ size: 'demo', seed: 1 })
  try {
    service.current.control.addFault({
      route: 'GET /v1/catalog/:catalogGuid/catalog_items',
      type: 'latency',
      ms: 20_000,
      skip: 1,
      times: 8,
    })
    const { apiKey, apiSecret } = service.current.credentials
    await call(core.handlers, 'saveConnection', { baseUrl: service.url, auth: { kind: 'apiKey', apiKey, apiSecret } })
    const syncing = call(core.handlers, 'syncNow', { full: true })

    // Catalogs come first, by name; the first one's items come first.
    await expect.poll(async () => (await call(core.handlers, 'listCatalogs')).length).toBe(2)
    const [first] = await call(core.handlers, 'listCatalogs')
    await expect
      .poll(
        async () =>
          (await call(core.handlers, 'searchCatalogItems', { catalogGuid: first!.guid, limit: 1 })).items.length,
      )
      .toBe(1)

    // On a draft for that catalog, a SKU not found may just not have come yet.
    const draft = await call(core.handlers, 'createDraft', { catalogGuid: first!.guid })
    await page.goto(`${bridge.url}#/drafts/${draft.draft.id}`)
    const sku = page.getByLabel('SKU or barcode')
    await sku.fill('NOT-HERE-YET')
    await sku.press('Enter')
    await expect(page.getByTestId('scan-message')).toHaveText(
      /^NOT-HERE-YET is not here yet: this catalog is still loading \(100 of [\d,]+ items\)\. Try again when the sync is done\.$/,
    )
    // Find an item says the same: nothing found yet is not "no items match".
    const find = page.getByRole('combobox', { name: 'Find an item' })
    await find.fill('zzqx')
    const options = page.getByRole('listbox', { name: 'Matching items' })
    await expect(options).toContainText(/No match yet: this catalog is still loading \(100 of [\d,]+ items\)\./)
    await expect(options).not.toContainText('No items match')
    await find.fill('')
    const findings = await lookAt(page, 'order-entry-catalog-loading')

    await page.goto(`${bridge.url}#/catalog?catalog=${first!.guid}`)
    const loading = page.locator('[data-catalog-loading]')
    await expect(loading).toHaveText(/^catalog still loading: 100 of [\d,]+ items$/)
    // The status bar names what is syncing now: this catalog's items, not the customers before them.
    await expect(page.getByRole('contentinfo', { name: 'Status' })).toContainText(
      new RegExp(
        `Syncing catalog items of ${first!.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(\\d+ of \\d+\\)… \\d+%`,
      ),
    )
    const expected = Number(/of ([\d,]+) items/.exec((await loading.textContent()) ?? '')![1]!.replace(/,/g, ''))
    expect(expected).toBeGreaterThan(500)
    const scroller = page.getByTestId('catalog-scroller')
    await expect(scroller.getByRole('row')).not.toHaveCount(0)

    // A word of an item that has landed finds it, though the catalog is not all here.
    const landed = (await call(core.handlers, 'searchCatalogItems', { catalogGuid: first!.guid, limit: 1 })).items[0]!
    const search = page.getByLabel('Search catalog')
    await search.fill(landed.sku)
    await expect(scroller).toHaveAttribute('data-results-for', landed.sku)
    await expect(scroller.getByRole('row').filter({ hasText: landed.sku }).first()).toContainText(landed.name)
    await expect(loading).toContainText('catalog still loading: 100 of')
    // A search that finds nothing yet says the catalog is still loading, not that nothing matches.
    await search.fill('zzqx')
    await expect(scroller).toHaveAttribute('data-results-for', 'zzqx')
    await expect(
      page.getByText(/match “zzqx” yet: this catalog is still loading \(100 of [\d,]+ items\)\./),
    ).toBeVisible()
    await search.fill(landed.sku)
    await expect(scroller).toHaveAttribute('data-results-for', landed.sku)
    findings.push(...(await lookAt(page, 'catalog-still-loading')))
    expect(findings).toEqual([])

    // Back to the whole catalog, still mid-sync.
    await search.fill('')
    await expect(scroller).toHaveAttribute('data-results-for', '')
    await expect(loading).toContainText('catalog still loading:')

    const report = await syncing
    expect(report.ok).toBe(true)
    // Done, with nothing typed: the notice gives way to the catalog's sync time, and the list holds
    // every live item, listed by name again.
    const meta = page.locator('p.meta')
    await expect(loading).toHaveCount(0)
    await expect(meta).toContainText(/ · synced just now$/)
    const live = await call(core.handlers, 'searchCatalogItems', { catalogGuid: first!.guid, limit: 3 })
    const everything = await call(core.handlers, 'searchCatalogItems', {
      catalogGuid: first!.guid,
      limit: 1,
      includeInactive: true,
    })
    // A family is one row: its members, among the items the sync brought, are not counted of their own.
    const members = core.db
      .prepare<[string], number>(
        'SELECT count(*) FROM catalog_item_rows WHERE catalog_guid = ? AND deleted_at IS NULL AND group_parent_id > 0',
      )
      .pluck()
      .get(first!.guid)!
    expect(everything.total).toBe(expected - members)
    await expect(meta).toContainText(`${live.total!.toLocaleString('en-US')} items`)
    await expect(scroller.getByRole('row').first()).toContainText(live.items[0]!.name)
    await shoot(page, 'catalog-loaded.png')
    expect(errors).toEqual([])
  } finally {
    await service.close()
  }
})
