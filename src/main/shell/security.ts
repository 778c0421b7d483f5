/**
 * Satchel's security rules, all in one file. Do not change a rule without reading Electron's security
 * checklist (https://www.electronjs.org/docs/latest/tutorial/security); docs/security.md
 * maps every checklist item to the rule here that answers it, and
 * test/unit/main/shell/security.test.ts pins each one.
 *
 * The threat they share: the renderer shows data from the ordering service (customer names, notes,
 * catalog text). If any of it ever became script, these rules keep that script inside a sandboxed page
 * with no Node, no network, no navigation, no new windows, no permissions and only the contract's
 * validated methods.
 */
import type { App, HandlerDetails, Session, WebContents, WebPreferences, WindowOpenHandlerResponse } from 'electron'
import { pathToFileURL } from 'node:url'
import { pictureScheme } from '../../shared/pictures'

export interface AppLocation {
  /** The Vite dev server during `npm run dev`; undefined for a built or packaged app. */
  devServerUrl?: string
  /** Absolute path of the built renderer's index.html. */
  rendererFile: string
}

/**
 * The app's own pages: exactly the built index.html (any hash route), or the dev server's origin in
 * development. A file:// page elsewhere on disk is not ours, even if it is also called index.html.
 */
export function createAppUrlCheck(location: AppLocation): (url: string) => boolean {
  const devOrigin = location.devServerUrl ? safeUrl(location.devServerUrl)?.origin : undefined
  const rendererUrl = pathToFileURL(location.rendererFile)
  return (url) => {
    const parsed = safeUrl(url)
    if (!parsed) return false
    if (devOrigin) return parsed.origin === devOrigin
    return parsed.protocol === 'file:' && parsed.host === rendererUrl.host && parsed.pathname === rendererUrl.pathname
  }
}

function safeUrl(url: string): URL | undefined {
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}

/**
 * Before 'ready': every renderer is sandboxed, even one created some day without
 * secureWebPreferences, so a forgotten option cannot hand a page Node.
 */
export function sandboxAllRenderers(app: Pick<App, 'enableSandbox'>): void {
  app.enableSandbox()
}

/**
 * Every BrowserWindow's webPreferences. Each line is a checklist item:
 * - contextIsolation: the preload's world (with ipcRenderer) stays apart from the page's world.
 * - sandbox: the renderer process gets OS-level sandboxing and no Node, even in the preload.
 * - nodeIntegration (and in workers and subframes) off: page script can never require('fs').
 * - webSecurity on, allowRunningInsecureContent off: same-origin policy and no http on a secure page.
 * - experimentalFeatures off, no enableBlinkFeatures: no unreviewed web platform surface.
 * - webviewTag off: a <webview> would be a second, less-guarded browser inside the app.
 * - navigateOnDragDrop off: dropping a file or link on the window must not navigate away from the app.
 * - safeDialogs: a page cannot trap the rep in an endless alert() loop.
 * - spellcheck off: Chromium would fetch dictionaries from Google's servers.
 * - devTools only in development: in the field, nobody should be talked into pasting script into a
 *   console that holds a live connection to the service.
 */
export function secureWebPreferences(preload: string, isDevelopment: boolean): WebPreferences {
  return {
    preload,
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
    devTools: isDevelopment,
  }
}

/**
 * The Content-Security-Policy sent as a response header for the app's pages. It is at least as
 * strict as the <meta> tag in src/renderer/index.html (both apply; the browser enforces each), and
 * stricter where only a header can be:
 * - script-src 'self': only the bundled scripts; no inline script, no eval, no remote script.
 * - default-src 'none': anything not listed below (media, workers, manifests, frames) is refused.
 * - img-src: the app's own files, data: URLs, and item pictures through satchel-picture:, which the
 *   shell answers from the cache (shell/pictures.ts): no image host is ever reached from a page.
 * - style-src 'unsafe-inline': Vue and Vite set inline styles; styles cannot run code.
 * - connect-src 'self': the renderer never talks to the network; all service traffic goes through
 *   main. In development, the dev server's websocket (hot reload) is allowed too. The meta tag also
 *   allows ws://127.0.0.1:* for the test bridge, which never runs inside Electron.
 * - frame-ancestors, frame-src, object-src, base-uri, form-action: no framing, plugins, base-URL
 *   tricks or form posts to elsewhere.
 */
export function contentSecurityPolicy(devServerUrl?: string): string {
  const devSocket = devServerUrl ? safeUrl(devServerUrl) : undefined
  const connect = ["'self'"]
  if (devSocket) connect.push(`${devSocket.protocol === 'https:' ? 'wss:' : 'ws:'}//${devSocket.host}`)
  const directives: [string, string[]][] = [
    ['default-src', ["'none'"]],
    ['script-src', ["'self'"]],
    ['style-src', ["'self'", "'unsafe-inline'"]],
    ['img-src', ["'self'", 'data:', `${pictureScheme}:`]],
    ['font-src', ["'self'"]],
    ['connect-src', connect],
    ['object-src', ["'none'"]],
    ['base-uri', ["'none'"]],
    ['form-action', ["'none'"]],
    ['frame-src', ["'none'"]],
    ['frame-ancestors', ["'none'"]],
  ]
  return directives.map(([name, values]) => `${name} ${values.join(' ')}`).join('; ')
}

/** True for the responses the CSP header belongs on: the app's files, and the dev server's. */
function servesAppContent(url: string, devServerUrl?: string): boolean {
  const parsed = safeUrl(url)
  if (!parsed) return false
  if (parsed.protocol === 'file:') return true
  return devServerUrl !== undefined && parsed.origin === safeUrl(devServerUrl)?.origin
}

