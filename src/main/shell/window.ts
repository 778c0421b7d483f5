import { BrowserWindow } from 'electron'
import { secureWebPreferences } from './security'
import type { WindowPlacement, WindowSizing } from './window-state'

export const mainWindowSizing: WindowSizing = { width: 1280, height: 820, minWidth: 900, minHeight: 600 }

export interface MainWindowOptions {
  preload: string
  placement: WindowPlacement
  isDevelopment: boolean
  /** Linux shows this in the taskbar; Windows and macOS take the icon from the executable. */
  icon?: string
}

/**
 * The one application window. Its webPreferences come only from secureWebPreferences, so the
 * security rules cannot drift between windows.
 */
export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const { placement } = options
  const window = new BrowserWindow({
    ...(placement.x !== undefined && placement.y !== undefined ? { x: placement.x, y: placement.y } : {}),
    width: placement.width,
    height: placement.height,
    minWidth: mainWindowSizing.minWidth,
    minHeight: mainWindowSizing.minHeight,
    // Shown on ready-to-show, so the rep never sees an empty white frame.
    show: false,
    title: 'Satchel',
    ...(options.icon ? { icon: options.icon } : {}),
    webPreferences: secureWebPreferences(options.preload, options.isDevelopment),
  })
  window.once('ready-to-show', () => {
    if (placement.maximized) window.maximize()
    window.show()
  })
  return window
}
