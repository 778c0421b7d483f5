/**
 * Remembers the main window's size and position between runs in a small JSON file in userData. The
 * file is validated on the way in and the bounds are fitted to the displays attached now: a laptop
 * that was on a docking station yesterday must not open its window on a monitor that is gone.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { z } from 'zod'

export const windowStateFileName = 'window-state.json'

const windowStateSchema = z.object({
  x: z.number().int().min(-100_000).max(100_000).optional(),
  y: z.number().int().min(-100_000).max(100_000).optional(),
  width: z.number().int().min(1).max(100_000),
  height: z.number().int().min(1).max(100_000),
  maximized: z.boolean().default(false),
})

export type WindowState = z.infer<typeof windowStateSchema>

export interface Rect {
  x: number
  y: number
  width: number
  height: number
}

export interface WindowSizing {
  width: number
  height: number
  minWidth: number
  minHeight: number
}

export interface WindowPlacement {
  /** Omitted when the saved position is unusable; the window is then centred by the OS. */
  x?: number
  y?: number
  width: number
  height: number
  maximized: boolean
}

/** The saved state, or undefined when there is none or it does not parse (a fresh start, not an error). */
export function readWindowState(file: string): WindowState | undefined {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
  try {
    const parsed = windowStateSchema.safeParse(JSON.parse(text))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/** Written to a temporary file and renamed, so a crash mid-write leaves the previous state intact. */
export function writeWindowState(file: string, state: WindowState): void {
  mkdirSync(dirname(file), { recursive: true })
  const temporary = `${file}.tmp`
  writeFileSync(temporary, JSON.stringify(windowStateSchema.parse(state)))
  renameSync(temporary, file)
}

function overlap(a: Rect, b: Rect): { width: number; height: number } {
  return {
    width: Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)),
    height: Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y)),
  }
}

const clamp = (value: number, min: number, max: number) => Math.min(Math.max(value, min), Math.max(min, max))

/** Enough of the window on screen to grab the title bar and move it. */
const minimumVisible = { width: 120, height: 60 }

/**
 * Fits saved bounds to the work areas of the displays attached now. The window lands on the display
 * it overlaps most, shrunk to fit and moved fully inside it; if it overlaps none enough to be
 * grabbed, it keeps its size and the OS centres it.
 */
export function placeWindow(saved: WindowState | undefined, workAreas: Rect[], sizing: WindowSizing): WindowPlacement {
  const largest = workAreas.reduce<Rect | undefined>(
    (best, area) => (!best || area.width * area.height > best.width * best.height ? area : best),
    undefined,
  )
  const maxWidth = largest?.width ?? Number.MAX_SAFE_INTEGER
  const maxHeight = largest?.height ?? Number.MAX_SAFE_INTEGER
  const width = clamp(saved?.width ?? sizing.width, sizing.minWidth, maxWidth)
  const height = clamp(saved?.height ?? sizing.height, sizing.minHeight, maxHeight)
  const maximized = saved?.maximized ?? false
  if (saved?.x === undefined || saved.y === undefined) return { width, height, maximized }

  const rect = { x: saved.x, y: saved.y, width, height }
  let best: { area: Rect; visible: number } | undefined
  for (const area of workAreas) {
    const shared = overlap(rect, area)
    if (shared.width < minimumVisible.width || shared.height < minimumVisible.height) continue
    const visible = shared.width * shared.height
    if (!best || visible > best.visible) best = { area, visible }
  }
  if (!best) return { width, height, maximized }
  const area = best.area
  const fittedWidth = Math.min(width, area.width)
  const fittedHeight = Math.min(height, area.height)
  return {
    x: clamp(rect.x, area.x, area.x + area.width - fittedWidth),
    y: clamp(rect.y, area.y, area.y + area.height - fittedHeight),
    width: fittedWidth,
    height: fittedHeight,
    maximized,
  }
}

/** The parts of a BrowserWindow the tracker needs, so tests can hand it a plain object. */
export interface TrackedWindow {
  on(event: 'resize' | 'move' | 'close', listener: () => void): unknown
  getNormalBounds(): Rect
  isMaximized(): boolean
  isDestroyed(): boolean
}

/**
 * Saves the window's normal (unmaximized) bounds after it stops moving or resizing, and once more on
 * close. Saving during the session, not only on close, keeps the state when the app is killed.
 */
export function trackWindowState(
  window: TrackedWindow,
  save: (state: WindowState) => void,
  debounceMs = 500,
): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined
  const snapshot = (): void => {
    if (timer) clearTimeout(timer)
    timer = undefined
    if (window.isDestroyed()) return
    const bounds = window.getNormalBounds()
    save({
      x: Math.round(bounds.x),
      y: Math.round(bounds.y),
      width: Math.round(bounds.width),
      height: Math.round(bounds.height),
      maximized: window.isMaximized(),
    })
  }
  const later = (): void => {
    if (timer) clearTimeout(timer)
    timer = setTimeout(snapshot, debounceMs)
  }
  window.on('resize', later)
  window.on('move', later)
  window.on('close', snapshot)
  return () => {
    if (timer) clearTimeout(timer)
  }
}
