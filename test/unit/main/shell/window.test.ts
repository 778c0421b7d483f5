import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

const created: Record<string, unknown>[] = []

vi.mock('electron', () => ({
  BrowserWindow: class {
    constructor(options: Record<string, unknown>) {
      created.push(options)
    }
    once() {}
  },
}))

const { createMainWindow } = await import('../../../../src/main/shell/window')
const { placeWindow, readWindowState, trackWindowState, writeWindowState } =
  await import('../../../../src/main/shell/window-state')

const sizing = { width: 1280, height: 820, minWidth: 900, minHeight: 600 }
const laptop = { x: 0, y: 0, width: 1440, height: 875 }
const monitorOnTheRight = { x: 1440, y: 0, width: 2560, height: 1400 }

describe('the main window', () => {
  it('is created with the secure webPreferences and the placement it was given', () => {
    createMainWindow({
      preload: '/app/out/preload/index.js',
      placement: { x: 10, y: 20, width: 1000, height: 700, maximized: false },
      isDevelopment: false,
    })
    const options = created.at(-1)
    expect(options).toMatchObject({ x: 10, y: 20, width: 1000, height: 700, show: false })
    expect(options?.webPreferences).toEqual({
      preload: '/app/out/preload/index.js',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
      devTools: false,
    })
  })

  it('leaves the position to the OS when none is known', () => {
    createMainWindow({
      preload: '/p.js',
      placement: { width: 1000, height: 700, maximized: false },
      isDevelopment: true,
    })
    expect(created.at(-1)).not.toHaveProperty('x')
    expect((created.at(-1)?.webPreferences as { devTools: boolean }).devTools).toBe(true)
  })
})

describe('window placement', () => {
  it('uses the defaults on first start', () => {
    expect(placeWindow(undefined, [laptop], sizing)).toEqual({ width: 1280, height: 820, maximized: false })
  })

  it('restores a position that is still on screen', () => {
    expect(
      placeWindow({ x: 1600, y: 100, width: 1200, height: 900, maximized: true }, [laptop, monitorOnTheRight], sizing),
    ).toEqual({
      x: 1600,
      y: 100,
      width: 1200,
      height: 900,
      maximized: true,
    })
  })

  it('lets the OS centre a window whose monitor is gone', () => {
    expect(placeWindow({ x: 1600, y: 100, width: 1200, height: 900, maximized: false }, [laptop], sizing)).toEqual({
      width: 1200,
      height: 875,
      maximized: false,
    })
  })

  it('pulls a window hanging off the edge fully onto its display and shrinks it to fit', () => {
    expect(placeWindow({ x: 1000, y: -50, width: 1400, height: 2000, maximized: false }, [laptop], sizing)).toEqual({
      x: 40,
      y: 0,
      width: 1400,
      height: 875,
      maximized: false,
    })
  })

  it('never goes below the minimum size', () => {
    expect(placeWindow({ x: 0, y: 0, width: 10, height: 10, maximized: false }, [laptop], sizing)).toMatchObject({
      width: 900,
      height: 600,
    })
  })
})

describe('the window state file', () => {
  let directory: string
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'satchel-window-'))
  })
  afterEach(() => {
    rmSync(directory, { recursive: true, force: true })
    vi.useRealTimers()
  })

  it('round-trips and ignores files that are missing, corrupt or out of range', () => {
    const file = join(directory, 'window-state.json')
    expect(readWindowState(file)).toBeUndefined()
    writeWindowState(file, { x: 5, y: 6, width: 1000, height: 700, maximized: true })
    expect(readWindowState(file)).toEqual({ x: 5, y: 6, width: 1000, height: 700, maximized: true })
    writeFileSync(file, '{"width": "wide"')
    expect(readWindowState(file)).toBeUndefined()
    writeFileSync(file, JSON.stringify({ x: 0, y: 0, width: -5, height: 700 }))
    expect(readWindowState(file)).toBeUndefined()
    writeFileSync(file, JSON.stringify({ x: 1.5, y: 0, width: 1000, height: 700 }))
    expect(readWindowState(file)).toBeUndefined()
  })

  it('is saved after the window settles and on close, with the normal bounds', () => {
    vi.useFakeTimers()
    const file = join(directory, 'window-state.json')
    const listeners = new Map<string, () => void>()
    const window = {
      on: (event: string, listener: () => void) => listeners.set(event, listener),
      getNormalBounds: () => ({ x: 100, y: 50, width: 1100.4, height: 760 }),
      isMaximized: () => true,
      isDestroyed: () => false,
    }
    trackWindowState(window, (state) => writeWindowState(file, state), 500)
    listeners.get('resize')?.()
    listeners.get('move')?.()
    expect(readWindowState(file)).toBeUndefined()
    vi.advanceTimersByTime(500)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ x: 100, y: 50, width: 1100, height: 760, maximized: true })
    rmSync(file)
    listeners.get('close')?.()
    expect(readWindowState(file)).toEqual({ x: 100, y: 50, width: 1100, height: 760, maximized: true })
  })
})
