import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { useCombobox, type ComboboxOptions } from '../../../src/renderer/src/composables/combobox'

/**
 * The keys and timing both pickers share: what each key does to the active option and the list, and
 * which key presses are taken (default prevented) so the screen's own shortcuts do not see them.
 */
type Option = { name: string }
const three: Option[] = [{ name: 'Bayfront' }, { name: 'Maple Street' }, { name: 'Mill Creek' }]

function key(name: string): KeyboardEvent & { prevented: boolean } {
  const event = { key: name, prevented: false, preventDefault: () => (event.prevented = true) }
  return event as unknown as KeyboardEvent & { prevented: boolean }
}

function picker(overrides: Partial<ComboboxOptions<Option>> = {}) {
  const chosen: Option[] = []
  const searched: string[] = []
  const combobox = useCombobox<Option>({
    idPrefix: 'probe-option',
    search: async (text) => (searched.push(text), three),
    choose: (option) => chosen.push(option),
    activateFirst: false,
    sayFailure: true,
    ...overrides,
  })
  return { combobox, chosen, searched }
}

async function rest(): Promise<void> {
  await vi.advanceTimersByTimeAsync(30)
}

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('the combobox both pickers share', () => {
  it('searches once typing rests, with the text trimmed, and opens with no option active', async () => {
    const { combobox, searched } = picker()
    combobox.search(' m')
    combobox.search(' ma ')
    expect(searched).toEqual([])
    await rest()
    expect(searched).toEqual(['ma'])
    expect(combobox.open.value).toBe(true)
    expect(combobox.results.value).toEqual(three)
    expect(combobox.active.value).toBe(-1)
    expect(combobox.activeId.value).toBeUndefined()
  })

  it('moves with the arrows, wrapping at both ends, and names the active option for aria-activedescendant', async () => {
    const { combobox } = picker()
    combobox.search('ma')
    await rest()
    const seen: (string | undefined)[] = []
    for (const name of ['ArrowDown', 'ArrowDown', 'ArrowUp', 'ArrowUp', 'ArrowUp']) {
      const event = key(name)
      combobox.onKeydown(event)
      expect(event.prevented).toBe(true)
      seen.push(combobox.activeId.value)
    }
    expect(seen).toEqual(['probe-option-0', 'probe-option-1', 'probe-option-0', 'probe-option-2', 'probe-option-1'])
  })

  it('leaves Home, End and other keys to the text field', async () => {
    const { combobox } = picker()
    combobox.search('ma')
    await rest()
    combobox.onKeydown(key('ArrowDown'))
    for (const name of ['Home', 'End', 'a', 'Tab']) {
      const event = key(name)
      combobox.onKeydown(event)
      expect(event.prevented, name).toBe(false)
    }
    expect(combobox.active.value).toBe(0)
  })

  it('chooses the active option with Enter, or the first when none is active', async () => {
    const { combobox, chosen } = picker()
    combobox.search('ma')
    await rest()
    combobox.onKeydown(key('Enter'))
    combobox.onKeydown(key('ArrowDown'))
    combobox.onKeydown(key('ArrowDown'))
    combobox.onKeydown(key('Enter'))
    expect(chosen.map((option) => option.name)).toEqual(['Bayfront', 'Maple Street'])
  })

  it('activates the first match at once when asked (the item finder)', async () => {
    const { combobox, chosen } = picker({ activateFirst: true })
    combobox.search('ma')
    await rest()
    expect(combobox.activeId.value).toBe('probe-option-0')
    combobox.onKeydown(key('ArrowUp'))
    combobox.onKeydown(key('Enter'))
    expect(chosen.map((option) => option.name)).toEqual(['Mill Creek'])
  })

  it('closes an open list with Escape; a closed or empty list leaves every key alone', async () => {
    const { combobox, chosen } = picker({ search: async (text) => (text === 'none' ? [] : three) })
    combobox.search('ma')
    await rest()
    const escape = key('Escape')
    combobox.onKeydown(escape)
    expect(escape.prevented).toBe(true)
    expect(combobox.open.value).toBe(false)
    expect(combobox.activeId.value).toBeUndefined()
    for (const name of ['Escape', 'ArrowDown', 'Enter']) {
      const event = key(name)
      combobox.onKeydown(event)
      expect(event.prevented, `closed: ${name}`).toBe(false)
    }
    combobox.search('none')
    await rest()
    expect(combobox.open.value).toBe(true)
    for (const name of ['Escape', 'ArrowDown', 'Enter']) {
      const event = key(name)
      combobox.onKeydown(event)
      expect(event.prevented, `empty: ${name}`).toBe(false)
    }
    expect(chosen).toEqual([])
  })

  it('lets the component take Escape first (the customer picker puts the chosen name back)', async () => {
    let editing = true
    const restored: number[] = []
    const { combobox } = picker({ escape: () => (editing ? (restored.push(1), (editing = false), true) : false) })
    const first = key('Escape')
    combobox.onKeydown(first)
    expect(first.prevented).toBe(true)
    const second = key('Escape')
    combobox.onKeydown(second)
    expect(second.prevented).toBe(false)
    expect(restored).toEqual([1])
  })

  it('drops an answer that a newer search or emptied text has overtaken', async () => {
    const answers: Record<string, (options: Option[]) => void> = {}
    const { combobox } = picker({ search: (text) => new Promise((resolve) => (answers[text] = resolve)) })
    combobox.search('ma')
    await rest()
    combobox.search('mi')
    await rest()
    answers.mi!([three[2]!])
    answers.ma!(three)
    await vi.advanceTimersByTimeAsync(0)
    expect(combobox.results.value.map((option) => option.name)).toEqual(['Mill Creek'])

    combobox.search('map')
    await rest()
    combobox.search('  ')
    answers.map!(three)
    await vi.advanceTimersByTimeAsync(0)
    expect(combobox.open.value).toBe(false)
    expect(combobox.results.value).toEqual([])
  })

  it('says why a search failed when asked, and otherwise only empties the list', async () => {
    const failing = async (): Promise<Option[]> => {
      throw new Error('The local database is busy')
    }
    const said = picker({ search: failing })
    said.combobox.search('ma')
    await rest()
    expect(said.combobox.open.value).toBe(true)
    expect(said.combobox.failed.value).toBe('The local database is busy')

    const quiet = picker({ search: failing, sayFailure: false })
    quiet.combobox.search('ma')
    await rest()
    expect(quiet.combobox.open.value).toBe(false)
    expect(quiet.combobox.failed.value).toBeNull()
    expect(quiet.combobox.results.value).toEqual([])
  })
})
