/**
 * The reflow check (WCAG 1.4.10) the reflow spec runs over every main screen, shared with the specs
 * of screens that check their own (brief.spec.ts).
 */
import type { Page } from '@playwright/test'

/**
 * What the rep cannot read on the page as it stands: the page or any box scrolling sideways, text cut
 * off by a box that hides its overflow (unless it ellipsizes with the whole text in a title), and a
 * placeholder longer than its field. Each as "what: where (sizes)".
 */
export async function reflowProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const tolerance = 2
    const problems: string[] = []
    const where = (element: Element): string => {
      const parts: string[] = []
      for (
        let node: Element | null = element;
        node && parts.length < 3 && node !== document.body;
        node = node.parentElement
      ) {
        const id = node.id ? `#${node.id}` : ''
        const classes = [...node.classList]
          .filter((name) => !name.startsWith('router-link'))
          .slice(0, 2)
          .map((name) => `.${name}`)
          .join('')
        parts.unshift(`${node.tagName.toLowerCase()}${id}${classes}`)
      }
      const text = (element.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40)
      return `${parts.join(' > ')}${text ? ` “${text}”` : ''}`
    }
    const scrolling = document.scrollingElement!
    if (scrolling.scrollWidth > scrolling.clientWidth + tolerance)
      problems.push(`page scrolls sideways (${scrolling.scrollWidth} > ${scrolling.clientWidth})`)
    const canvas = document.createElement('canvas').getContext('2d')!
    for (const element of document.querySelectorAll<HTMLElement>('body *')) {
      const rect = element.getBoundingClientRect()
      // Visually hidden labels are 1 px on purpose; closed popovers and menus are not shown.
      if (rect.width < 4 || rect.height < 4 || !element.checkVisibility({ visibilityProperty: true })) continue
      const style = getComputedStyle(element)
      const text = (element.textContent ?? '').trim()
      const sideways = element.scrollWidth > element.clientWidth + tolerance
      if (sideways && (style.overflowX === 'auto' || style.overflowX === 'scroll')) {
        // Name the innermost box that sticks out, which is what needs fixing.
        const edge = element.getBoundingClientRect().left + element.clientWidth + tolerance
        const culprit = [...element.querySelectorAll('*')]
          .filter((inner) => inner.getBoundingClientRect().right > edge && inner.getBoundingClientRect().width > 0)
          .pop()
        problems.push(
          `scrolls sideways: ${where(element)} (${element.scrollWidth} > ${element.clientWidth})${culprit ? `, sticking out: ${where(culprit)}` : ''}`,
        )
      }
      const hides = (overflow: string) => overflow === 'hidden' || overflow === 'clip'
      // A title carries the whole text of a box made to ellipsize.
      if (text && !element.title && hides(style.overflowX) && sideways) {
        problems.push(`text cut off: ${where(element)} (${element.scrollWidth} > ${element.clientWidth})`)
      }
      if (
        text &&
        !element.title &&
        hides(style.overflowY) &&
        element.scrollHeight > element.clientHeight + tolerance &&
        style.overflowY !== style.overflowX
      ) {
        problems.push(`text cut off below: ${where(element)} (${element.scrollHeight} > ${element.clientHeight})`)
      }
      if (element instanceof HTMLInputElement && element.placeholder && !element.value) {
        canvas.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`
        const room = element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
        // A search field's clear button takes room from the text too.
        const needed = canvas.measureText(element.placeholder).width
        if (needed > room + tolerance)
          problems.push(
            `placeholder cut off: ${where(element)} “${element.placeholder}” (${Math.ceil(needed)} > ${Math.floor(room)})`,
          )
      }
    }
    return problems
  })
}