/** Protocols a page of ours may load from without touching the network. */
const localProtocols = new Set(['file:', 'data:', 'blob:', 'devtools:', 'chrome-extension:', `${pictureScheme}:`])

export interface SessionSecurityOptions {
  devServerUrl?: string
  onBlocked?: (what: string, url: string) => void
}

/**
 * Session-wide rules for the renderer's session (the default one). electron-updater uses its own
 * session partition, and main-process HTTP (the service client, the reachability probe) runs on
 * Node's stack, so neither is affected. Electron keeps one listener per webRequest event and per
 * permission handler: a later registration replaces these, so add new rules here, not elsewhere.
 */
export function secureSession(
  session: Pick<
    Session,
    'webRequest' | 'setPermissionRequestHandler' | 'setPermissionCheckHandler' | 'setDevicePermissionHandler'
  >,
  options: SessionSecurityOptions = {},
): void {
  const policy = contentSecurityPolicy(options.devServerUrl)

  // The CSP as a header, not only as the <meta> tag: a header is in force before the first byte of
  // the page is parsed and can carry frame-ancestors, which a meta tag cannot.
  session.webRequest.onHeadersReceived((details, callback) => {
    if (!servesAppContent(details.url, options.devServerUrl)) {
      callback({})
      return
    }
    const headers: Record<string, string[]> = {}
    for (const [name, value] of Object.entries(details.responseHeaders ?? {})) {
      if (name.toLowerCase() !== 'content-security-policy') headers[name] = value
    }
    headers['Content-Security-Policy'] = [policy]
    callback({ responseHeaders: headers })
  })

  // Belt and braces behind connect-src: a page request to the network is cancelled before it leaves,
  // so even a CSP mistake cannot leak data. Requests main makes itself (no webContents) pass.
  const devOrigin = options.devServerUrl ? safeUrl(options.devServerUrl) : undefined
  session.webRequest.onBeforeRequest((details, callback) => {
    if (details.webContentsId === undefined) {
      callback({})
      return
    }
    const url = safeUrl(details.url)
    const allowed =
      url !== undefined &&
      (localProtocols.has(url.protocol) || (devOrigin !== undefined && url.host === devOrigin.host))
    if (!allowed) options.onBlocked?.('request', details.url)
    callback({ cancel: !allowed })
  })

  // Satchel needs no camera, microphone, location, notifications, clipboard reads, USB, HID or
  // serial devices. Electron grants every permission by default, so refuse them all, both when a
  // page asks (request) and when it merely checks (check, device).
  session.setPermissionRequestHandler((_contents, permission, callback) => {
    options.onBlocked?.('permission', permission)
    callback(false)
  })
  session.setPermissionCheckHandler(() => false)
  session.setDevicePermissionHandler(() => false)
}

/** Only well-formed https links without embedded credentials may leave the app for the browser. */
export function externalLinkTarget(url: string): string | undefined {
  const parsed = safeUrl(url)
  if (!parsed || parsed.protocol !== 'https:' || parsed.username || parsed.password || !parsed.hostname)
    return undefined
  return parsed.href
}

export interface ContentsGuardOptions {
  isAppUrl: (url: string) => boolean
  /** shell.openExternal in the app. */
  openExternal: (url: string) => void
  isDevelopment: boolean
  onBlocked?: (what: string, url: string) => void
}

interface NavigationEvent {
  url: string
  isMainFrame?: boolean
  preventDefault(): void
}

/**
 * Navigation guard for will-navigate, will-frame-navigate and will-redirect: the window may only
 * ever show the app's own page. A link to the web opens in the system browser instead, where the
 * rep's browser, not Satchel, deals with it.
 */
export function navigationGuard(
  options: ContentsGuardOptions,
  kind: 'navigation' | 'redirect',
): (event: NavigationEvent) => void {
  return (event) => {
    if (options.isAppUrl(event.url)) return
    event.preventDefault()
    options.onBlocked?.(kind, event.url)
    if (kind === 'navigation' && event.isMainFrame !== false) {
      const target = externalLinkTarget(event.url)
      if (target) options.openExternal(target)
    }
  }
}

/** window.open and target=_blank: never a new Electron window; https links go to the browser. */
export function windowOpenHandler(
  options: ContentsGuardOptions,
): (details: Pick<HandlerDetails, 'url'>) => WindowOpenHandlerResponse {
  return ({ url }) => {
    const target = externalLinkTarget(url)
    if (target) options.openExternal(target)
    else options.onBlocked?.('window.open', url)
    return { action: 'deny' }
  }
}

/**
 * Applies the per-page rules to one webContents. Called for every webContents the app ever creates
 * (app 'web-contents-created'), so a future window cannot be forgotten.
 */
export function guardWebContents(contents: WebContents, options: ContentsGuardOptions): void {
  const navigation = navigationGuard(options, 'navigation')
  // will-navigate covers the main frame; will-frame-navigate also covers iframes.
  contents.on('will-navigate', (event) => navigation(event))
  contents.on('will-frame-navigate', (event) => {
    if (!event.isMainFrame) navigation(event)
  })
  contents.on('will-redirect', (event) => navigationGuard(options, 'redirect')(event))
  // <webview> is off in webPreferences; refusing the attach as well means a page that somehow gets
  // one still cannot load anything into it.
  contents.on('will-attach-webview', (event) => {
    event.preventDefault()
    options.onBlocked?.('webview', '')
  })
  contents.setWindowOpenHandler(windowOpenHandler(options))
  if (!options.isDevelopment) {
    // devTools is off in webPreferences; this catches a window created without our preferences.
    contents.on('devtools-opened', () => contents.closeDevTools())
  }
}
